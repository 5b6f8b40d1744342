"""``reference``: SPEC-workloads section B written out with NumPy, the whole table in memory.

Row by row: the diagonal and vertical moves of a row are vector operations; the horizontal
move is the prefix minimum ``D[i][j] = min_k (T[k] + indel * (j - k))`` of the row's other
candidates ``T``, i.e. ``minimum.accumulate(T - indel * k) + indel * j``. The traceback walks the
table from the corner, preferring the diagonal, then a gap in b ('D'), then a gap in a ('I').
For tests and small inputs (memory: (n+1)(m+1) int64).
"""

from __future__ import annotations

import time

import numpy as np

from splicedalign.workloads.nw.records import (OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Costs, Pair,
                                               Result, cigar_string)

MAX_CELLS = 50_000_000  # beyond this the full table is too big to be a sensible reference


def cost_table(a: np.ndarray, b: np.ndarray, costs: Costs) -> np.ndarray:
    """The full (n+1) x (m+1) cost table D (int64)."""
    match, mismatch, indel = costs.as_tuple()
    n, m = a.size, b.size
    table = np.empty((n + 1, m + 1), dtype=np.int64)
    steps = indel * np.arange(m + 1, dtype=np.int64)
    table[0] = steps
    for i in range(1, n + 1):
        prev = table[i - 1]
        t = np.empty(m + 1, dtype=np.int64)
        t[0] = indel * i
        t[1:] = np.minimum(prev[:-1] + np.where(b == a[i - 1], match, mismatch), prev[1:] + indel)
        table[i] = np.minimum.accumulate(t - steps) + steps
    return table


def trace_table(table: np.ndarray, a: np.ndarray, b: np.ndarray, costs: Costs) -> np.ndarray:
    """Operation codes of one optimal alignment, read off a full cost table."""
    match, mismatch, indel = costs.as_tuple()
    i, j = a.size, b.size
    ops: list[int] = []
    while i > 0 or j > 0:
        here = table[i, j]
        if i > 0 and j > 0:
            same = a[i - 1] == b[j - 1]
            if here == table[i - 1, j - 1] + (match if same else mismatch):
                ops.append(OP_MATCH if same else OP_MISMATCH)
                i, j = i - 1, j - 1
                continue
        if i > 0 and here == table[i - 1, j] + indel:
            ops.append(OP_DEL)
            i -= 1
        else:
            ops.append(OP_INS)
            j -= 1
    return np.array(ops[::-1], dtype=np.int8)


class ReferenceSolver:
    name = "reference"

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True) -> Result:
        t0 = time.perf_counter()
        table = cost_table(pair.a, pair.b, costs)
        cigar = cigar_string(trace_table(table, pair.a, pair.b, costs)) if traceback else None
        return Result(int(table[-1, -1]), pair.cells, self.name, time.perf_counter() - t0, cigar)
