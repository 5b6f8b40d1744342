"""The compiled CPU solvers: ``sequential`` (the baseline of every speedup) and ``multicore``."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed

import numba
import numpy as np

from splicedalign.core.logs import Progress
from splicedalign.workloads.spliced.base import LastRowSolver
from splicedalign.workloads.spliced.cpu_kernels import (
    COUNTER_STRIDE,
    lane_scores,
    sequential_last_rows,
    start_row,
    sweep_case_strips,
)
from splicedalign.workloads.spliced.records import Result, Scoring, TestCase

CHUNK_CELLS = 200_000_000  # about 0.2 s of work between progress checks
# Below this a case runs on one thread and gets its parallelism across a batch (solve_many).
# One parallel region per chunk costs microseconds on idle cores, but a strip that loses its
# core to another process holds up every strip to its right (measured on a shared 2-core
# machine; docs/pipeline.md).
MIN_CASE_CELLS = 100_000_000
# Narrowest strip: on one core, strips of 74 columns ran as fast as whole rows, 37 slower.
MIN_STRIP_WIDTH = 64
# Rows per pipeline step: strip s starts a tile once strip s-1 has finished its rows, so the
# pipeline fills in strips x TILE_ROWS rows; a tile of 148 columns is a few microseconds.
TILE_ROWS = 32


def chunks(case: TestCase, chunk_cells: int = CHUNK_CELLS) -> list[tuple[int, int, int]]:
    """(k0, k1, cells done after exon k1-1): runs of exons of about ``chunk_cells`` cells (at
    least one exon each), so progress reports keep flowing on long cases."""
    cells = case.cells
    if cells <= chunk_cells:  # one chunk (most cases): no arrays made
        return [(0, case.K, cells)]
    done = np.cumsum((case.last_sorted - case.first_sorted + 1) * case.n)
    out, k0 = [], 0
    while k0 < case.K:
        k1 = int(np.searchsorted(done, done[k0] + chunk_cells, side="right"))
        k1 = min(max(k1, k0 + 1), case.K)
        out.append((k0, k1, int(done[k1 - 1])))
        k0 = k1
    return out


class SequentialSolver(LastRowSolver):
    """One core, exons in order, O(n) predecessor fold, only last rows kept."""

    name = "sequential"

    def last_rows(self, case: TestCase, scoring: Scoring, dtype: type) -> np.ndarray:
        rows = np.empty((case.K, case.n + 1), dtype=dtype)
        scores = lane_scores(case.target_codes, scoring, dtype)
        R = np.empty(case.n + 1, dtype=dtype)
        start_row(case.n, dtype(scoring.lead), R)
        by_last = case.by_last
        progress = Progress(f"{case.name} [{self.name}]", case.cells)
        p = 0
        for k0, k1, done in chunks(case):
            p = sequential_last_rows(case.base_codes, scores, case.first_sorted, case.last_sorted,
                                     by_last, rows, R, p, k0, k1)
            progress.update(done, f"exon {k1}/{case.K}")
        return rows


def strip_pipeline_last_rows(case: TestCase, scoring: Scoring, dtype: type, width: int, tile_rows: int,
                             label: str = "", chunk_cells: int = CHUNK_CELLS) -> np.ndarray:
    """As SequentialSolver.last_rows, with the columns cut into strips of ``width`` and the
    strips run as a pipeline on the threads (cpu_kernels.sweep_case_strips), one parallel
    region per chunk of exons; each strip's fold (F[s], p[s]) carries over between chunks."""
    n = case.n
    strips = -(-n // width)
    R = np.empty(n + 1, dtype=dtype)
    start_row(n, dtype(scoring.lead), R)
    # strip s's fold (columns lo-1..hi) in F[s]; rows padded to whole cache lines (no sharing)
    F = np.empty((strips, -(-(width + 1) // 32) * 32), dtype=dtype)
    for s in range(strips):
        part = R[s * width: (s + 1) * width + 1]
        F[s, :len(part)] = part
    p = np.zeros(strips, dtype=np.int64)
    parts = chunks(case, chunk_cells)
    heights = case.last_sorted - case.first_sorted + 1
    L = np.empty((strips + 1, max(int(heights[k0:k1].sum()) for k0, k1, _ in parts)), dtype=dtype)
    H = np.empty((strips, n + 1), dtype=dtype)
    rows = np.empty((case.K, n + 1), dtype=dtype)
    scores = lane_scores(case.target_codes, scoring, dtype)
    progress = Progress(label or case.name, case.cells)
    for k0, k1, done in parts:
        sweep_case_strips(case.base_codes, scores, case.first_sorted, case.last_sorted, case.by_last,
                          rows, k0, k1, width, tile_rows, F, p, H, L,
                          np.zeros(strips * COUNTER_STRIDE, dtype=np.int64))
        progress.update(done, f"exon {k1}/{case.K}")
    return rows


class MulticoreSolver(LastRowSolver):
    """All cores (numba's thread count): a batch runs its cases in parallel, each on one
    core, largest first; a single case of at least ``min_case_cells`` cells cuts the target's
    columns into one strip per thread and runs the strips as a pipeline over all its exons'
    rows (cpu_kernels.sweep_case_strips), the GPU wavefront's scheme on CPU threads."""

    name = "multicore"

    def __init__(self, min_case_cells: int = MIN_CASE_CELLS, min_strip_width: int = MIN_STRIP_WIDTH,
                 tile_rows: int = TILE_ROWS) -> None:
        self.min_case_cells, self.min_strip_width, self.tile_rows = min_case_cells, min_strip_width, tile_rows
        self._serial = SequentialSolver()

    def strip_width(self, case: TestCase, threads: int) -> int:
        """Columns per strip: the columns shared by the threads, at least min_strip_width."""
        return max(self.min_strip_width, -(-case.n // threads))

    def last_rows(self, case: TestCase, scoring: Scoring, dtype: type) -> np.ndarray:
        width = self.strip_width(case, numba.get_num_threads())
        if case.cells < self.min_case_cells or width >= case.n:
            return self._serial.last_rows(case, scoring, dtype)
        return strip_pipeline_last_rows(case, scoring, dtype, width, self.tile_rows, f"{case.name} [{self.name}]")

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
        progress = Progress(f"align [{self.name}]", sum(c.cells for c in cases), len(cases))
        results: list[Result | None] = [None] * len(cases)
        cells = 0
        with ThreadPoolExecutor(workers) as pool:
            futures = {pool.submit(self._one_core, cases[i], scoring, traceback): i for i in order}
            for k, future in enumerate(as_completed(futures), 1):
                i = futures[future]
                results[i] = future.result()
                cells += cases[i].cells
                progress.update(cells, done_items=k)
        progress.finish()
        return results  # type: ignore[return-value]
