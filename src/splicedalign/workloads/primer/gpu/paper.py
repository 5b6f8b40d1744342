"""Host side of the paper's primer GPU design, `primer-paper` (paper.cu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from splicedalign.gpu import device
from splicedalign.workloads.primer.gpu.solver import StartsSolver

KERNEL_FILE = Path(__file__).with_name("paper.cu")
KERNEL = "primer_paper"
PP_THREADS = 256  # the paper's best threads per block
PP_C = 3  # the paper's prefetch factor (Table 4)
DEFINES = {"PP_THREADS": PP_THREADS, "PP_C": PP_C}  # paper.defines.h


class PaperSolver(StartsSolver):
    """The paper's alternative CUDA solution with Opt 3-6 (paper.cu): a block per start."""

    name = "primer-paper"
    batch = 1 << 14

    def _launch(self, problem, alpha, beta, first, count, out, comps):
        k, T = problem.k, PP_THREADS
        pa = -(-PP_C * k // T) * T
        smem = 4 * (2 * (T + 2) + 4 * k + T) + pa + pa + T
        kernel = device.function(KERNEL_FILE, KERNEL, (KERNEL,), DEFINES)
        device.allow_shared_memory(kernel, smem)
        kernel((count,), (T,), (alpha, np.int32(problem.m), beta, np.int32(problem.n), np.int32(k),
                                np.int32(first), out, comps), shared_mem=smem)
