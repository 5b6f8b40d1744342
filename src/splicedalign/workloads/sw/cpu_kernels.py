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


def _lanes_kernels(T, W):
    """(batch kernel, parallel search) for lanes of integer type ``T``, ``W`` lanes. Every
    intermediate is cast back to ``T``: numba widens small-integer arithmetic to int64, which
    would quarter the lanes per vector; the casts are exact because the caller guarantees
    every H fits ``T`` (fits_int16) and the other terms are at least -gap + PAD_SCORE."""

    @numba.njit(cache=True, nogil=True)
    def batch(q, codes, offsets, lanes, table, gap, H, S, out):
        """Score the (up to W) database sequences ``lanes`` together; H (m x W) and
        S (letters x W: the column's score for each query letter) are scratch."""
        m = q.size
        g = T(gap)
        z = T(0)
        start = np.zeros(W, dtype=np.int64)
        length = np.zeros(W, dtype=np.int64)
        longest = 0
        for w in range(lanes.size):
            start[w] = offsets[lanes[w]]
            length[w] = offsets[lanes[w] + 1] - start[w]
            longest = max(longest, length[w])
        c = np.empty(W, dtype=np.int64)
        diag = np.empty(W, dtype=T)
        up = np.empty(W, dtype=T)
        best = np.zeros(W, dtype=T)
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
                    h = max(max(max(T(diag[w] + s[w]), T(left - g)), z), T(up[w] - g))
                    diag[w] = left
                    h_row[w] = h
                    up[w] = h
                    best[w] = max(best[w], h)
        for w in range(lanes.size):
            out[lanes[w]] = best[w]

    @numba.njit(cache=True, parallel=True)
    def search(q, codes, offsets, order, table, gap, out):
        """``order``: database indices sorted by length; batch b is order[b*W:(b+1)*W]."""
        batches = (order.size + W - 1) // W
        letters = int(q.max()) + 1
        for b in numba.prange(batches):
            lanes = order[b * W: min(order.size, (b + 1) * W)]
            H = np.empty((q.size, W), dtype=T)
            S = np.empty((letters, W), dtype=T)
            batch(q, codes, offsets, lanes, table, gap, H, S, out)

    return batch, search


LANES16 = 64  # measured best on AVX-512 (docs/sw.md): 2 zmm registers of int16 per row step
LANES32 = 32
search_lanes16 = _lanes_kernels(np.int16, LANES16)[1]
search_lanes32 = _lanes_kernels(np.int32, LANES32)[1]


def fits_int16(max_score: int, m: int, n: int) -> bool:
    """Every H of a pair fits int16 when max_score * min(m, n) <= 32767: a local alignment
    gains at most max_score per letter pair, and PAD_SCORE - gap keeps the lowest term above
    -32768."""
    return max_score * min(m, n) <= 32767
