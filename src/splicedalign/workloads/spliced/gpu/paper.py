"""``accel1`` and ``accel2``: the paper's two GPU accelerators (section VI; thesis Fig. 6.2, 6.6).

Kept as the paper describes them, not tuned beyond it: phase 1 folds *every* preceding exon's
last row (O(K*n) per exon), rows live in shared memory as three skewed anti-diagonals, inputs
travel through pinned host memory and only last rows live in global memory. Free target ends
cost nothing in this design: the chain-start term of phase 1 is -lead*j (Scoring.lead) and the
host takes each exon's final score and the traceback from the last rows it receives anyway.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.gpu import device
from splicedalign.workloads.spliced.base import LastRowSolver
from splicedalign.workloads.spliced.estimate import groups
from splicedalign.workloads.spliced.records import Scoring, TestCase

KERNEL_FILE = Path(__file__).with_name("paper.cu")
NAMES = ("accel_exons<int>", "accel_exons<long long>")
MAX_THREADS = 1024


def smem_bytes(n: int, strip: int, itemsize: int) -> int:
    """Shared memory of one block: the entry/last row and three anti-diagonals."""
    return (n + 1 + 3 * (strip + 1)) * itemsize


def strip_rows(n: int, itemsize: int, smem_bytes: int) -> int:
    """Most exon rows a block sweeps at once (tiling of long exons)."""
    strip = (smem_bytes // itemsize - (n + 1)) // 3 - 1
    if strip < 1:
        raise ValueError(f"target of {n} letters leaves no shared memory for the anti-diagonals")
    return strip


def block_threads(rows: int) -> int:
    """One thread per exon row (plus the entry-row slot), in whole warps, at most 1024."""
    return min(MAX_THREADS, (rows + 1 + 31) // 32 * 32)


class _PaperAccelerator(LastRowSolver):
    def __init__(self, poison: bool = False) -> None:
        self.poison = poison  # fill the last rows with POISON first (checks that all is written)

    def launches(self, case: TestCase) -> list[list[int]]:
        raise NotImplementedError

    def last_rows(self, case: TestCase, scoring: Scoring, dtype: type) -> np.ndarray:
        cp = device.cupy()
        info = device.device_info()
        ctype = "int" if dtype == np.int32 else "long long"
        kernel = device.function(KERNEL_FILE, f"accel_exons<{ctype}>", NAMES)
        itemsize = np.dtype(dtype).itemsize
        try:
            strip = strip_rows(case.n, itemsize, info["smem_optin"])
        except ValueError as exc:
            raise SolverUnavailable(f"{self.name}: {exc}") from None
        host = {}
        for name, arr in (("first", case.first_sorted.astype(np.int32)),
                          ("last", case.last_sorted.astype(np.int32)),
                          ("base", case.base_codes), ("target", case.target_codes)):
            pinned = device.empty_pinned(arr.shape, arr.dtype)
            pinned[...] = arr
            host[name] = pinned
        d = {k: cp.asarray(v) for k, v in host.items()}
        rows = cp.empty((case.K, case.n + 1), dtype=dtype)
        if self.poison:
            rows.fill(device.POISON)
        lengths = case.last_sorted - case.first_sorted + 1
        for exons in self.launches(case):
            k0 = exons[0]
            rows_max = int(min(strip, lengths[exons].max()))
            smem = smem_bytes(case.n, rows_max, itemsize)
            device.allow_shared_memory(kernel, smem)
            kernel((len(exons),), (block_threads(rows_max),),
                   (np.int32(k0), d["first"], d["last"], d["base"], d["target"], np.int32(case.n),
                    rows, np.int32(rows_max), np.int32(scoring.match), np.int32(scoring.mismatch),
                    np.int32(scoring.gap), np.int32(scoring.lead)),
                   shared_mem=smem)
        device.check(cp)
        return cp.asnumpy(rows)


class Accel1Solver(_PaperAccelerator):
    """Intra-exon parallelism only: one launch of one block per exon, exons in order."""

    name = "accel1"

    def launches(self, case: TestCase) -> list[list[int]]:
        return [[k] for k in range(case.K)]


class Accel2Solver(_PaperAccelerator):
    """Intra- and inter-exon: one launch per group (SPEC section 3), one block per exon.

    Launches are asynchronous, so the host sets up the next group while the GPU computes.
    """

    name = "accel2"

    def launches(self, case: TestCase) -> list[list[int]]:
        return groups(case.first_sorted, case.last_sorted)
