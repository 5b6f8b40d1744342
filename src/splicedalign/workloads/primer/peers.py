"""The ``edlib`` peer (optional extra): edlib's infix (HW) distance answers "is α[r..e] within
k - 1 of some substring of β?"; the two-pointer walk over (r, e) uses that answers' ends never
decrease (e(r + 1) >= e(r)) and that a substring shorter than k always is within k - 1."""

from __future__ import annotations

import time

import numpy as np

from splicedalign.core.registry import import_peer
from splicedalign.workloads.primer.records import PrimerProblem, PrimerResult, result_from_prefixes

# edlib compares characters: ambiguity letters of α and of β get distinct characters (never equal)
_ALPHA = np.frombuffer(b"ACGTN", dtype=np.uint8)
_BETA = np.frombuffer(b"ACGTXX", dtype=np.uint8)


class EdlibSolver:
    name = "edlib"

    def __init__(self) -> None:
        self._edlib = import_peer("edlib")

    def solve(self, problem: PrimerProblem) -> PrimerResult:
        t0 = time.perf_counter()
        align = self._edlib.align
        alpha = _ALPHA[problem.alpha_codes].tobytes().decode()
        beta = _BETA[problem.beta_codes].tobytes().decode()
        m, t = problem.m, problem.k - 1
        prefixes, tests = [], 0
        e = 0  # α[r..e] (1-based) is the candidate; within k - 1 while its length < k
        for r in range(1, problem.last_start + 1):
            e = max(e, r + t - 1)
            while e < m:
                tests += 1
                if align(alpha[r - 1:e + 1], beta, mode="HW", task="distance", k=t)["editDistance"] < 0:
                    break
                e += 1
            prefixes.append(e - r + 1)  # c(r): α[r..e] is the longest prefix within k - 1
            if e >= m:
                break
        extra = {"tests": tests}
        result = result_from_prefixes(problem, np.array(prefixes), 0, self.name, time.perf_counter() - t0)
        result.extra.update(extra)
        return result
