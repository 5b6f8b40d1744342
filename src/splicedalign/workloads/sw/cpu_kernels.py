"""numba kernels of the database search (int32 scores; H >= 0 and H <= max_sbt * min(m, n)),
Gotoh's affine recurrence (SPEC-workloads C2; a linear gap is open 0): per cell
``E = max(E_left - e, H_left - o - e)``, ``F = max(F_up - e, H_up - o - e)``,
``H = max(0, H_diag + sbt, E, F)``. E and F start at ``-(o + e)`` (as if from H = 0 on the
border), so no value falls below ``PAD_SCORE - o - e``.

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
    """The sequential sweep of the sequences ``seqs``, spread over cores (for sequences that
    would mostly pad a SIMD batch)."""
    prof = query_profile(q, table)
    for t in numba.prange(seqs.size):
        k = seqs[t]
        col = np.empty(q.size, dtype=np.int32)
        ecol = np.empty(q.size, dtype=np.int32)
        out[k] = sw_column_sweep(prof, codes[offsets[k]:offsets[k + 1]], gap_open, gap_extend, col, ecol)


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
def lanes_batch(q, codes, offsets, lanes, table, gap_open, gap_extend, H, E, S, out):
    """Score the (up to W = H.shape[1]) database sequences ``lanes`` together; H and E (m x W:
    the previous column) and S (letters x W: the column's score for each query letter) are
    scratch. The lane type is that of ``gap_extend`` and H (int16 or int32); every
    intermediate is cast back to it, since numba widens small-integer arithmetic to int64,
    which would quarter the lanes per vector. The casts are exact: the caller guarantees every
    H fits (records.fits_int16) and the other terms are at least PAD_SCORE - o - e."""
    m = q.size
    W = H.shape[1]
    e = gap_extend
    oe = as_type_of(gap_open + gap_extend, e)
    z = as_type_of(0, e)
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
    f = np.empty(W, dtype=H.dtype)
    best = np.zeros(W, dtype=H.dtype)
    H[:, :] = 0
    E[:, :] = -oe
    for j in range(longest):
        for w in range(W):
            c[w] = codes[start[w] + j] if j < length[w] else PAD
        for a in range(S.shape[0]):
            row = table[a]
            for w in range(W):
                S[a, w] = row[c[w]]
        diag[:] = 0
        up[:] = 0
        f[:] = -oe
        for i in range(m):
            s = S[q[i]]
            h_row = H[i]
            e_row = E[i]
            for w in range(W):
                left = h_row[w]
                ei = max(as_type_of(e_row[w] - e, z), as_type_of(left - oe, z))
                fi = max(as_type_of(f[w] - e, z), as_type_of(up[w] - oe, z))
                h = max(max(max(as_type_of(diag[w] + s[w], z), ei), z), fi)
                e_row[w] = ei
                f[w] = fi
                diag[w] = left
                h_row[w] = h
                up[w] = h
                best[w] = max(best[w], h)
    for w in range(lanes.size):
        out[lanes[w]] = best[w]


@numba.njit(cache=True, parallel=True)
def search_lanes(q, codes, offsets, order, starts, table, gap_open, gap_extend, lanes_per_batch, out):
    """``order``: database indices sorted by length; a batch is order[a:a+W] for a in
    ``starts`` (W = ``lanes_per_batch``), in the order prange deals them; the lane type is that
    of ``table`` and the gap costs."""
    W = lanes_per_batch
    letters = int(q.max()) + 1
    for t in numba.prange(starts.size):
        a = starts[t]
        lanes = order[a: min(order.size, a + W)]
        H = np.empty((q.size, W), dtype=table.dtype)
        E = np.empty((q.size, W), dtype=table.dtype)
        S = np.empty((letters, W), dtype=table.dtype)
        lanes_batch(q, codes, offsets, lanes, table, gap_open, gap_extend, H, E, S, out)


# measured on this project's AVX-512 machine (docs/sw.md): 64 int16 lanes (two zmm per row
# step) 6.7 GCUPS on one core, 32 lanes 3.0; 32 int32 lanes 3.8, 16 lanes 2.7
LANES16 = 64
LANES32 = 32
