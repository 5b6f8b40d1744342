"""Compiled (numba) building blocks of the CPU solvers: the exon matrix sweep, the running-max
predecessor fold and the per-exon traceback. Pure array functions, no I/O.

Exons are in (first, last) order throughout; ``last_rows[k]`` is S(last(k), ., k).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from splicedalign.core.alphabet import BASE_WILDCARD, TARGET_WILDCARD
from splicedalign.workloads.spliced.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Scoring


def score_dtype(m: int, n: int, scoring: Scoring) -> type:
    """int32 when no cell can leave its range, else int64.

    Any cell is the score of some alignment of at most m base and n target letters, so its
    magnitude is at most (m + n) * the largest unit score.
    """
    unit = max(abs(scoring.match), abs(scoring.mismatch), abs(scoring.gap))
    return np.int32 if (m + n) * unit < 2**31 - 1 else np.int64


def profile(target_codes: np.ndarray, scoring: Scoring, dtype: type) -> np.ndarray:
    """prof[c, j] = w(base letter with code c, t_j); column 0 unused. Rows cover every base code."""
    n = len(target_codes)
    prof = np.full((BASE_WILDCARD + 1, n + 1), scoring.mismatch, dtype=dtype)
    prof[:, 0] = 0
    for c in range(BASE_WILDCARD):
        prof[c, 1:][target_codes == c] = scoring.match
    assert TARGET_WILDCARD > BASE_WILDCARD  # a target wildcard matches no row above
    return prof


@njit(cache=True, nogil=True, boundscheck=False)
def sweep_tile(base, prof, i0, i1, lo, hi, gap, H, corner, left_in, left_out):
    """Rows i0..i1 (base positions) of an exon matrix, columns lo..hi only.

    On entry H[lo..hi] holds row i0-1, on exit row i1. The column left of the tile comes in
    as ``corner`` (column lo-1 of row i0-1) and ``left_in[r]`` (column lo-1 of row i0+r);
    ``left_out[r]`` receives column hi of row i0+r, the next tile's left column.

    Four rows per pass over the columns: the passes' horizontal dependency chains are
    independent, so the CPU overlaps them, and H is read and written once per four rows.
    """
    i = i0
    while i + 3 <= i1:
        r = i - i0
        p0 = prof[base[i - 1]]
        p1 = prof[base[i]]
        p2 = prof[base[i + 1]]
        p3 = prof[base[i + 2]]
        d0 = corner if r == 0 else left_in[r - 1]
        l0, l1, l2, l3 = left_in[r], left_in[r + 1], left_in[r + 2], left_in[r + 3]
        d1, d2, d3 = l0, l1, l2
        for j in range(lo, hi + 1):
            up = H[j]
            h0 = max(d0 + p0[j], max(up, l0) - gap)
            h1 = max(d1 + p1[j], max(h0, l1) - gap)
            h2 = max(d2 + p2[j], max(h1, l2) - gap)
            h3 = max(d3 + p3[j], max(h2, l3) - gap)
            d0, d1, d2, d3 = up, h0, h1, h2
            l0, l1, l2, l3 = h0, h1, h2, h3
            H[j] = h3
        left_out[r], left_out[r + 1], left_out[r + 2], left_out[r + 3] = l0, l1, l2, l3
        i += 4
    while i <= i1:
        r = i - i0
        p = prof[base[i - 1]]
        d = corner if r == 0 else left_in[r - 1]
        left = left_in[r]
        for j in range(lo, hi + 1):
            up = H[j]
            h = max(d + p[j], max(up, left) - gap)
            d = up
            H[j] = h
            left = h
        left_out[r] = left
        i += 1


@njit(cache=True, nogil=True)
def column_zero(h0, gap, rows, out):
    """S(i, 0) below an entry row whose column 0 is h0: out[r] = h0 - gap*(r+1)."""
    for r in range(rows):
        out[r] = h0 - gap * (r + 1)


@njit(cache=True, nogil=True)
def sweep_exon(base, prof, first, last, gap, H):
    """Turn H from the entry row P_k into the last row S(last, ., k), rows first..last:
    one tile of every column, column 0 from the recurrence's first column."""
    rows = last - first + 1
    left = np.empty(rows, dtype=H.dtype)
    right = np.empty(rows, dtype=H.dtype)
    h0 = H[0]
    column_zero(h0, gap, rows, left)
    sweep_tile(base, prof, first, last, 1, H.shape[0] - 1, gap, H, h0, left, right)
    H[0] = left[rows - 1]


@njit(cache=True, parallel=True)
def sweep_exon_strips(base, prof, first, last, gap, H, strips, block):
    """As sweep_exon, with the columns cut into ``strips`` strips on all threads.

    Tiles of ``block`` rows x one strip run as a wavefront: tile (b, s) needs tile (b-1, s)
    (the rows above, in H) and tile (b, s-1) (its left column, in L[s], and the corner, in
    C[s, b]), so the tiles of one anti-diagonal b + s are independent. The only parallel
    region is the prange over one diagonal's tiles.
    """
    n = H.shape[0] - 1
    rows = last - first + 1
    nb = (rows + block - 1) // block
    width = (n + strips - 1) // strips
    L = np.empty((strips + 1, rows), dtype=H.dtype)  # L[s]: column lo(s)-1, every row
    C = np.empty((strips + 1, nb + 1), dtype=H.dtype)  # C[s, b]: column lo(s)-1, row above block b
    h0 = H[0]
    column_zero(h0, gap, rows, L[0])
    C[0, 0] = h0
    for b in range(1, nb):
        C[0, b] = L[0, b * block - 1]
    for s in range(1, strips):
        C[s, 0] = H[min(n, s * width)]
    for d in range(nb + strips - 1):
        for s in prange(strips):
            b = d - s
            lo = 1 + s * width
            hi = min(n, lo + width - 1)
            if 0 <= b < nb and lo <= hi:
                a = b * block
                z = min(rows, a + block)
                sweep_tile(base, prof, first + a, first + z - 1, lo, hi, gap, H, C[s, b], L[s, a:z], L[s + 1, a:z])
                C[s + 1, b + 1] = L[s + 1, z - 1]
    H[0] = L[0, rows - 1]


@njit(cache=True, nogil=True)
def start_row(n, gap, H):
    """The chain-start term of every entry row: t_1..t_j against gaps."""
    for j in range(n + 1):
        H[j] = -gap * j


@njit(cache=True, nogil=True)
def fold_max(R, row):
    for j in range(R.shape[0]):
        if row[j] > R[j]:
            R[j] = row[j]


@njit(cache=True, nogil=True)
def sequential_last_rows(base, prof, first, last, by_last, gap, last_rows, R, p, k0, k1):
    """Last rows of exons k0..k1-1, one after another (SPEC §2 with the running-max fold).

    ``R`` is the fold: the start term maxed with the last rows of every exon whose last is
    below the current first; ``by_last`` lists exon positions sorted by last, and ``p`` counts
    how many of them are folded already. Every exon whose last is below first(k) precedes k
    in (first, last) order, so it is finished and joins R for good. Returns the new ``p``, so
    callers can run the exons in chunks (to report progress) and carry (R, p) between them.
    """
    K = first.shape[0]
    for k in range(k0, k1):
        while p < K and last[by_last[p]] < first[k]:
            fold_max(R, last_rows[by_last[p]])
            p += 1
        H = last_rows[k]
        H[:] = R
        sweep_exon(base, prof, first[k], last[k], gap, H)
    return p


@njit(cache=True, nogil=True)
def group_entry_rows(first, last, by_last, last_rows, R, p, a, b):
    """Entry rows of the exons a..b-1 of one group (SPEC §3), written into their last_rows.

    No member of a group ends before another member starts, so every entry row is known
    before any member is swept. Returns the new ``p``, as sequential_last_rows.
    """
    K = first.shape[0]
    for k in range(a, b):
        while p < K and last[by_last[p]] < first[k]:
            fold_max(R, last_rows[by_last[p]])
            p += 1
        last_rows[k, :] = R
    return p


@njit(cache=True, parallel=True)
def sweep_group(base, prof, first, last, gap, last_rows, a, b):
    """Sweep the exons a..b-1 of one group on all threads, each from its entry row.

    The only parallel region of the CPU solvers: the body is one prange, so numba adds no
    other (per-statement) parallel loops.
    """
    for k in prange(a, b):
        sweep_exon(base, prof, first[k], last[k], gap, last_rows[k])


@njit(cache=True, nogil=True)
def fold_checkpoints(by_last, gap, last_rows, stride):
    """C[c] = the fold (start term maxed with last rows) of the first c*stride exons by last.

    With stride ~ sqrt(K), any exon's entry row costs at most ``stride`` row folds from the
    nearest checkpoint, in memory K/stride rows: the traceback needs a few entry rows only.
    """
    K = by_last.shape[0]
    n = last_rows.shape[1] - 1
    C = np.empty((K // stride + 1, n + 1), dtype=last_rows.dtype)
    R = np.empty(n + 1, dtype=last_rows.dtype)
    start_row(n, gap, R)
    for p in range(K + 1):
        if p % stride == 0:
            C[p // stride, :] = R
        if p < K:
            fold_max(R, last_rows[by_last[p]])
    return C


@njit(cache=True, nogil=True)
def entry_row(by_last, folded, last_rows, C, stride, P):
    """P_k, the fold of the first ``folded`` exons by last (those whose last < first(k))."""
    c = folded // stride
    P[:] = C[c]
    for p in range(c * stride, folded):
        fold_max(P, last_rows[by_last[p]])


@njit(cache=True, nogil=True)
def trace_exon(base, target, prof, first, last, gap, P, j_end):
    """Recompute one exon's matrix from its entry row P and trace back from (last, j_end).

    The sweep keeps one row of scores and records, per cell, which moves reach its maximum
    (1 diagonal, 2 base letter against a gap, 4 target letter against a gap): a byte a cell.
    Returns (ops reversed, j at which the path enters the entry row). Ties prefer the
    diagonal, then the base letter against a gap, then the target letter against a gap.
    """
    rows = last - first + 1
    # The path ends at column j_end and cells depend only on columns to their left: columns
    # beyond j_end cannot influence it.
    n = j_end
    moves = np.empty((rows + 1, n + 1), dtype=np.uint8)
    H = P[: n + 1].copy()
    # Two rows per pass over the columns (the second one column-synchronous with the first):
    # their horizontal dependency chains overlap, and H is read and written once per two rows.
    r = 1
    while r <= rows:
        two = r < rows
        p0 = prof[base[first + r - 2]]
        p1 = prof[base[first + r - 1 if two else first + r - 2]]
        d0 = H[0]
        left0 = d0 - gap
        d1 = left0
        left1 = left0 - gap if two else left0
        H[0] = left1
        moves[r, 0] = 2
        moves[r + two, 0] = 2
        for j in range(1, n + 1):
            up = H[j]
            diag = d0 + p0[j]
            vert = up - gap
            horiz = left0 - gap
            h = max(diag, max(vert, horiz))
            moves[r, j] = (diag == h) | ((vert == h) << 1) | ((horiz == h) << 2)
            d0 = up
            left0 = h
            if two:
                diag = d1 + p1[j]
                vert = h - gap
                horiz = left1 - gap
                d1 = h
                h = max(diag, max(vert, horiz))
                moves[r + 1, j] = (diag == h) | ((vert == h) << 1) | ((horiz == h) << 2)
                left1 = h
            H[j] = h
        r += 2
    ops = np.empty(rows + n, dtype=np.uint8)
    k = 0
    r, j = rows, j_end
    while r > 0:
        mv = moves[r, j]
        if mv & 1:
            b = base[first + r - 2]
            ops[k] = OP_MATCH if b == target[j - 1] else OP_MISMATCH
            r -= 1
            j -= 1
        elif mv & 2:
            ops[k] = OP_DEL
            r -= 1
        else:
            ops[k] = OP_INS
            j -= 1
        k += 1
    return ops[:k], j
