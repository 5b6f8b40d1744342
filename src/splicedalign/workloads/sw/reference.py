"""SPEC-workloads C written out with NumPy, for tests: one row of H at a time.

Row i: ``H'[j] = max(0, H[i-1][j-1] + sbt(q_i, d_j), H[i-1][j] - g)`` for all j at once, then
the horizontal gaps ``H[i][j] = max_k (H'[j-k] - k g)`` as a running maximum of
``H'[j] + j g`` minus ``j g`` (the paper's formulas (a)-(c)); the score is ``max H``.
"""

from __future__ import annotations

import numpy as np

from splicedalign.workloads.sw.records import Database, Query, Scoring


def sw_score(q: np.ndarray, d: np.ndarray, table: np.ndarray, gap: int) -> int:
    """Smith-Waterman score of code arrays ``q`` and ``d`` with a linear gap ``gap``."""
    n = d.size
    ramp = gap * np.arange(n + 1, dtype=np.int64)
    prev = np.zeros(n + 1, dtype=np.int64)  # H[i-1][0..n]
    best = 0
    for qi in q:
        h = np.zeros(n + 1, dtype=np.int64)
        h[1:] = np.maximum(np.maximum(prev[:-1] + table[qi, d], prev[1:] - gap), 0)
        h = np.maximum.accumulate(h + ramp) - ramp
        best = max(best, int(h.max()))
        prev = h
    return best


class ReferenceSolver:
    name = "reference"

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        table = scoring.table.astype(np.int64)
        return np.array([sw_score(query.codes, db.seq(k), table, scoring.gap) for k in range(len(db))],
                        dtype=np.int64)
