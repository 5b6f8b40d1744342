"""numba kernels of the wavefront algorithm (WFA, Marco-Sola et al. 2021) for gap-affine costs
with match cost 0: the cost-adaptive exact solver of the CPU (``wfa.py`` drives them).

Diagonal ``k = h - v`` (h: letters of b consumed, v: of a), offsets are h. For each score s,
``M[s][k]`` is the furthest offset on diagonal k reachable at cost s ending in any state,
``I[s][k]`` ending with a letter of b against a gap, ``D[s][k]`` a letter of a against a gap:
``I[s][k] = max(M[s-o-e][k-1], I[s-e][k-1]) + 1``, ``D[s][k] = max(M[s-o-e][k+1], D[s-e][k+1])``,
``M[s][k] = extend(max(M[s-x][k] + 1, I[s][k], D[s][k]))`` where each candidate must lie inside
the table (h <= m, v <= n) and ``extend`` follows matching letters. I and D live in rings of
the last R scores (fixed-width slots indexed k + n); M too, and for the traceback every M
wavefront is also kept (offset int32 + one byte naming its source: 0 mismatch/start, 1 I, 2 D).
Unrolled, ``I[s][k] = max_{L>=1} M[s-o-L*e][k-L] + L`` and ``D[s][k] = max_L M[s-o-L*e][k+L]``,
so the traceback needs only the kept M wavefronts.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from splicedalign.workloads.nw.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH

NULL = -(1 << 30)
# status codes of wfa_forward
DONE, OVER_WORK, OVER_MEMORY = 0, 1, 2
SRC_MISMATCH, SRC_INS, SRC_DEL = 0, 1, 2


@njit(cache=True, nogil=True)
def _reuse(vals, ring_s, ring_lo, ring_hi, ring, s, lo, hi, c):
    """Take the ring slot of score s for the range lo..hi: the slot's old range is set back to
    NULL first, so every row is NULL outside its range (reads need no range checks)."""
    slot = s % ring
    row = vals[slot]
    for k in range(ring_lo[slot], ring_hi[slot] + 1):
        row[c + k] = NULL
    ring_s[slot], ring_lo[slot], ring_hi[slot] = s, lo, hi
    return row


@njit(cache=True, nogil=True)
def _row(vals, ring_s, ring_lo, ring_hi, ring, s):
    """(row, lo, hi) of wavefront s (row indexed k + n + 1; NULL outside lo..hi); an empty
    range and an all-NULL row when s is not there."""
    if s >= 0:
        slot = s % ring
        if ring_s[slot] == s:
            return vals[slot], ring_lo[slot], ring_hi[slot]
    return vals[ring], 1 << 40, -(1 << 40)


@njit(cache=True, nogil=True)
def _ins_step(ins, m_o, i_e, j0, j1, m):
    """I of one score over row indices j0..j1 (j = k + n + 1): from k-1, one letter of b more."""
    for j in range(j0, j1 + 1):
        g1 = m_o[j - 1] + 1
        g2 = i_e[j - 1] + 1
        best = max(g1, g2)
        if best > m:  # at the last column only
            best = max(g1 if g1 <= m else NULL, g2 if g2 <= m else NULL)
        ins[j] = best


@njit(cache=True, nogil=True)
def _del_step(dele, m_o, d_e, j0, j1, c, n):
    """D of one score over row indices j0..j1: from k+1, one letter of a more (h unchanged)."""
    for j in range(j0, j1 + 1):
        g1 = m_o[j + 1]
        g2 = d_e[j + 1]
        best = max(g1, g2)
        limit = n + j - c  # h - k <= n
        if best > limit:  # at the last row only
            best = max(g1 if g1 <= limit else NULL, g2 if g2 <= limit else NULL)
        dele[j] = best


@njit(cache=True, nogil=True)
def _m_step(row, m_x, ins, dele, j0, j1, c, m, n, linear, keep, origins):
    """M of one score over row indices j0..j1: the best of a mismatch, I and D (for linear
    costs ``ins`` and ``dele`` are both M[s-e], read at k-1 and k+1); with ``keep`` the source
    of each (SRC_*) goes to origins[j - j0]."""
    for j in range(j0, j1 + 1):
        g = m_x[j] + 1
        if linear:
            gi = ins[j - 1] + 1
            gd = dele[j + 1]
        else:
            gi = ins[j]
            gd = dele[j]
        best = max(g, max(gi, gd))
        limit = n + j - c  # h - k <= n, i.e. v <= n
        if best > m or best > limit:  # at the table's edge only: check each candidate
            g = g if g <= m and g <= limit else NULL
            gi = gi if gi <= m and gi <= limit else NULL
            gd = gd if gd <= limit else NULL
            best = max(g, max(gi, gd))
        if best < 0:
            best = NULL  # NULL + a few is still NULL
        row[j] = best
        if keep:
            origins[j - j0] = SRC_MISMATCH if best == g else (SRC_INS if best == gi else SRC_DEL)


PAD_A, PAD_B = 0xFA, 0xFB  # letters past the ends: equal to nothing


@njit(cache=True, nogil=True)
def packed(codes, pad):
    """words[i] = codes[i .. i+7] as one little-endian uint64 (``pad`` past the end), i = 0..len."""
    size = codes.size
    words = np.empty(size + 1, dtype=np.uint64)
    for i in range(size + 1):
        w = np.uint64(0)
        for t in range(7, -1, -1):
            byte = codes[i + t] if i + t < size else pad
            w = (w << np.uint64(8)) | np.uint64(byte)
        words[i] = w
    return words


@njit(cache=True, nogil=True)
def _extend_step(row, a8, b8, j0, j1, c):
    """Follow matching letters from every offset of row indices j0..j1, eight at a time: the
    first differing byte of a8[v] ^ b8[h] ends the run (the pads differ from every letter, so a
    run never passes an end). A byte loop to find that byte mispredicted on a quarter of the
    diagonals (4 ns of ~7 a diagonal); the count of trailing zero bits does not branch."""
    for j in range(j0, j1 + 1):
        h = row[j]
        if h < 0:
            continue
        v = h - (j - c)
        diff = a8[v] ^ b8[h]
        while diff == 0:
            h += 8
            v += 8
            diff = a8[v] ^ b8[h]
        row[j] = h + (trailing_zeros(diff) >> 3)  # the first differing byte, no branch


@njit(cache=True, nogil=True)
def wfa_forward(a, b, x, o, e, infix_start, ends_free, keep, work_cap, memory_cap):
    """Scores s = 0, 1, ... until the end is reached. ``infix_start``: every column of row 0 is a
    start (infix); ``ends_free``: the end is any cell of the last row (prefix, infix), else
    (n, m). ``keep``: keep every M wavefront for the traceback. Linear costs (o = 0) need no I
    and D (they are M[s-e] shifted). Stops early with OVER_WORK when the diagonals visited
    exceed ``work_cap`` or OVER_MEMORY when the kept wavefronts exceed ``memory_cap`` entries.
    Returns (status, score, end k, end h, visited, kept offsets, kept sources, base, lo, hi)
    where wavefront s is kept at base[s] for k in lo[s]..hi[s]."""
    n, m = a.size, b.size
    a8, b8 = packed(a, PAD_A), packed(b, PAD_B)
    width = n + m + 3  # k = -n-1 .. m+1 at k + n + 1
    ring = max(x, o + e) + 1
    affine = o > 0
    planes = ring + 1  # the last row stays all NULL (an absent wavefront)
    mv = np.full((planes, width), NULL, dtype=np.int32)
    iv = np.full((planes if affine else 1, width), NULL, dtype=np.int32)
    dv = np.full((planes if affine else 1, width), NULL, dtype=np.int32)
    m_s, i_s, d_s = np.full(ring, -1, np.int64), np.full(ring, -1, np.int64), np.full(ring, -1, np.int64)
    m_lo, i_lo, d_lo = np.zeros(ring, np.int64), np.zeros(ring, np.int64), np.zeros(ring, np.int64)
    m_hi, i_hi, d_hi = np.full(ring, -1, np.int64), np.full(ring, -1, np.int64), np.full(ring, -1, np.int64)
    kept = np.empty(1024 if keep else 1, dtype=np.int32)
    src = np.empty(1024 if keep else 1, dtype=np.uint8)
    base = np.empty(64 if keep else 1, dtype=np.int64)
    los = np.empty(64 if keep else 1, dtype=np.int64)
    his = np.empty(64 if keep else 1, dtype=np.int64)
    used = 0
    visited = 0
    k_end = m - n
    c = n + 1  # column of diagonal 0 in a row
    s = 0
    while True:
        # ---- the gap wavefronts of score s: I (rows ins, from k-1) and D (rows dele, from k+1)
        m_o, mo_lo, mo_hi = _row(mv, m_s, m_lo, m_hi, ring, s - o - e)
        if affine:
            i_e, ie_lo, ie_hi = _row(iv, i_s, i_lo, i_hi, ring, s - e)
            d_e, de_lo, de_hi = _row(dv, d_s, d_lo, d_hi, ring, s - e)
            lo_i, hi_i = max(min(mo_lo, ie_lo) + 1, -n), min(max(mo_hi, ie_hi) + 1, m)
            lo_d, hi_d = max(min(mo_lo, de_lo) - 1, -n), min(max(mo_hi, de_hi) - 1, m)
            ins = _reuse(iv, i_s, i_lo, i_hi, ring, s, lo_i, hi_i, c)
            dele = _reuse(dv, d_s, d_lo, d_hi, ring, s, lo_d, hi_d, c)
            _ins_step(ins, m_o, i_e, c + lo_i, c + hi_i, m)
            _del_step(dele, m_o, d_e, c + lo_d, c + hi_d, c, n)
        else:  # linear: I[s][k] = M[s-e][k-1] + 1, D[s][k] = M[s-e][k+1]
            ins, dele = m_o, m_o
            lo_i, hi_i = max(mo_lo + 1, -n), min(mo_hi + 1, m)
            lo_d, hi_d = max(mo_lo - 1, -n), min(mo_hi - 1, m)
        # ---- M of score s
        m_x, mx_lo, mx_hi = _row(mv, m_s, m_lo, m_hi, ring, s - x)
        if s == 0:
            lo, hi = (0, m) if infix_start else (0, 0)
        else:
            lo, hi = max(min(min(lo_i, lo_d), mx_lo), -n), min(max(max(hi_i, hi_d), mx_hi), m)
        if keep:
            if s >= base.size:
                grow = base.size * 2
                base2, los2, his2 = np.empty(grow, np.int64), np.empty(grow, np.int64), np.empty(grow, np.int64)
                base2[:s], los2[:s], his2[:s] = base[:s], los[:s], his[:s]
                base, los, his = base2, los2, his2
            span = max(0, hi - lo + 1)
            if used + span > memory_cap:
                return OVER_MEMORY, s, 0, 0, visited, kept, src, base, los, his
            if used + span > kept.size:
                grow = max(kept.size * 2, used + span)
                kept2, src2 = np.empty(grow, np.int32), np.empty(grow, np.uint8)
                kept2[:used], src2[:used] = kept[:used], src[:used]
                kept, src = kept2, src2
            base[s], los[s], his[s] = used, lo, hi
        row = _reuse(mv, m_s, m_lo, m_hi, ring, s, lo, hi, c)
        origins = src[used:used + max(0, hi - lo + 1)]
        if s == 0:
            for k in range(lo, hi + 1):
                row[c + k] = k
            if keep:
                origins[:] = SRC_MISMATCH
        else:
            _m_step(row, m_x, ins, dele, c + lo, c + hi, c, m, n, not affine, keep, origins)
        # ---- extend along matching letters; the end reached?
        _extend_step(row, a8, b8, c + lo, c + hi, c)
        found = False
        end_k, end_h = 0, 0
        if ends_free:
            for k in range(lo, hi + 1):
                if row[c + k] - k == n:
                    found = True
                    end_k, end_h = k, row[c + k]
                    break
        elif lo <= k_end <= hi and row[c + k_end] == m:
            found = True
            end_k, end_h = k_end, m
        if keep:
            kept[used:used + max(0, hi - lo + 1)] = row[c + lo:c + hi + 1]
            used += max(0, hi - lo + 1)
        visited += max(0, hi - lo + 1) + (max(0, hi_i - lo_i + 1) + max(0, hi_d - lo_d + 1) if affine else 0)
        if found:
            return DONE, s, end_k, end_h, visited, kept, src, base, los, his
        if visited > work_cap:
            return OVER_WORK, s, 0, 0, visited, kept, src, base, los, his
        s += 1


@njit(cache=True, nogil=True)
def _kept(kept, base, los, his, s, k):
    if s < 0 or k < los[s] or k > his[s]:
        return NULL
    return kept[base[s] + k - los[s]]


@njit(cache=True, nogil=True)
def wfa_traceback(a, b, x, o, e, infix_start, score, end_k, end_h, kept, src, base, los, his):
    """Operation codes (alignment order) of the path to (score, end_k, end_h), and the column of
    b it starts at; from the kept M wavefronts (module doc)."""
    n, m = a.size, b.size
    ops = np.empty(n + m + 1, dtype=np.int8)
    count = 0
    start = 0
    s, k, h = score, end_k, end_h
    while True:
        if s == 0:
            start = k if infix_start else 0
            for _ in range(h - start):
                ops[count] = OP_MATCH
                count += 1
            break
        origin = src[base[s] + k - los[s]]
        if origin == SRC_MISMATCH:
            p = _kept(kept, base, los, his, s - x, k) + 1
        elif origin == SRC_INS:
            p, length = NULL, 0
            step = 1
            while s - o - step * e >= 0 and (o > 0 or step == 1):
                g = _kept(kept, base, los, his, s - o - step * e, k - step)
                if g != NULL and g + step <= m and g + step > p:
                    p, length = g + step, step
                step += 1
        else:
            p, length = NULL, 0
            step = 1
            while s - o - step * e >= 0 and (o > 0 or step == 1):
                g = _kept(kept, base, los, his, s - o - step * e, k + step)
                if g != NULL and g - k <= n and g > p:
                    p, length = g, step
                step += 1
        for _ in range(h - p):
            ops[count] = OP_MATCH
            count += 1
        if origin == SRC_MISMATCH:
            ops[count] = OP_MISMATCH
            count += 1
            s, h = s - x, p - 1
        elif origin == SRC_INS:
            for _ in range(length):
                ops[count] = OP_INS
                count += 1
            s, k, h = s - o - length * e, k - length, p - length
        else:
            for _ in range(length):
                ops[count] = OP_DEL
                count += 1
            s, k, h = s - o - length * e, k + length, p
    return ops[:count][::-1].copy(), start
