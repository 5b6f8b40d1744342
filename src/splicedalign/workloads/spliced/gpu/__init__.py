"""Spliced alignment on NVIDIA GPUs (docs/gpu.md): the paper's two accelerators (``paper``:
``accel1``, ``accel2``; kernels in ``paper.cu``) and ours, ``gpu`` (``solver.GpuSolver``; kernels
in ``wavefront.cu``). Ours, layer by layer: ``flat`` (a batch of test cases as flat arrays),
``plan`` (the constants shared with the kernel and one launch's task list), ``launch`` (the
tuning, each launch's configuration and the sizing of launches to the device memory),
``solver`` (the host driver). CuPy is imported on first use only (``splicedalign.gpu.device``).
"""
