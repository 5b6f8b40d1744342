"""The reference solver: SPEC §2 written out literally in Python, for tests.

Full matrices, the predecessor maximum taken over every earlier exon (no running-max fold),
character comparisons instead of codes. Slow on purpose: its only job is to be obviously right.
"""

from __future__ import annotations

import numpy as np

from splicedalign.workloads.spliced.base import LastRowSolver
from splicedalign.workloads.spliced.records import Scoring, TestCase

_ACGT = {"A": "A", "C": "C", "G": "G", "T": "T", "U": "T"}


def w(a: str, b: str, match: int, mismatch: int) -> int:
    """Case-insensitive; anything but A/C/G/T(U) never matches."""
    x, y = _ACGT.get(a.upper()), _ACGT.get(b.upper())
    return match if x is not None and x == y else mismatch


class ReferenceSolver(LastRowSolver):
    name = "reference"

    def last_rows(self, case: TestCase, scoring: Scoring, dtype: type) -> np.ndarray:
        # Scores come from w() and the letters.
        s, t, n = case.base, case.target, case.n
        match, mismatch, gap, lead = scoring.match, scoring.mismatch, scoring.gap, scoring.lead
        K = case.K
        rows = np.empty((K, n + 1), dtype=np.int64)
        for k in range(K):
            fk, lk = int(case.first_sorted[k]), int(case.last_sorted[k])
            P = [-lead * j for j in range(n + 1)]  # the chain-start term
            for l in range(K):
                if case.last_sorted[l] < fk:
                    P = [max(P[j], int(rows[l, j])) for j in range(n + 1)]
            S = P
            for i in range(fk, lk + 1):
                new = [S[0] - gap] + [0] * n
                for j in range(1, n + 1):
                    new[j] = max(
                        S[j - 1] + w(s[i - 1], t[j - 1], match, mismatch),
                        S[j] - gap,
                        new[j - 1] - gap,
                    )
                S = new
            rows[k] = S
        return rows.astype(dtype)
