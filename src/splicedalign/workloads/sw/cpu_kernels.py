"""numba kernels of the database search (int32 scores; H >= 0 and H <= max_sbt * min(m, n)),
Gotoh's affine recurrence (SPEC-workloads C2; a linear gap is open 0): per cell
``E = max(E_left - e, H_left - o - e)``, ``F = max(F_up - e, H_up - o - e)``,
``H = max(0, H_diag + sbt, E, F)``. E and F start at ``-(o + e)`` (as if from H = 0 on the
border), so no value falls below ``PAD_SCORE - o - e``.

``sequential``: one database sequence at a time, column by column, with the query profile
``P[c][i] = sbt(q_i, c)`` so a column reads one contiguous profile row.

``saturating`` (``multicore``): inter-sequence SIMD in the style of SWIPE (Rognes 2011):
``W`` database sequences of similar length (sorted by length) advance together, one lane each
of an explicit vector (core.simd: 128 int8 or 64 int16 lanes, registers not arrays); per
column a score vector ``S[a][w] = sbt(a, d_w[j])`` is looked up for every query letter ``a``
(one byte permute each) and the recurrence runs down the query rows on whole vectors, four
columns per sweep so that H and E of a row go through memory once per four columns.
Arithmetic saturates: a lane whose best reaches the type's maximum may have overflowed and is
scored again on wider lanes; below it every H is exact, since saturation at the bottom only
raises E and F values that are negative, which never reach H = max(0, ...). Past its end a
lane reads the padding code, whose scores (the type's minimum) are so low that its cells only
repeat values derived, minus gaps, from real cells: the lane's maximum is unchanged.
Batches are independent, spread over cores with ``prange``.
"""

from __future__ import annotations

import numba
import numpy as np

from splicedalign.core.simd import adds, load, lookup, splat, store, subs, vmax
from splicedalign.workloads.sw.matrices import PAD


@numba.njit(cache=True, nogil=True)
def query_profile(q, table):
    """P[c, i] = table[q[i], c] for every code c (rows of the padded table)."""
    codes = table.shape[0]
    m = q.size
    prof = np.empty((codes, m), dtype=np.int32)
    for c in range(codes):
        for i in range(m):
            prof[c, i] = table[q[i], c]
    return prof


@numba.njit(cache=True, nogil=True)
def sw_column_sweep(prof, d, gap_open, gap_extend, col, ecol):
    """Score of one database sequence ``d`` against the profiled query; ``col`` and ``ecol``
    (len m) are scratch holding H and E of the previous column."""
    m = col.size
    zero = np.int32(0)  # int32 throughout: mixing in int64 literals halves the speed
    e = np.int32(gap_extend)
    oe = np.int32(gap_open + gap_extend)
    col[:] = 0
    ecol[:] = -oe
    best = zero
    for j in range(d.size):
        p = prof[np.int64(d[j])]
        diag = zero  # H[i-1][j-1]
        up = zero  # H[i-1][j]
        f = -oe
        for i in range(m):
            left = col[i]
            ei = max(ecol[i] - e, left - oe)
            f = max(f - e, up - oe)
            h = max(max(max(diag + p[i], ei), zero), f)
            ecol[i] = ei
            diag = left
            col[i] = h
            up = h
            best = max(best, h)
    return best


@numba.njit(cache=True, nogil=True)
def search_sequential(q, codes, offsets, table, gap_open, gap_extend, out):
    prof = query_profile(q, table)
    col = np.empty(q.size, dtype=np.int32)
    ecol = np.empty(q.size, dtype=np.int32)
    for k in range(out.size):
        out[k] = sw_column_sweep(prof, codes[offsets[k]:offsets[k + 1]], gap_open, gap_extend, col, ecol)


@numba.njit(cache=True, parallel=True)
def search_scalar_parallel(q, codes, offsets, seqs, table, gap_open, gap_extend, out):
    """The sequential sweep of the sequences ``seqs``, spread over cores (multicore's int32
    pass: the sequences whose 16-bit saturating lanes reached the maximum)."""
    prof = query_profile(q, table)
    for t in numba.prange(seqs.size):
        k = seqs[t]
        col = np.empty(q.size, dtype=np.int32)
        ecol = np.empty(q.size, dtype=np.int32)
        out[k] = sw_column_sweep(prof, codes[offsets[k]:offsets[k + 1]], gap_open, gap_extend, col, ecol)


COLUMNS = 4  # database columns per sweep down the query (written out in saturating_batch's row loop): H
# and E go through memory once per 4 columns; no register spills at 4 x 128 int8 lanes. One Zen 5
# core, 5,000 sequences, 8 bits: 1 column 37-44 GCUPS, 4 columns 53-71 (q144 ... q5478)


@numba.njit(cache=True, nogil=True)
def saturating_cell(diag, s, e_left, ho_left, f_up, ho_up, first_gap, gap_extend, zero):
    """One cell on whole vectors: (H, H - o - e, E, F) from the diagonal H, the score vector,
    E and H - o - e of the cell on the left and F and H - o - e of the cell above (H - o - e
    serves both the next column's E and the next row's F)."""
    e = vmax(subs(e_left, gap_extend), ho_left)
    f = vmax(subs(f_up, gap_extend), ho_up)
    h = vmax(vmax(vmax(adds(diag, s), e), zero), f)
    return h, subs(h, first_gap), e, f


@numba.njit(cache=True, nogil=True)
def saturating_batch(q, letters, codes, offsets, lanes, table, first_gap, gap_extend, out):
    """Score the (up to W = table.shape[1]) database sequences ``lanes`` together, one lane
    each, in saturating lanes of ``table``'s type (int8 or int16: core.simd); ``out[k]`` gets
    sequence k's best H, or the lane type's maximum where it may have overflowed.
    ``table[a]``: the lookup vector of letter a (its score against each code, clipped to the
    lane type); ``first_gap`` = o + e and ``gap_extend`` in the lane type. COLUMNS columns
    per sweep down the query rows."""
    m = q.size
    W = table.shape[1]
    longest = 0
    for w in range(lanes.size):
        longest = max(longest, offsets[lanes[w] + 1] - offsets[lanes[w]])
    longest = -(-longest // COLUMNS) * COLUMNS  # whole sweeps: padding columns change no maximum
    C = np.full((longest, W), PAD, dtype=table.dtype)  # column j's codes, one per lane
    for w in range(lanes.size):
        a = offsets[lanes[w]]
        for j in range(offsets[lanes[w] + 1] - a):
            C[j, w] = codes[a + j]
    rows = np.empty(m, dtype=np.int64)  # offset of query row i's score vector in S
    for i in range(m):
        rows[i] = np.int64(q[i]) * W
    H = np.zeros((m, W), dtype=table.dtype)  # H and E of the sweep's last column, row by row
    E = np.empty((m, W), dtype=table.dtype)
    S = np.empty((COLUMNS, letters, W), dtype=table.dtype)  # per column of the sweep and query letter
    k1, k2, k3 = letters * W, 2 * letters * W, 3 * letters * W
    oe = splat(first_gap)
    e = splat(gap_extend)
    zero = subs(e, e)
    start = subs(zero, oe)  # E, F and H - o - e next to H = 0
    for i in range(m):
        store(E, i * W, start)
    best = zero
    for j in range(0, longest, COLUMNS):
        for a in range(letters):
            scores = load(table, a * W)
            for k in range(COLUMNS):
                store(S, (k * letters + a) * W, lookup(scores, load(C, (j + k) * W)))
        d0 = d1 = d2 = d3 = zero  # H[i-1] of the column on the left
        f0 = f1 = f2 = f3 = u0 = u1 = u2 = u3 = start  # F and H - o - e of row i-1
        p = 0
        for i in range(m):
            hl = load(H, p)
            r = rows[i]
            h0, o0, x, f0 = saturating_cell(d0, load(S, r), load(E, p), subs(hl, oe), f0, u0, oe, e, zero)
            h1, o1, x, f1 = saturating_cell(d1, load(S, r + k1), x, o0, f1, u1, oe, e, zero)
            h2, o2, x, f2 = saturating_cell(d2, load(S, r + k2), x, o1, f2, u2, oe, e, zero)
            h3, o3, x, f3 = saturating_cell(d3, load(S, r + k3), x, o2, f3, u3, oe, e, zero)
            store(E, p, x)
            store(H, p, h3)
            d0, d1, d2, d3 = hl, h0, h1, h2
            u0, u1, u2, u3 = o0, o1, o2, o3
            best = vmax(best, vmax(vmax(h0, h1), vmax(h2, h3)))
            p += W
    last = np.empty(W, dtype=table.dtype)
    store(last, 0, best)
    for w in range(lanes.size):
        out[lanes[w]] = last[w]


@numba.njit(cache=True, parallel=True)
def search_saturating(q, codes, offsets, order, starts, table, first_gap, gap_extend, out):
    """``order``: database indices sorted by length; a batch is order[a:a+W] for a in
    ``starts`` (W = table.shape[1]), in the order prange deals them."""
    W = table.shape[1]
    letters = int(q.max()) + 1
    for t in numba.prange(starts.size):
        a = starts[t]
        saturating_batch(q, letters, codes, offsets, order[a: min(order.size, a + W)], table, first_gap,
                         gap_extend, out)
