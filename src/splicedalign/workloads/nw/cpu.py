"""CPU solvers: ``sequential`` (numba, one core) and ``multicore`` (numba, all cores).

Score: rows of the table in linear space (kernels.advance; multicore: a wavefront of blocks,
kernels.advance_parallel). Alignment: Hirschberg (traceback.hirschberg) over the same kernels.
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np

from splicedalign.core.logs import Progress
from splicedalign.workloads.nw.cpu_kernels import advance, advance_parallel
from splicedalign.workloads.nw.records import Costs, Pair, Result, cigar_string, ops_cost
from splicedalign.workloads.nw.backtrack import Advance, first_row, hirschberg, sequential_forward

PROGRESS_CELLS = 200_000_000  # rows are solved in chunks of about this many cells between reports
PARALLEL_MIN_CELLS = 4_000_000  # smaller (sub)problems are not worth a parallel wavefront
BLOCK_ROWS = 256


class SequentialSolver:
    name = "sequential"

    def forward(self, costs: Costs) -> Advance:
        return sequential_forward(costs)

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True) -> Result:
        t0 = time.perf_counter()
        forward = self.forward(costs)
        if traceback:
            ops = hirschberg(pair.a, pair.b, costs, forward)
            return Result(ops_cost(ops, costs), pair.cells, self.name,
                          time.perf_counter() - t0, cigar_string(ops))
        row = first_row(pair.m, costs)
        chunk = max(1, PROGRESS_CELLS // max(1, pair.m))
        progress = Progress(f"nw {pair.name} ({self.name})", pair.cells)
        for start in range(0, pair.n, chunk):
            forward(pair.a[start:start + chunk], pair.b, row, start)
            progress.update(min(pair.n, start + chunk) * pair.m)
        return Result(int(row[-1]), pair.cells, self.name, time.perf_counter() - t0)


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
