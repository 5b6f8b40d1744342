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
                                                        sweep_exon_strips, sweep_group)
from splicedalign.workloads.spliced.estimate import groups
from splicedalign.workloads.spliced.records import Result, Scoring, TestCase

CHUNK_CELLS = 200_000_000  # about 0.2 s of work between progress checks
# A parallel region costs a few microseconds on idle cores but waits for its slowest thread:
# with another process on a core it can cost milliseconds. From these sizes (about 0.4 ms of
# work per thread) it pays on the IL1RAPL1-shaped case; measurements in docs/pipeline.md.
MIN_PARALLEL_CELLS = 500_000
# A lone exon is cut into column strips (one per thread, at least MIN_STRIP_WIDTH columns)
# from STRIP_CELLS cells per strip (its wavefront opens ~5 parallel regions per strip).
STRIP_CELLS = 500_000
MIN_STRIP_WIDTH = 128
# Below this a case runs on one thread (measured on a shared 2-core machine: paper-shaped
# cases of 20-100 M cells ran at a median 0.7x of sequential with parallel regions, a 0.8 ms
# case took 1-7 ms). Smaller cases get their parallelism across a batch (solve_many).
MIN_CASE_CELLS = 100_000_000


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


def parallel_plan(case: TestCase, threads: int, min_cells: int = MIN_PARALLEL_CELLS,
                  strip_cells: int = STRIP_CELLS, min_case_cells: int = MIN_CASE_CELLS) -> list[tuple[int, int, int]]:
    """(a, b, strips) for the exon ranges that run in parallel, in order; the exons between
    them run one after another. strips 0: a group of two or more exons with at least
    ``min_cells`` cells, its exons on the threads; strips > 1: a lone exon with at least
    ``strip_cells`` cells per strip, its columns cut into that many strips. Nothing for a
    case under ``min_case_cells``."""
    out, a = [], 0
    if case.cells < min_case_cells:
        return out
    lengths = case.last_sorted - case.first_sorted + 1
    most_strips = min(threads, case.n // MIN_STRIP_WIDTH)
    for g in groups(case.first_sorted, case.last_sorted):
        b = a + len(g)
        cells = int(lengths[a:b].sum()) * case.n
        if b - a > 1 and cells >= min_cells:
            out.append((a, b, 0))
        elif b - a == 1 and most_strips > 1:
            strips = min(most_strips, cells // max(1, strip_cells))
            if strips > 1:
                out.append((a, b, strips))
        a = b
    return out


class MulticoreSolver(LastRowSolver):
    """All cores (numba's thread count): a batch runs its cases in parallel, each on one
    core, largest first; a single case sweeps the exons of each large group (SPEC §3) in
    parallel and cuts each large lone exon into column strips, the rest in order."""

    name = "multicore"

    def __init__(self, min_parallel_cells: int = MIN_PARALLEL_CELLS, strip_cells: int = STRIP_CELLS,
                 min_case_cells: int = MIN_CASE_CELLS) -> None:
        self.min_parallel_cells, self.strip_cells, self.min_case_cells = min_parallel_cells, strip_cells, min_case_cells
        self._serial = SequentialSolver()

    def last_rows(self, case: TestCase, scoring: Scoring, prof: np.ndarray) -> np.ndarray:
        rows = np.empty((case.K, case.n + 1), dtype=prof.dtype)
        gap = prof.dtype.type(scoring.gap)
        R = np.empty(case.n + 1, dtype=prof.dtype)
        start_row(case.n, gap, R)
        first, last = case.first_sorted, case.last_sorted
        args = (first, last, case.by_last)
        p, k = 0, 0
        for a, b, strips in parallel_plan(case, numba.get_num_threads(), self.min_parallel_cells,
                                          self.strip_cells, self.min_case_cells):
            p = sequential_last_rows(case.base_codes, prof, *args, gap, rows, R, p, k, a)
            p = group_entry_rows(*args, rows, R, p, a, b)
            if strips:
                height = int(last[a] - first[a] + 1)
                block = max(4, -(-height // (16 * strips)) * 4)  # ~4 row blocks per strip
                sweep_exon_strips(case.base_codes, prof, int(first[a]), int(last[a]), gap, rows[a],
                                  strips, block)
            else:
                sweep_group(case.base_codes, prof, first, last, gap, rows, a, b)
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
