"""The compiled CPU solvers: ``sequential`` (the baseline of every speedup) and ``multicore``."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import numba
import numpy as np

from splicedalign.core.logs import Progress
from splicedalign.workloads.spliced.base import LastRowSolver
from splicedalign.workloads.spliced.cpu_kernels import (group_entry_rows, sequential_last_rows, start_row,
                                                        sweep_group)
from splicedalign.workloads.spliced.estimate import groups
from splicedalign.workloads.spliced.records import Result, Scoring, TestCase

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


def parallel_groups(case: TestCase, min_cells: int = MIN_PARALLEL_CELLS) -> list[tuple[int, int]]:
    """(a, b) exon ranges of the groups worth a parallel region: two or more exons and at
    least ``min_cells`` cells; the other groups run one exon after another."""
    out, a = [], 0
    lengths = case.last_sorted - case.first_sorted + 1
    for g in groups(case.first_sorted, case.last_sorted):
        b = a + len(g)
        if b - a > 1 and int(lengths[a:b].sum()) * case.n >= min_cells:
            out.append((a, b))
        a = b
    return out


class MulticoreSolver(LastRowSolver):
    """All cores (numba's thread count): a batch runs its cases in parallel, each on one
    core, largest first; a single case sweeps the exons of each large group (SPEC §3) in
    parallel, the rest in order."""

    name = "multicore"

    def __init__(self, min_parallel_cells: int = MIN_PARALLEL_CELLS) -> None:
        self.min_parallel_cells = min_parallel_cells
        self._serial = SequentialSolver()

    def last_rows(self, case: TestCase, scoring: Scoring, prof: np.ndarray) -> np.ndarray:
        rows = np.empty((case.K, case.n + 1), dtype=prof.dtype)
        gap = prof.dtype.type(scoring.gap)
        R = np.empty(case.n + 1, dtype=prof.dtype)
        start_row(case.n, gap, R)
        args = (case.first_sorted, case.last_sorted, case.by_last)
        p, k = 0, 0
        for a, b in parallel_groups(case, self.min_parallel_cells):
            p = sequential_last_rows(case.base_codes, prof, *args, gap, rows, R, p, k, a)
            p = group_entry_rows(*args, rows, R, p, a, b)
            sweep_group(case.base_codes, prof, case.first_sorted, case.last_sorted, gap, rows, a, b)
            k = b
        sequential_last_rows(case.base_codes, prof, *args, gap, rows, R, p, k, case.K)
        return rows

    def _one_core(self, case: TestCase, scoring: Scoring, traceback: bool) -> Result:
        return dataclasses.replace(self._serial.solve(case, scoring, traceback), solver=self.name)

    def solve_many(
        self, cases: Sequence[TestCase], scoring: Scoring = Scoring(), traceback: bool = True
    ) -> list[Result]:
        """Cases are independent: one per thread (the kernels release the GIL), largest
        first so no core idles at the end behind a long case."""
        cases = list(cases)
        workers = min(numba.get_num_threads(), len(cases))
        if workers <= 1:
            return [self.solve(c, scoring, traceback) for c in cases]
        order = sorted(range(len(cases)), key=lambda i: -cases[i].cells)
        with ThreadPoolExecutor(workers) as pool:
            done = dict(zip(order, pool.map(lambda i: self._one_core(cases[i], scoring, traceback), order)))
        return [done[i] for i in range(len(cases))]
