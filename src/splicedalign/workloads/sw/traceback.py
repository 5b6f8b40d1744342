"""One optimal local alignment per reported hit (SPEC-workloads C2), on the CPU: Gotoh's
recurrence over the whole pair with a direction byte per cell, then a walk back from the first
cell (row-major) holding the maximum. Bits of a cell's byte: 0-1 where H came from (0: start,
1: diagonal, 2: E, 3: F; ties prefer the diagonal, then E, then F), 2: E extended a gap, 3: F
extended a gap. Only the few reported hits take this path (m x n bytes each), several at once
on threads (the kernels release the GIL).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numba
import numpy as np

from splicedalign.workloads.sw.records import Alignment, Scoring

OPS = "=XDI"  # op codes 0..3 of the walk


@numba.njit(cache=True, nogil=True)
def _trace(q, d, table, gap_open, gap_extend):
    """(score, i0, i1, j0, j1, ops reversed): rows i0..i1-1 of q and columns j0..j1-1 of d
    (0-based, end exclusive) align with the ops (0 '=', 1 'X', 2 'D', 3 'I'), last op first."""
    m, n = q.size, d.size
    e = np.int64(gap_extend)
    oe = np.int64(gap_open + gap_extend)
    back = np.zeros((m + 1, n + 1), dtype=np.uint8)
    prev = np.zeros(n + 1, dtype=np.int64)
    cur = np.zeros(n + 1, dtype=np.int64)
    fcol = np.full(n + 1, -oe, dtype=np.int64)
    best, bi, bj = np.int64(0), 0, 0
    for i in range(1, m + 1):
        row = table[q[i - 1]]
        ev = -oe
        cur[0] = 0
        for j in range(1, n + 1):
            flags = 0
            eo = cur[j - 1] - oe
            ex = ev - e
            if ex > eo:
                ev = ex
                flags |= 4
            else:
                ev = eo
            fo = prev[j] - oe
            fx = fcol[j] - e
            if fx > fo:
                fcol[j] = fx
                flags |= 8
            else:
                fcol[j] = fo
            h = prev[j - 1] + row[d[j - 1]]
            src = 1
            if ev > h:
                h, src = ev, 2
            if fcol[j] > h:
                h, src = fcol[j], 3
            if h <= 0:
                h, src = 0, 0
            cur[j] = h
            back[i, j] = flags | src
            if h > best:
                best, bi, bj = h, i, j
        prev, cur = cur, prev
    ops = np.empty(m + n, dtype=np.uint8)
    k = 0
    i, j, state = bi, bj, 0  # state 0: H, 2: E, 3: F
    while i > 0 and j > 0:
        b = back[i, j]
        if state == 0:
            src = b & 3
            if src == 0:
                break
            if src == 1:
                ops[k] = 0 if q[i - 1] == d[j - 1] else 1
                k += 1
                i -= 1
                j -= 1
            else:
                state = src
        elif state == 2:
            ops[k] = 3
            k += 1
            if not (b & 4):
                state = 0
            j -= 1
        else:
            ops[k] = 2
            k += 1
            if not (b & 8):
                state = 0
            i -= 1
    return best, i, bi, j, bj, ops[:k].copy()


def cigar(ops_reversed: np.ndarray) -> str:
    ops = ops_reversed[::-1]
    if ops.size == 0:
        return ""
    cuts = np.flatnonzero(np.diff(ops)) + 1
    starts = np.concatenate([[0], cuts])
    ends = np.concatenate([cuts, [ops.size]])
    return "".join(f"{b - a}{OPS[ops[a]]}" for a, b in zip(starts.tolist(), ends.tolist()))


def align(q: np.ndarray, d: np.ndarray, scoring: Scoring) -> Alignment:
    score, i0, i1, j0, j1, ops = _trace(q, d, scoring.table, np.int64(scoring.gap_open),
                                        np.int64(scoring.gap_extend))
    if score == 0:
        return Alignment(0, 0, 0, 0, 0, "")
    return Alignment(int(score), i0 + 1, i1, j0 + 1, j1, cigar(ops))


def workers() -> ThreadPoolExecutor:
    """Threads for alignments, one per core (the kernel releases the GIL)."""
    return ThreadPoolExecutor(max(1, os.cpu_count() or 1))


def align_later(pool: ThreadPoolExecutor, pairs: Sequence[tuple[np.ndarray, np.ndarray]],
                scoring: Scoring) -> list[Future]:
    """Alignments of ``pairs`` started on ``pool`` (largest first), as futures in pair order."""
    order = sorted(range(len(pairs)), key=lambda k: -pairs[k][0].size * pairs[k][1].size)
    futures: list[Future | None] = [None] * len(pairs)
    for k in order:
        futures[k] = pool.submit(align, pairs[k][0], pairs[k][1], scoring)
    return futures  # type: ignore[return-value]


def align_many(pairs: Sequence[tuple[np.ndarray, np.ndarray]], scoring: Scoring) -> list[Alignment]:
    """Alignments of several pairs, on all cores."""
    if len(pairs) <= 1:
        return [align(q, d, scoring) for q, d in pairs]
    with workers() as pool:
        return [f.result() for f in align_later(pool, pairs, scoring)]


def rescore(a: Alignment, q: np.ndarray, d: np.ndarray, scoring: Scoring) -> int:
    """The score of an alignment recomputed from its ranges and CIGAR (for checks)."""
    table = scoring.table
    i, j, total = a.qstart - 1, a.sstart - 1, 0
    for n, op in a.ops():
        if op in "=X":
            for _ in range(n):
                if (q[i] == d[j]) != (op == "="):
                    raise ValueError(f"CIGAR {op} at query {i + 1}, subject {j + 1}")
                total += int(table[q[i], d[j]])
                i, j = i + 1, j + 1
        else:
            total -= scoring.gap_open + n * scoring.gap_extend
            i, j = (i + n, j) if op == "D" else (i, j + n)
    if a.cigar and (i != a.qend or j != a.send):
        raise ValueError("CIGAR does not span the ranges")
    return total
