"""The compiled CPU solvers: ``sequential`` (the baseline of every speedup) and ``multicore``."""

from __future__ import annotations

import numpy as np

from splicedalign.workloads.spliced.records import Scoring, TestCase
from splicedalign.workloads.spliced.estimate import groups
from splicedalign.workloads.spliced.base import LastRowSolver
from splicedalign.core.logs import Progress
from splicedalign.workloads.spliced.cpu_kernels import grouped_last_rows, sequential_last_rows, start_row

CHUNK_CELLS = 200_000_000  # about 0.2 s of work between progress checks
MIN_PARALLEL_CELLS = 2_000_000  # about 2 ms of work: below it a parallel region costs more than it saves


class SequentialSolver(LastRowSolver):
    """One core, exons in order, O(n) predecessor fold, only last rows kept."""

    name = "sequential"

    def last_rows(self, case: TestCase, scoring: Scoring, prof: np.ndarray) -> np.ndarray:
        rows = np.empty((case.K, case.n + 1), dtype=prof.dtype)
        gap = prof.dtype.type(scoring.gap)
        R = np.empty(case.n + 1, dtype=prof.dtype)
        start_row(case.n, gap, R)
        by_last = case.by_last
        # Chunks of about CHUNK_CELLS keep progress reports flowing on long cases.
        done = np.cumsum((case.last_sorted - case.first_sorted + 1) * case.n)
        progress = Progress(f"{case.name} [{self.name}]", case.cells)
        p, k0 = 0, 0
        while k0 < case.K:
            k1 = int(np.searchsorted(done, done[k0] + CHUNK_CELLS, side="right")) or k0 + 1
            k1 = min(max(k1, k0 + 1), case.K)
            p = sequential_last_rows(case.base_codes, prof, case.first_sorted, case.last_sorted,
                                     by_last, gap, rows, R, p, k0, k1)
            progress.update(int(done[k1 - 1]), f"exon {k1}/{case.K}")
            k0 = k1
        return rows


class MulticoreSolver(LastRowSolver):
    """The exons of each group (SPEC §3) on all cores (numba threads), groups in order."""

    name = "multicore"

    def last_rows(self, case: TestCase, scoring: Scoring, prof: np.ndarray) -> np.ndarray:
        sizes = [len(g) for g in groups(case.first_sorted, case.last_sorted)]
        group_start = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        rows = np.empty((case.K, case.n + 1), dtype=prof.dtype)
        grouped_last_rows(
            case.base_codes, prof, case.first_sorted, case.last_sorted, case.by_last,
            group_start, prof.dtype.type(scoring.gap), rows, MIN_PARALLEL_CELLS,
        )
        return rows
