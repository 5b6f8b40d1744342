"""GPU solvers of the global-alignment workload: ``nw-tiles`` (paper 002's design, tiles.py +
tiles.cu) and ``gpu`` (ours, solver.py + strips.cu). CuPy is imported on first use only."""
