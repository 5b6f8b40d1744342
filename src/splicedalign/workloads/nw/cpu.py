"""CPU solvers: ``sequential`` (numba, one core: the DP, the paper's baseline) and ``multicore``
(numba, all cores, cost-adaptive: the wavefront algorithm when the costs allow it and the
score is small enough for it to beat the DP, else the DP over all cores).

DP score: rows of the tables in linear space (kernels.advance / advance_affine; multicore: a
wavefront of blocks, kernels.advance_parallel, for linear costs). DP alignment: the mode's
region (backtrack.region), then a global alignment of a against it: Hirschberg for linear
costs, checkpoint rows and per-block traceback for affine ones (backtrack.affine_align).
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from splicedalign.core.logs import Progress
from splicedalign.workloads.nw import wfa
from splicedalign.workloads.nw.backtrack import (
    Advance,
    Rows,
    affine_align,
    end_of,
    hirschberg,
    last_row,
    region,
    sequential_forward,
    serial_rows,
)
from splicedalign.workloads.nw.batches import total_cells
from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.cpu_kernels import advance, advance_affine, advance_parallel, advance_parallel_affine
from splicedalign.workloads.nw.records import Costs, Pair, Result, check_mode, ops_cost

PROGRESS_CELLS = 200_000_000  # rows are solved in chunks of about this many cells between reports
PARALLEL_MIN_CELLS = 4_000_000  # smaller (sub)problems are not worth a parallel wavefront
BLOCK_ROWS = 256
# The wavefront algorithm gives up (and the DP runs) once its work would have bought WFA_GIVE_UP
# of the DP's time. Diagonals visited worth one DP cell on one core (2-core Zen 5 machine, CPU
# time): a visit costs ~1.0 ns with linear costs and ~0.36 ns with affine ones (I, D and M count
# one each) against 3.1 / 5.0 ns a DP cell. A single pair's DP runs on all cores (its cells are
# divided by the threads); in a batch each pair has one core. Unrelated pairs take ~0.15 (linear)
# and ~3.8 (affine) visits a cell, so on up to two cores the WFA finishes them (30,368 affine:
# 1.3 s, where the two-core DP took several).
WFA_VISITS_PER_CELL = {False: 3.0, True: 12.0}  # keyed by Costs.affine
WFA_GIVE_UP = 0.7
WFA_MIN_WORK = 1 << 16


class SequentialSolver:
    name = "sequential"

    def forward(self, costs: Costs) -> Advance:
        """Linear costs: the advance of one row (Hirschberg's shape)."""
        return sequential_forward(costs)

    def rows(self, costs: Costs) -> Rows:
        if costs.affine:
            return serial_rows(costs)
        step = self.forward(costs)
        return lambda a, b, rows, i0: step(a, b, rows[0], i0)

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True, mode: str = "global") -> Result:
        return self.dp(pair, costs, traceback, check_mode(mode))

    def dp(self, pair: Pair, costs: Costs, traceback: bool, mode: str) -> Result:
        t0 = time.perf_counter()
        rows = self.rows(costs)
        if traceback:
            score, start, end = region(pair.a, pair.b, costs, mode, rows)
            part = np.ascontiguousarray(pair.b[start:end])
            if costs.affine:
                ops = affine_align(pair.a, part, costs, rows)
            else:
                ops = hirschberg(pair.a, part, costs, self.forward(costs))
            if ops_cost(ops, costs) != score:
                raise AssertionError(f"{self.name}: the alignment costs {ops_cost(ops, costs)}, the score {score}")
            return Result(score, pair.cells, self.name, time.perf_counter() - t0, cigar_string(ops), start, end)
        progress = Progress(f"nw {pair.name} ({self.name})", pair.cells)
        row = last_row(pair.a, pair.b, costs, mode, rows, lambda done: progress.update(done * pair.m),
                       max(1, PROGRESS_CELLS // max(1, pair.m)))
        end = end_of(row, mode)
        return Result(int(row[end]), pair.cells, self.name, time.perf_counter() - t0, end2=end)


class MulticoreSolver(SequentialSolver):
    name = "multicore"

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads or os.cpu_count() or 1

    def forward(self, costs: Costs) -> Advance:
        match, mismatch, indel = costs.as_tuple()
        strips = 4 * self.threads

        def run(a: np.ndarray, b: np.ndarray, row: np.ndarray, i0: int) -> None:
            numba.set_num_threads(min(self.threads, numba.config.NUMBA_NUM_THREADS))
            if a.size * b.size < PARALLEL_MIN_CELLS:
                advance(a, b, row, i0, match, mismatch, indel)
            else:
                advance_parallel(a, b, row, i0, match, mismatch, indel, BLOCK_ROWS, strips)

        return run

    def rows(self, costs: Costs) -> Rows:
        if not costs.affine:
            return super().rows(costs)
        match, mismatch, gap_open, extend = costs.as_affine()
        strips = 4 * self.threads

        def run(a: np.ndarray, b: np.ndarray, rows: list, i0: int) -> None:
            numba.set_num_threads(min(self.threads, numba.config.NUMBA_NUM_THREADS))
            if a.size * b.size < PARALLEL_MIN_CELLS:
                advance_affine(a, b, rows[0], rows[1], i0, match, mismatch, gap_open, extend)
            else:
                advance_parallel_affine(a, b, rows[0], rows[1], i0, match, mismatch, gap_open, extend, BLOCK_ROWS,
                                        strips)

        return run

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True, mode: str = "global") -> Result:
        return self.adaptive(pair, costs, traceback, check_mode(mode), self.dp, self.threads)

    def solve_many(self, pairs: Sequence[Pair], costs: Costs, traceback: bool = True,
                   mode: str = "global") -> list[Result]:
        """A batch: one pair per core at a time (each by WFA or the one-core DP), in input order."""
        check_mode(mode)
        one_core = SequentialSolver()
        progress = Progress(f"nw {len(pairs)} pairs ({self.name})", total_cells(pairs))
        done = [0, 0]
        lock = threading.Lock()

        def one(pair: Pair) -> Result:
            result = self.adaptive(pair, costs, traceback, mode, one_core.dp, 1)
            with lock:
                done[0] += 1
                done[1] += pair.cells
                progress.update(done[1], f"{done[0]}/{len(pairs)} pairs")
            return dataclasses.replace(result, solver=self.name)

        with ThreadPoolExecutor(max_workers=self.threads) as pool:
            return list(pool.map(one, pairs))

    def adaptive(self, pair: Pair, costs: Costs, traceback: bool, mode: str,
                 dp: Callable[[Pair, Costs, bool, str], Result], dp_threads: int) -> Result:
        """WFA when it applies and finishes within WFA_GIVE_UP of the time of ``dp`` (on
        ``dp_threads``), else ``dp``."""
        if wfa.applicable(costs):
            t0 = time.perf_counter()
            cells = WFA_GIVE_UP * WFA_VISITS_PER_CELL[costs.affine] * pair.cells / max(1, dp_threads)
            cap = max(WFA_MIN_WORK, int(cells))
            answer = wfa.wfa_align(pair.a, pair.b, costs, mode, traceback, cap)
            if answer is not None:
                cigar = cigar_string(answer.ops) if answer.ops is not None else None
                start = answer.start2 if traceback else 0
                return Result(answer.score, pair.cells, self.name, time.perf_counter() - t0, cigar, start,
                              answer.end2, algorithm="wfa")
        return dp(pair, costs, traceback, mode)
