"""GPU solvers of the primer problem: ``primer-paper`` (paper.cu, the paper's best CUDA design)
and ``gpu`` (bitparallel.cu, ours); host code in solver.py."""
