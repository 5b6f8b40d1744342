"""SPEC-workloads C/C2 written out with NumPy, for tests: one row of H at a time (Gotoh).

Row i: the vertical gaps ``F[j] = max(H[i-1][j] - o - e, F[i-1][j] - e)``, then
``H'[j] = max(0, H[i-1][j-1] + sbt(q_i, d_j), F[j])`` for all j at once, then the horizontal
gaps ``H[i][j] = max(H'[j], max_{k<j} H'[k] - o - (j-k) e)`` as a running maximum of
``H'[k] + k e`` minus ``o + j e`` (the paper's formulas (a)-(c), with the open cost ``o``; a gap
need not start from an E-cell since o >= 0). The score is ``max H``. A linear gap is o = 0.
"""

from __future__ import annotations

import numpy as np

from splicedalign.workloads.sw.records import Database, Query, Scoring

NEG = -(1 << 40)


def sw_score(q: np.ndarray, d: np.ndarray, table: np.ndarray, gap_open: int, gap_extend: int) -> int:
    """Smith-Waterman score of code arrays ``q`` and ``d``; a gap of length L costs o + L e."""
    n = d.size
    o, e = int(gap_open), int(gap_extend)
    ramp = e * np.arange(n + 1, dtype=np.int64)
    prev = np.zeros(n + 1, dtype=np.int64)  # H[i-1][0..n]
    f = np.full(n + 1, NEG, dtype=np.int64)
    best = 0
    for qi in q:
        f = np.maximum(prev - o - e, f - e)
        hp = np.zeros(n + 1, dtype=np.int64)
        hp[1:] = np.maximum(np.maximum(prev[:-1] + table[qi, d], f[1:]), 0)
        run = np.maximum.accumulate(hp + ramp)
        h = hp.copy()
        h[1:] = np.maximum(hp[1:], run[:-1] - o - ramp[1:])
        best = max(best, int(h.max()))
        prev = h
    return best


class ReferenceSolver:
    name = "reference"

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        table = scoring.table.astype(np.int64)
        return np.array([sw_score(query.codes, db.seq(k), table, scoring.gap_open, scoring.gap_extend)
                         for k in range(len(db))], dtype=np.int64)
