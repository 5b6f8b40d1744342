"""numba kernels of the database search (int32 scores; H >= 0 and H <= max_sbt * min(m, n)).

``sequential``: one database sequence at a time, column by column, with the query profile
``P[c][i] = sbt(q_i, c)`` so a column reads one contiguous profile row.

``lanes`` (``multicore``): inter-sequence SIMD in the style of SWIPE (Rognes 2011): ``W``
database sequences of similar length (sorted by length) advance together, one lane each; per
column a score block ``S[a][w] = sbt(a, d_w[j])`` is gathered for every letter ``a`` and the recurrence runs over
the query rows with the ``W`` lanes in the innermost loop, which LLVM turns into vector code.
Past its end a lane reads the padding code, whose scores (PAD_SCORE) are so low that its cells
only repeat values derived, minus gaps, from real cells: the lane's maximum is unchanged.
Batches are independent, spread over cores with ``prange``.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.extending import overload

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
def sw_column_sweep(prof, d, gap, col):
    """Score of one database sequence ``d`` against the profiled query; ``col`` (len m) is
    scratch holding H of the previous column."""
    m = col.size
    col[:] = 0
    zero = np.int32(0)  # int32 throughout: mixing in int64 literals halves the speed
    gap = np.int32(gap)
    best = zero
    for j in range(d.size):
        p = prof[np.int64(d[j])]
        diag = zero  # H[i-1][j-1]
        up = zero  # H[i-1][j]
        for i in range(m):
            left = col[i]
            # the vertical term last: the loop-carried chain through ``up`` is two operations
            h = max(max(max(diag + p[i], left - gap), zero), up - gap)
            diag = left
            col[i] = h
            up = h
            best = max(best, h)
    return best


@numba.njit(cache=True, nogil=True)
def search_sequential(q, codes, offsets, table, gap, out):
    prof = query_profile(q, table)
    col = np.empty(q.size, dtype=np.int32)
    for k in range(out.size):
        out[k] = sw_column_sweep(prof, codes[offsets[k]:offsets[k + 1]], gap, col)


@numba.njit(cache=True, parallel=True)
def search_scalar_parallel(q, codes, offsets, seqs, table, gap, out):
    """The sequential sweep of the sequences ``seqs``, spread over cores (for sequences that
    would mostly pad a SIMD batch)."""
    prof = query_profile(q, table)
    for t in numba.prange(seqs.size):
        k = seqs[t]
        col = np.empty(q.size, dtype=np.int32)
        out[k] = sw_column_sweep(prof, codes[offsets[k]:offsets[k + 1]], gap, col)


def as_type_of(x, like):
    """``x`` cast to the type of the scalar ``like`` (usable in jitted code)."""
    return type(like)(x)


@overload(as_type_of)
def _as_type_of(x, like):
    target = like  # the numba type of ``like``, callable as a cast in jitted code

    def impl(x, like):
        return target(x)
    return impl


@numba.njit(cache=True, nogil=True)
def lanes_batch(q, codes, offsets, lanes, table, gap, H, S, out):
    """Score the (up to W = H.shape[1]) database sequences ``lanes`` together; H (m x W) and
    S (letters x W: the column's score for each query letter) are scratch. The lane type is
    that of ``gap`` and H (int16 or int32); every intermediate is cast back to it, since numba
    widens small-integer arithmetic to int64, which would quarter the lanes per vector. The
    casts are exact: the caller guarantees every H fits (records.fits_int16) and the other terms are
    at least PAD_SCORE - gap."""
    m = q.size
    W = H.shape[1]
    g = gap
    z = as_type_of(0, gap)
    start = np.zeros(W, dtype=np.int64)
    length = np.zeros(W, dtype=np.int64)
    longest = 0
    for w in range(lanes.size):
        start[w] = offsets[lanes[w]]
        length[w] = offsets[lanes[w] + 1] - start[w]
        longest = max(longest, length[w])
    c = np.empty(W, dtype=np.int64)
    diag = np.empty(W, dtype=H.dtype)
    up = np.empty(W, dtype=H.dtype)
    best = np.zeros(W, dtype=H.dtype)
    H[:, :] = 0
    for j in range(longest):
        for w in range(W):
            c[w] = codes[start[w] + j] if j < length[w] else PAD
        for a in range(S.shape[0]):
            row = table[a]
            for w in range(W):
                S[a, w] = row[c[w]]
        diag[:] = 0
        up[:] = 0
        for i in range(m):
            s = S[q[i]]
            h_row = H[i]
            for w in range(W):
                left = h_row[w]
                h = max(max(max(as_type_of(diag[w] + s[w], z), as_type_of(left - g, z)), z),
                        as_type_of(up[w] - g, z))
                diag[w] = left
                h_row[w] = h
                up[w] = h
                best[w] = max(best[w], h)
    for w in range(lanes.size):
        out[lanes[w]] = best[w]


@numba.njit(cache=True, parallel=True)
def search_lanes(q, codes, offsets, order, table, gap, lanes_per_batch, out):
    """``order``: database indices sorted by length; batch b is order[b*W:(b+1)*W], W =
    ``lanes_per_batch``; the lane type is that of ``table`` and ``gap``."""
    W = lanes_per_batch
    batches = (order.size + W - 1) // W
    letters = int(q.max()) + 1
    for b in numba.prange(batches):
        lanes = order[b * W: min(order.size, (b + 1) * W)]
        H = np.empty((q.size, W), dtype=table.dtype)
        S = np.empty((letters, W), dtype=table.dtype)
        lanes_batch(q, codes, offsets, lanes, table, gap, H, S, out)


# measured on this project's AVX-512 machine (docs/sw.md): 64 int16 lanes (two zmm per row
# step) 6.7 GCUPS on one core, 32 lanes 3.0; 32 int32 lanes 3.8, 16 lanes 2.7
LANES16 = 64
LANES32 = 32
