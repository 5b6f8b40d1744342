"""The compiled CPU solvers: the paper's ``conventional`` and ``alternative`` methods (one core,
Opt 1 / Opt 2), ``sequential`` (ours, bit-parallel: the baseline of every speedup) and
``multicore`` (the bit-parallel sweep on every core, starts in chunks)."""

from __future__ import annotations

import time

import numba
import numpy as np

from splicedalign.core.logs import log
from splicedalign.workloads.primer import cpu_kernels as K
from splicedalign.workloads.primer.records import PrimerProblem, PrimerResult, result_from_prefixes

BATCH_CELLS = 300_000_000  # about n * 64 * starts: starts per call between progress reports


class StartProgress:
    """'starts done / total, rate' on the splicedalign logger, at most every ``interval`` s."""

    def __init__(self, what: str, total: int, interval: float = 5.0):
        self.what, self.total, self.interval = what, total, interval
        self.start = self.last = time.perf_counter()

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if now - self.last >= self.interval:
            self.last = now
            log.info("%s: %d / %d starts, %.1f starts/s", self.what, done, self.total,
                     done / (now - self.start))


class _Batched:
    """Starts in batches of about BATCH_CELLS (progress between batches), stopping at the
    first start that has no answer."""

    name = ""

    def run(self, problem: PrimerProblem, first: int, stop: int, out: np.ndarray,
            lower: int) -> tuple[int, int]:
        raise NotImplementedError

    def solve(self, problem: PrimerProblem) -> PrimerResult:
        t0 = time.perf_counter()
        total = problem.last_start
        out = np.full(total, -1, dtype=np.int64)
        batch = max(1, BATCH_CELLS // (problem.n * K.W))
        progress = StartProgress(f"primer [{self.name}]", total)
        comps, r0, lower = 0, 0, problem.k - 1
        while r0 < total:
            nxt, x = self.run(problem, r0, min(total, r0 + batch), out, lower)
            comps += x
            last_c = int(out[nxt - 1])
            if nxt + last_c > problem.m:
                break
            r0, lower = nxt, last_c - 1
            progress.update(r0)
        return result_from_prefixes(problem, out, comps, self.name, time.perf_counter() - t0)


class ConventionalSolver(_Batched):
    """Paper Fig. 2a with Opt 1: row after row over all of β until a row's minimum is >= k."""

    name = "conventional"

    def run(self, problem, first, stop, out, lower):
        return K.paper_prefixes(problem.alpha_codes, problem.beta_codes, problem.k, first, stop, out,
                                K.CONVENTIONAL)


class AlternativeSolver(_Batched):
    """Paper Fig. 2b with Opt 2: Landau-Vishkin diagonals, one column of L."""

    name = "alternative"

    def run(self, problem, first, stop, out, lower):
        return K.paper_prefixes(problem.alpha_codes, problem.beta_codes, problem.k, first, stop, out,
                                K.ALTERNATIVE)


class SequentialSolver(_Batched):
    """Ours, one core: a bit-parallel sweep of β per start, bounded by c(r + 1) >= c(r) - 1."""

    name = "sequential"

    def run(self, problem, first, stop, out, lower):
        return K.bitparallel_prefixes(problem.alpha_codes, problem.beta_codes, problem.k, first, stop,
                                      lower, out)


class MulticoreSolver(_Batched):
    """The sequential sweep on every thread: each batch (CHUNKS_PER_THREAD x threads times a
    sequential batch) is cut into CHUNKS_PER_THREAD chunks per thread, dealt round-robin."""

    name = "multicore"
    CHUNKS_PER_THREAD = 8

    def run(self, problem, first, stop, out, lower):
        threads = numba.get_num_threads()
        chunks = threads * self.CHUNKS_PER_THREAD
        stop = min(problem.last_start, first + (stop - first) * chunks)
        bounds = np.linspace(first, stop, min(chunks, stop - first) + 1).astype(np.int64)
        comps = np.zeros(bounds.size - 1, dtype=np.int64)
        K.bitparallel_prefixes_parallel(problem.alpha_codes, problem.beta_codes, problem.k, bounds, lower,
                                        out, comps, threads)
        # the first start that stopped ends the batch (-1 = after a chunk's own stop: not reached)
        starts = np.arange(first, stop)
        stopped = np.flatnonzero(starts + 1 + out[first:stop] > problem.m)
        return (int(starts[stopped[0]]) + 1 if stopped.size else int(stop)), int(comps.sum())
