"""What every last-row solver shares: score type, timing, score, traceback, Result.

A solver subclass only says how it computes all exons' last rows (``last_rows``); scores,
``last_row_scores`` and the chain follow from those rows the same way for every solver.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from splicedalign.core import loading
from splicedalign.core.errors import InputError
from splicedalign.core.logs import Progress
from splicedalign.workloads.spliced import cpu_kernels as kernels
from splicedalign.workloads.spliced.backtrack import final_scores, trace_chain
from splicedalign.workloads.spliced.records import Result, Scoring, TestCase


def refuse_free_ends(scoring: Scoring, solver: str) -> None:
    """One line for a solver that computes global target ends only (solvers.GLOBAL_ENDS_ONLY)."""
    from splicedalign.workloads.spliced.solvers import GLOBAL_ENDS_ONLY

    if scoring.free_ends and solver in GLOBAL_ENDS_ONLY:
        raise InputError("--target-ends", f"free target ends are not implemented in solver {solver};"
                         " use sequential, multicore, accel1, accel2 or reference")


def make_result(case: TestCase, solver: str, finals: np.ndarray, seconds: float, chain, alignment,
                extra: dict) -> Result:
    """The Result of a case from its exons' final scores (``final_scores``) in (first, last) order."""
    by_input = np.empty(finals.shape, dtype=np.int64)
    by_input[case.order] = finals
    return Result(case=case.name, solver=solver, score=int(finals.max()), cells=case.cells,
                  seconds=seconds, chain=chain, alignment=alignment, last_row_scores=by_input,
                  extra=extra)


loading.watch_numba()  # the kernels below load on a process's first solve: not its time


class LastRowSolver:
    name = "abstract"

    def last_rows(self, case: TestCase, scoring: Scoring, dtype: type) -> np.ndarray:
        """S(last(k), ., k) for every exon k in (first, last) order, shape (K, n+1), in the
        score type ``dtype`` (cpu_kernels.score_dtype: np.int32 or np.int64)."""
        raise NotImplementedError

    def solve(self, case: TestCase, scoring: Scoring = Scoring(), traceback: bool = True) -> Result:
        """Seconds leave out kernel loading (a process's first solve: numba's cache, its lazy
        imports), kept in extra ``seconds_loading``: the solve's own time on every call."""
        dtype = kernels.score_dtype(case.m, case.n, scoring)
        l0, t0 = loading.seconds(), time.perf_counter()
        rows = self.last_rows(case, scoring, dtype)
        l1, t1 = loading.seconds(), time.perf_counter()
        finals = final_scores(rows, scoring)  # the scores, and where the traceback starts
        chain = alignment = None
        if traceback:
            chain, alignment = trace_chain(case, scoring, rows, finals)
        l2, t2 = loading.seconds(), time.perf_counter()
        return make_result(case, self.name, finals, t2 - t0 - (l2 - l0), chain, alignment,
                           {"seconds_score": t1 - t0 - (l1 - l0), "seconds_traceback": t2 - t1 - (l2 - l1),
                            "seconds_loading": l2 - l0})

    def solve_many(
        self, cases: Sequence[TestCase], scoring: Scoring = Scoring(), traceback: bool = True
    ) -> list[Result]:
        """One case after another, with progress (cases done, GCUPS, ETA) on long batches."""
        progress = Progress(f"align [{self.name}]", sum(c.cells for c in cases), len(cases))
        results, done = [], 0
        for c in cases:
            results.append(self.solve(c, scoring, traceback))
            done += c.cells
            progress.update(done, done_items=len(results))
        progress.finish()
        return results
