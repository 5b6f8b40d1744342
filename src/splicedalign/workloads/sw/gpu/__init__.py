"""GPU solvers of the database search: ``sw-scan`` (paper 003's row scan, paper.py/paper.cu)
and ``gpu`` (ours, inter-sequence, solver.py/inter.cu); planning in plan.py (pure)."""
