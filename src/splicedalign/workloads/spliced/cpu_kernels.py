"""Compiled (numba) building blocks of the CPU solvers: the exon matrix sweep, the running-max
predecessor fold and the per-exon traceback. Pure array functions, no I/O.

Exons are in (first, last) order throughout; ``last_rows[k]`` is S(last(k), ., k).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

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
    The inner loops index views of columns lo..hi from 0, so the compiler knows every index
    is non-negative and drops numba's negative-index wraparound from them (with a variable
    ``lo`` it cost 19% of the sweep).
    """
    Hs = H[lo:hi + 1]
    w = Hs.shape[0]
    i = i0
    while i + 3 <= i1:
        r = i - i0
        p0 = prof[base[i - 1], lo:hi + 1]
        p1 = prof[base[i], lo:hi + 1]
        p2 = prof[base[i + 1], lo:hi + 1]
        p3 = prof[base[i + 2], lo:hi + 1]
        d0 = corner if r == 0 else left_in[r - 1]
        l0, l1, l2, l3 = left_in[r], left_in[r + 1], left_in[r + 2], left_in[r + 3]
        d1, d2, d3 = l0, l1, l2
        for j in range(w):
            up = Hs[j]
            h0 = max(d0 + p0[j], max(up, l0) - gap)
            h1 = max(d1 + p1[j], max(h0, l1) - gap)
            h2 = max(d2 + p2[j], max(h1, l2) - gap)
            h3 = max(d3 + p3[j], max(h2, l3) - gap)
            d0, d1, d2, d3 = up, h0, h1, h2
            l0, l1, l2, l3 = h0, h1, h2, h3
            Hs[j] = h3
        left_out[r], left_out[r + 1], left_out[r + 2], left_out[r + 3] = l0, l1, l2, l3
        i += 4
    while i <= i1:
        r = i - i0
        p = prof[base[i - 1], lo:hi + 1]
        d = corner if r == 0 else left_in[r - 1]
        left = left_in[r]
        for j in range(w):
            up = Hs[j]
            h = max(d + p[j], max(up, left) - gap)
            d = up
            Hs[j] = h
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


@njit(cache=True, nogil=True)
def start_row(n, lead, H):
    """The chain-start term of every entry row: t_1..t_j before the chain, at ``lead`` each
    (Scoring.lead: the gap cost with global target ends, 0 with free ends)."""
    for j in range(n + 1):
        H[j] = -lead * j


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


@intrinsic
def load_acquire(typingctx, counters, i):
    """counters[i] read with acquire order: never hoisted out of a loop, and the writes its
    writer made before the matching store_release are visible after it."""
    def codegen(context, builder, sig, args):
        return builder.load_atomic(_item_pointer(context, builder, sig, args), "acquire", 8)
    return types.int64(counters, i), codegen


@intrinsic
def store_release(typingctx, counters, i, value):
    """counters[i] = value with release order (every earlier write is visible first)."""
    def codegen(context, builder, sig, args):
        value = context.cast(builder, args[2], sig.args[2], types.int64)
        builder.store_atomic(value, _item_pointer(context, builder, sig, args), "release", 8)
        return context.get_dummy_value()
    return types.void(counters, i, value), codegen


def _item_pointer(context, builder, sig, args):
    aryty = sig.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    index = context.cast(builder, args[1], sig.args[1], types.intp)
    return cgutils.get_item_pointer(context, builder, aryty, ary, [index])


@intrinsic
def sched_yield(typingctx):
    """POSIX sched_yield: gives the core to another runnable thread (a waiting strip whose
    producer lost its core to another process)."""
    def codegen(context, builder, sig, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield")
        builder.call(fn, [])
        return context.get_dummy_value()
    return types.void(), codegen


SPINS_BEFORE_YIELD = 1000


@njit(cache=True, nogil=True)
def wait_for(done, s, rows):
    """Until done[s] >= rows: spin (the producer is a tile, a few microseconds, ahead), then
    yield the core between checks."""
    spins = 0
    while load_acquire(done, s) < rows:
        spins += 1
        if spins > SPINS_BEFORE_YIELD:
            sched_yield()


# Counters sit this many int64 apart (two cache lines), so a strip's store does not take
# the line its neighbours are polling or writing.
COUNTER_STRIDE = 16


@njit(cache=True, nogil=True)
def sweep_strip(base, prof, first, last, by_last, gap, last_rows, k0, k1, lo, hi, block, R, q, H, L, s, done):
    """Columns lo..hi of the exons k0..k1-1 (SPEC §2), strip ``s`` of the case's strip pipeline.

    The exons' rows, one after another, are the rows of the chunk (exon k0's first row is chunk
    row 0). Every row's column lo-1 comes from L[s] (strip 0 makes it from the recurrence's
    column 0) and its column hi goes to L[s+1]; done[s * COUNTER_STRIDE] counts the chunk rows
    finished here, and a tile of ``block`` rows starts once strip s-1's count covers its rows.
    ``R`` is this strip's fold of the entry row over columns lo-1..hi, ``q`` how many exons by
    last it has folded: column lo-1 of a folded last row is strip s-1's, stored before strip s-1
    counted that exon's rows. ``H`` (n+1, only lo..hi used) is this strip's own current row, so
    no other thread writes its cache lines; each exon's last row is copied to last_rows[k, lo..hi]
    (strip 0 also column 0). Returns the new ``q``.
    """
    K = first.shape[0]
    g = 0  # chunk row of exon k's first row
    for k in range(k0, k1):
        while q < K and last[by_last[q]] < first[k]:
            fold_max(R, last_rows[by_last[q], lo - 1:hi + 1])
            q += 1
        H[lo:hi + 1] = R[1:]
        rows = last[k] - first[k] + 1
        if s == 0:
            column_zero(R[0], gap, rows, L[0, g:g + rows])
        corner = R[0]
        for a in range(0, rows, block):
            z = min(rows, a + block)
            if s > 0:
                wait_for(done, (s - 1) * COUNTER_STRIDE, g + z)
            sweep_tile(base, prof, first[k] + a, first[k] + z - 1, lo, hi, gap, H, corner,
                       L[s, g + a:g + z], L[s + 1, g + a:g + z])
            corner = L[s, g + z - 1]
            if a + block >= rows:  # the exon's last row, before the count says it is done
                last_rows[k, lo:hi + 1] = H[lo:hi + 1]
                if s == 0:
                    last_rows[k, 0] = L[0, g + rows - 1]
            store_release(done, s * COUNTER_STRIDE, g + z)
        g += rows
    return q


@njit(cache=True, parallel=True)
def sweep_case_strips(base, prof, first, last, by_last, gap, last_rows, k0, k1, width, block, F, p, H, L, done):
    """Last rows of exons k0..k1-1 with the columns cut into strips of ``width`` columns, one
    per thread, all running at once as a pipeline (sweep_strip): strip s trails strip s-1 by
    about a tile. The only parallel region of the CPU solvers, one per call.

    F[s, :width+1] and p[s] are strip s's fold and fold count, carried between calls; H is
    (strips, n+1) scratch; L has strips+1 rows of at least the chunk's rows; done has
    strips * COUNTER_STRIDE zeros. A strip waits only for strips to its left, so any thread
    count finishes provided each thread runs its strips in increasing order (numba's static
    schedule does); with fewer threads than strips, one thread's strips run one after another.
    """
    n = last_rows.shape[1] - 1
    for s in prange(F.shape[0]):
        lo = 1 + s * width
        hi = min(n, lo + width - 1)
        p[s] = sweep_strip(base, prof, first, last, by_last, gap, last_rows, k0, k1, lo, hi, block,
                           F[s, :hi - lo + 2], p[s], H[s], L, s, done)


@njit(cache=True, nogil=True)
def fold_checkpoints(by_last, lead, last_rows, stride):
    """C[c] = the fold (start term maxed with last rows) of the first c*stride exons by last.

    With stride ~ sqrt(K), any exon's entry row costs at most ``stride`` row folds from the
    nearest checkpoint, in memory K/stride rows: the traceback needs a few entry rows only.
    """
    K = by_last.shape[0]
    n = last_rows.shape[1] - 1
    C = np.empty((K // stride + 1, n + 1), dtype=last_rows.dtype)
    R = np.empty(n + 1, dtype=last_rows.dtype)
    start_row(n, lead, R)
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
