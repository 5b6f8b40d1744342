"""GPU solvers (CuPy + CUDA C kernels in ``splicedalign/kernels``).

``accel1``/``accel2`` reproduce the paper's two accelerators; ``gpu`` is the batched wavefront
solver. Host-side planning (``plan``, ``launch``) is pure NumPy and importable without CuPy;
CuPy is imported only when a GPU solver runs.
"""
