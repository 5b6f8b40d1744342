"""numba kernels of the CPU solvers. Every ``*_prefix`` function answers one start: c(r), the
last row of D(α[r..m], β) whose minimum is <= k - 1 (SPEC-workloads A), and how many letter
comparisons it made. Starts are 0-based here (r0 = r - 1); α codes 0-3 or 4, β codes 0-3 or 5,
so ``a == b`` is false for any ambiguity letter."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

W = 64  # rows per bit-vector word
ONE = np.uint64(1)
ZERO = np.uint64(0)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
HIGH = np.uint64(1 << 63)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


# ---------------------------------------------------------------- conventional (paper Fig. 2a)
@njit(cache=True, nogil=True, boundscheck=False)
def conventional_prefix(alpha, r0, beta, k, D):
    """One DP row at a time over all of β (D reused, length n + 1); Opt 1: stop at the first
    row whose minimum is >= k. One comparison per cell."""
    n = beta.size
    M = alpha.size - r0
    for j in range(n + 1):
        D[j] = 0
    for i in range(1, M + 1):
        a = alpha[r0 + i - 1]
        diag = D[0]
        D[0] = i
        left = i
        rowmin = i
        for j in range(1, n + 1):
            up = D[j]
            v = diag + (0 if a == beta[j - 1] else 1)
            if up + 1 < v:
                v = up + 1
            if left + 1 < v:
                v = left + 1
            diag = up
            D[j] = v
            left = v
            if v < rowmin:
                rowmin = v
        if rowmin >= k:
            return i - 1, i * n
    return M, M * n


# ----------------------------------------------------------- alternative (paper Fig. 2b, LV)
@njit(cache=True, nogil=True, boundscheck=False)
def alternative_prefix(alpha, r0, beta, k, L):
    """Landau-Vishkin: one column L[d] (d = j - i, stored at d + k) of furthest rows, for
    e = 0 .. k - 1, diagonals d = -e .. n - 1; c = max_d L[d, k - 1]. Opt 2: stop once a
    diagonal reaches row M (the whole suffix is within e < k). Every slide test counts,
    the failing one included."""
    n = beta.size
    M = alpha.size - r0
    off = k
    for x in range(L.size):
        L[x] = -1  # column e = -1; d < -e is never read except as a dominated candidate
    comps = 0
    best = 0
    for e in range(k):
        prev_left = L[off - e - 1]  # L[d - 1, e - 1] for d = -e
        for d in range(-e, n):
            old = L[off + d]
            row = old + 1
            if prev_left > row:
                row = prev_left
            down = L[off + d + 1] + 1
            if down > row:
                row = down
            if row > M:
                row = M
            if row > n - d:
                row = n - d
            while row < M and row + d < n:
                comps += 1
                if alpha[r0 + row] != beta[row + d]:
                    break
                row += 1
            L[off + d] = row
            prev_left = old
            if row >= M:
                return M, comps
            if e == k - 1 and row > best:
                best = row
    return best, comps


# ------------------------------------------------ bit-parallel (Myers/Hyyrö with Ukkonen's cut-off)
@njit(cache=True, inline="always")
def popcount(x):
    x = x - ((x >> ONE) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@njit(cache=True, inline="always")
def advance_block(Pv, Mv, Eq, hin):
    """One 64-row block of one column (Myers 1999, Hyyrö's block form as in edlib): vertical
    deltas Pv/Mv (+1/-1 per row), match mask Eq, horizontal delta hin in at the top row;
    returns the new Pv, Mv and the horizontal delta out of the bottom row."""
    hin_neg = ONE if hin < 0 else ZERO
    Xv = Eq | Mv
    Eq = Eq | hin_neg
    Xh = (((Eq & Pv) + Pv) ^ Pv) | Eq
    Ph = Mv | ~(Xh | Pv)
    Mh = Pv & Xh
    hout = 0
    if Ph & HIGH:
        hout = 1
    elif Mh & HIGH:
        hout = -1
    Ph = Ph << ONE
    Mh = (Mh << ONE) | hin_neg
    if hin > 0:
        Ph = Ph | ONE
    return Mh | ~(Xv | Ph), Ph & Xv, hout


@njit(cache=True, inline="always")
def build_peq(alpha, r0, M, b, Peq):
    """Match masks of block b (rows 64b + 1 .. 64b + 64 of α[r0 + 1 ..]) for letters 0-3; rows
    past M and ambiguity letters match nothing."""
    for x in range(4):
        Peq[4 * b + x] = ZERO
    for p in range(W):
        row = b * W + p
        if row >= M:
            break
        a = alpha[r0 + row]
        if a < 4:
            Peq[4 * b + a] |= ONE << np.uint64(p)


@njit(cache=True, nogil=True, boundscheck=False)
def bitparallel_prefix(alpha, r0, beta, k, lower, Peq, Pv, Mv, score):
    """c(r) by one sweep over β of the column-wise bit-parallel DP of α[r..m] (free start in β).

    Ukkonen's cut-off keeps blocks 0..last active: every cell <= t = k - 1 lies in them and is
    exact; other active cells may be overestimated but stay > t. After each column the deepest
    row <= t is sought upward from the last active row, jumping v - t rows from a row of value
    v > t (values change by at most 1 per row, so no skipped row is <= t); only rows above
    ``lower`` (already known to qualify, e.g. c(r - 1) - 1 or k - 1) are of interest.
    Comparisons: the rows covered by the computed words, per column."""
    n = beta.size
    M = alpha.size - r0
    t = k - 1
    cstar = min(lower, M)
    if cstar >= M:
        return M, 0
    nb = (M + W - 1) // W
    last = min(nb, (t + W) // W) - 1  # blocks over rows 1 .. t + 1 (D[i][0] = i)
    built = min(nb, last + 2)
    for b in range(built):
        build_peq(alpha, r0, M, b, Peq)
    for b in range(last + 1):
        Pv[b] = ALL
        Mv[b] = ZERO
        score[b] = (b + 1) * W
    comps = 0
    for j in range(n):
        c = beta[j]
        hout = 0
        for b in range(last + 1):
            Eq = Peq[4 * b + c] if c < 4 else ZERO
            Pv[b], Mv[b], hout = advance_block(Pv[b], Mv[b], Eq, hout)
            score[b] += hout
        comps += min((last + 1) * W, M)
        if (last < nb - 1 and score[last] - hout <= t
                and (hout < 0 or (c < 4 and (Peq[4 * (last + 1) + c] & ONE) != ZERO))):
            last += 1
            if built < nb and built <= last + 1:
                build_peq(alpha, r0, M, built, Peq)
                built += 1
            Eq = Peq[4 * last + c] if c < 4 else ZERO
            Pv[last], Mv[last], h = advance_block(ALL, ZERO, Eq, hout)
            score[last] = score[last - 1] - hout + W + h
            comps += min(W, M - last * W)
        else:
            while last > 0 and score[last] >= t + W:
                last -= 1
        i = min((last + 1) * W, M)
        while i > cstar:
            bi = (i - 1) // W
            p = (i - 1) % W
            v = score[bi]
            if p < W - 1:
                sh = np.uint64(p + 1)
                v -= popcount(Pv[bi] >> sh) - popcount(Mv[bi] >> sh)
            if v <= t:
                cstar = i
                break
            i -= v - t
        if cstar >= M:
            return M, comps
    return cstar, comps


# ---------------------------------------------------------------------------------- drivers
CONVENTIONAL = 0
ALTERNATIVE = 1


@njit(cache=True, nogil=True)
def paper_prefixes(alpha, beta, k, first, stop, out, method):
    """c(r) for starts first .. stop - 1 (0-based), in order, until one stops, by the paper's
    conventional (method CONVENTIONAL) or alternative (ALTERNATIVE) subroutine; returns (next
    start, comparisons); out[r0] is set for every start computed."""
    scratch = np.empty(beta.size + 1 if method == CONVENTIONAL else beta.size + k + 2, dtype=np.int32)
    comps = 0
    r0 = first
    while r0 < stop:
        if method == CONVENTIONAL:
            c, x = conventional_prefix(alpha, r0, beta, k, scratch)
        else:
            c, x = alternative_prefix(alpha, r0, beta, k, scratch)
        out[r0] = c
        comps += x
        r0 += 1
        if r0 + c > alpha.size:
            break
    return r0, comps


@njit(cache=True, nogil=True)
def bitparallel_prefixes(alpha, beta, k, first, stop, lower, out):
    """Like paper_prefixes, with the two-pointer bound c(r + 1) >= c(r) - 1 (answers'
    ends never decrease) carried from start to start, beginning at ``lower``."""
    nw = (alpha.size + W - 1) // W + 1
    Peq = np.empty(4 * nw, dtype=np.uint64)
    Pv = np.empty(nw, dtype=np.uint64)
    Mv = np.empty(nw, dtype=np.uint64)
    score = np.empty(nw, dtype=np.int64)
    comps = 0
    r0 = first
    while r0 < stop:
        c, x = bitparallel_prefix(alpha, r0, beta, k, max(lower, k - 1), Peq, Pv, Mv, score)
        out[r0] = c
        comps += x
        lower = c - 1
        r0 += 1
        if r0 + c > alpha.size:
            break
    return r0, comps


@njit(cache=True, parallel=True)
def bitparallel_prefixes_parallel(alpha, beta, k, bounds, lower, out, comps_out, workers):
    """Chunks [bounds[x], bounds[x + 1]) of starts, each a bitparallel_prefixes sweep, dealt
    round-robin to ``workers`` threads (chunk x to worker x mod workers, so slowly varying work
    per start spreads evenly under numba's static schedule); a chunk ends at its own first stop
    (later starts stop too). The first chunk starts from ``lower``, the others from k - 1."""
    nchunks = bounds.size - 1
    for w in prange(workers):
        for x in range(w, nchunks, workers):
            first_lower = lower if x == 0 else k - 1
            done = bitparallel_prefixes(alpha, beta, k, bounds[x], bounds[x + 1], first_lower, out)
            comps_out[x] = done[1]
