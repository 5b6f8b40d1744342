"""GPU solvers of the global-alignment workload: ``nw-tiles`` (paper 002's design, paper.py +
paper.cu) and ``gpu`` (ours, solver.py + strips.cu). CuPy is imported on first use only."""
