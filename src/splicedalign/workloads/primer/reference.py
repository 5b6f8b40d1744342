"""``reference``: the conventional method with Opt 1 (SPEC-workloads A) in plain NumPy, one DP
row at a time; obviously correct and slow, for tests and small cases."""

from __future__ import annotations

import time

import numpy as np

from splicedalign.workloads.primer.records import PrimerProblem, PrimerResult, result_from_prefixes


def longest_prefix(alpha: np.ndarray, beta: np.ndarray, k: int) -> tuple[int, int]:
    """(c, comparisons): c = the last row of D(alpha, beta) whose minimum is <= k - 1, with a free
    start in beta (D[0][j] = 0, D[i][0] = i), stopping at the first row whose minimum is >= k
    (Opt 1). Each computed cell compares one pair of letters."""
    n = beta.size
    j = np.arange(n + 1, dtype=np.int64)
    prev = np.zeros(n + 1, dtype=np.int64)
    for i in range(1, alpha.size + 1):
        mismatch = (alpha[i - 1] != beta).astype(np.int64)
        best = np.empty(n + 1, dtype=np.int64)
        best[0] = i
        best[1:] = np.minimum(prev[:-1] + mismatch, prev[1:] + 1)
        # D[i][j] = min_{j' <= j} (best[j'] + j - j'): the horizontal +1 chain as a prefix minimum
        row = np.minimum.accumulate(best - j) + j
        if row.min() >= k:
            return i - 1, i * n
        prev = row
    return alpha.size, alpha.size * n


class ReferenceSolver:
    name = "reference"

    def solve(self, problem: PrimerProblem) -> PrimerResult:
        t0 = time.perf_counter()
        alpha, beta, k = problem.alpha_codes, problem.beta_codes, problem.k
        prefixes, comparisons = [], 0
        for r in range(1, problem.last_start + 1):
            c, comps = longest_prefix(alpha[r - 1:], beta, k)
            prefixes.append(c)
            comparisons += comps
            if r + c > problem.m:
                break
        return result_from_prefixes(problem, np.array(prefixes), comparisons, self.name,
                                    time.perf_counter() - t0)
