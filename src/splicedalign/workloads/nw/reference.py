"""``reference``: SPEC-workloads sections B and B2 written out with NumPy, the whole tables in memory.

Gotoh's three tables row by row (records' docstring): the diagonal and vertical moves of a row
are vector operations; the horizontal gap state is the prefix minimum
``I[i][j] = min_{k<j} (T[k] + o + e * (j - k))`` of ``T = min(M, D)``, i.e.
``o + e*j + minimum.accumulate(T - e*k)`` shifted by one column. Row 0 is ``H[0][j] = gap(j)``
(global, prefix) or 0 (infix: leading letters of b free); column 0 is ``gap(i)`` in every mode.
Infix mode's gap start (``gap_start``: a start on row 0 may lie inside a gap of a's letters) sets
row 0 of D to 0 as well, so a leading D run costs e a letter (column 0: ``e * i``).
The score is ``H[n][m]`` (global) or ``min_j H[n][j]`` (prefix, infix; the first such j ends
the alignment). The traceback walks the tables from there, preferring the diagonal, then a gap
in b ('D'), then a gap in a ('I'). For tests and small inputs (memory: 3 (n+1)(m+1) int64).
"""

from __future__ import annotations

import time

import numpy as np

from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Costs, Pair, Result, check_mode

INF = np.int64(1) << 60


def first_row_costs(m: int, costs: Costs, mode: str) -> np.ndarray:
    """H[0][0..m]: gap(j) (global, prefix) or 0 (infix)."""
    if mode == "infix":
        return np.zeros(m + 1, dtype=np.int64)
    row = costs.gap_open + costs.indel * np.arange(m + 1, dtype=np.int64)
    row[0] = 0
    return row


def gotoh_tables(a: np.ndarray, b: np.ndarray, costs: Costs, mode: str = "global", gap_start: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The full tables (H, D, I), each (n+1) x (m+1) int64 (INF where a state cannot be)."""
    check_mode(mode, gap_start)
    match, mismatch, o, e = costs.as_affine()
    n, m = a.size, b.size
    h = np.empty((n + 1, m + 1), dtype=np.int64)
    d = np.full((n + 1, m + 1), INF, dtype=np.int64)
    ins = np.full((n + 1, m + 1), INF, dtype=np.int64)
    h[0] = first_row_costs(m, costs, mode)
    if mode != "infix":
        ins[0, 1:] = h[0, 1:]
    if gap_start:
        d[0] = 0
    steps = e * np.arange(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        d[i] = np.minimum(h[i - 1] + o + e, d[i - 1] + e)  # (column 0: gap(i), or e * i from the gap start)
        t = np.empty(m + 1, dtype=np.int64)
        t[0] = d[i, 0]
        t[1:] = np.minimum(h[i - 1, :-1] + np.where(b == a[i - 1], match, mismatch), d[i, 1:])
        ins[i, 1:] = o + steps[1:] + np.minimum.accumulate(t - steps)[:-1]
        h[i] = np.minimum(t, ins[i])
    return h, d, ins


def cost_table(a: np.ndarray, b: np.ndarray, costs: Costs, mode: str = "global") -> np.ndarray:
    """The full (n+1) x (m+1) table H (the least cost of each cell, in any state)."""
    return gotoh_tables(a, b, costs, mode)[0]


def end_column(h: np.ndarray, mode: str) -> int:
    """Where the alignment ends in b: m (global) or the first column of the least last-row cost."""
    return h.shape[1] - 1 if mode == "global" else int(np.argmin(h[-1]))


def trace_tables(h: np.ndarray, d: np.ndarray, ins: np.ndarray, a: np.ndarray, b: np.ndarray, costs: Costs,
                 mode: str, j_end: int) -> tuple[np.ndarray, int]:
    """(operation codes of one optimal alignment ending at (n, j_end), the column it starts at). A D
    run extended back to row 0 starts there in D (the gap start's tables alone have D[0] finite)."""
    match, mismatch, o, e = costs.as_affine()
    i, j = a.size, j_end
    state = "H"
    ops: list[int] = []
    while i > 0:
        if state == "H":
            if j == 0:
                ops.extend([OP_DEL] * i)
                i = 0
                break
            same = a[i - 1] == b[j - 1]
            if h[i, j] == h[i - 1, j - 1] + (match if same else mismatch):
                ops.append(OP_MATCH if same else OP_MISMATCH)
                i, j = i - 1, j - 1
            elif h[i, j] == d[i, j]:
                state = "D"
            else:
                state = "I"
        elif state == "D":
            ops.append(OP_DEL)
            if d[i, j] != d[i - 1, j] + e:
                state = "H"
            i -= 1
        else:
            ops.append(OP_INS)
            if not (j > 1 and ins[i, j] == ins[i, j - 1] + e):
                state = "H"
            j -= 1
    if mode != "infix":  # row 0: the leading letters of b are a gap unless free
        ops.extend([OP_INS] * j)
        j = 0
    return np.array(ops[::-1], dtype=np.int8), j


class ReferenceSolver:
    name = "reference"

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True, mode: str = "global") -> Result:
        check_mode(mode)
        t0 = time.perf_counter()
        h, d, ins = gotoh_tables(pair.a, pair.b, costs, mode)
        j_end = end_column(h, mode)
        score = int(h[-1, j_end])
        if not traceback:
            return Result(score, pair.cells, self.name, time.perf_counter() - t0, end2=j_end)
        ops, j_start = trace_tables(h, d, ins, pair.a, pair.b, costs, mode, j_end)
        return Result(score, pair.cells, self.name, time.perf_counter() - t0, cigar_string(ops), j_start, j_end)
