"""What every last-row solver shares: profile set-up, timing, score, traceback, Result.

A solver subclass only says how it computes all exons' last rows (``last_rows``); scores,
``last_row_scores`` and the chain follow from those rows the same way for every solver.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from splicedalign.workloads.spliced.records import Result, Scoring, TestCase
from splicedalign.workloads.spliced.cpu_kernels import profile, score_dtype
from splicedalign.workloads.spliced.backtrack import trace_chain


def make_result(case: TestCase, solver: str, finals: np.ndarray, seconds: float, chain, alignment,
                extra: dict) -> Result:
    """The Result of a case from its exons' final scores S(last(k), n, k) in (first, last) order."""
    by_input = np.empty(finals.shape, dtype=np.int64)
    by_input[case.order] = finals
    return Result(case=case.name, solver=solver, score=int(finals.max()), cells=case.cells,
                  seconds=seconds, chain=chain, alignment=alignment, last_row_scores=by_input,
                  extra=extra)


class LastRowSolver:
    name = "abstract"

    def last_rows(self, case: TestCase, scoring: Scoring, prof: np.ndarray) -> np.ndarray:
        """S(last(k), ., k) for every exon k in (first, last) order, shape (K, n+1), in the
        score type of ``prof`` (the match profile of kernels_cpu.profile)."""
        raise NotImplementedError

    def solve(self, case: TestCase, scoring: Scoring = Scoring(), traceback: bool = True) -> Result:
        dtype = score_dtype(case.m, case.n, scoring)
        t0 = time.perf_counter()
        prof = profile(case.target_codes, scoring, dtype)
        rows = self.last_rows(case, scoring, prof)
        t1 = time.perf_counter()
        chain = alignment = None
        if traceback:
            chain, alignment = trace_chain(case, scoring, rows, prof)
        t2 = time.perf_counter()
        return make_result(case, self.name, rows[:, case.n], t2 - t0, chain, alignment,
                           {"seconds_score": t1 - t0, "seconds_traceback": t2 - t1})

    def solve_many(
        self, cases: Sequence[TestCase], scoring: Scoring = Scoring(), traceback: bool = True
    ) -> list[Result]:
        return [self.solve(c, scoring, traceback) for c in cases]
