"""numba kernels of the wavefront algorithm (WFA, Marco-Sola et al. 2021) for gap-affine costs
with match cost 0: the cost-adaptive exact solver of the CPU (``wfa.py`` drives them).

Diagonal ``k = h - v`` (h: letters of b consumed, v: of a), offsets are h. For each score s,
``M[s][k]`` is the furthest offset on diagonal k reachable at cost s ending in any state,
``I[s][k]`` ending with a letter of b against a gap, ``D[s][k]`` a letter of a against a gap:
``I[s][k] = max(M[s-o-e][k-1], I[s-e][k-1]) + 1``, ``D[s][k] = max(M[s-o-e][k+1], D[s-e][k+1])``,
``M[s][k] = extend(max(M[s-x][k] + 1, I[s][k], D[s][k]))`` where each candidate must lie inside
the table (h <= m, v <= n) and ``extend`` follows matching letters. I, D and M of a score share
one range of diagonals and live in rings of the last R scores (fixed-width rows indexed k + n + 1,
valid only inside their range: ``_pad`` writes NULL where a later score reads outside it, as
WFA2's "init ends"). The step of a score is one loop of branch-free int32 selects over views
shifted so every index counts up from 0 (LLVM vectorises it); the extension compares eight
letters at a time (unaligned loads, trailing-zero count).

For the traceback only one byte a diagonal is kept (in chunks, never copied): the source of M
(mismatch or start, I, D) and whether I and D there opened their gap (from M[s-o-e]) or extended
it. These alone give the path back from the end as steps (operation, length), as Gotoh's
three-state traceback; the offsets are then replayed forward from the start (a step's offset is
its source's plus the step's shift, then the run of matches), as the forward pass computed them.
No offset is kept: 1 byte a diagonal where WFA2 keeps 4 for each of M, I and D.

The gap start (``gap_start``, infix mode): a path may also start on row 0 inside a gap of a's
letters (D, the vertical gap: it goes down the rows; I's gap runs along row 0 and cannot come
from above it), so ``D[0][k] = M[0][k] = k`` on every diagonal (before the extension) and a
leading run of D letters costs e a letter, no o. It is the start of a piece of a's rows cut out
of a longer alignment (a gap across the cut row has paid its open cost above it): with it the
pieces' optima sum to a lower bound of the whole alignment's under gap-affine costs. The walk
back that reaches score 0 still inside a D gap ends there, in D.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic
from numba.typed import List

from splicedalign.core.arraycopy import copy_into
from splicedalign.workloads.nw.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH

NULL = -(1 << 30)
# status codes of wfa_forward
DONE, OVER_WORK, OVER_MEMORY = 0, 1, 2
# the source byte of a kept diagonal (module doc): M's source in the low two bits, and whether
# the I and D there opened a gap (from M) rather than extended one
SRC_MISMATCH, SRC_INS, SRC_DEL, SOURCE, I_OPENED, D_OPENED = 0, 1, 2, 3, 4, 8
OPENED = I_OPENED | D_OPENED  # linear costs: every gap letter is a gap of its own
CHUNK_MIN, CHUNK_MAX = 1 << 16, 1 << 22  # entries of the kept chunks (doubling from the first; at
# most 16 MB, under glibc's largest mmap threshold, so freed chunks are reused, not faulted in anew)
_SOURCES = types.uint8[::1]
Trail = namedtuple("Trail", "sources chunk base lo hi")


@njit(cache=True, nogil=True)
def _take(ring_s, ring_lo, ring_hi, ring, s, lo, hi):
    """The ring slot of score s, now holding lo..hi (the rest of the row is stale: ``_pad``
    writes NULL where a later score reads outside the range)."""
    slot = s % ring
    ring_s[slot], ring_lo[slot], ring_hi[slot] = s, lo, hi
    return slot


@njit(cache=True, nogil=True)
def _row(ring_s, ring_lo, ring_hi, ring, s):
    """(slot, lo, hi) of wavefront s (rows indexed k + n + 1; valid in lo..hi); the spare slot
    ``ring`` with an empty range when s is not there. Slots, not row views: each view costs a
    reference count, and a score takes several."""
    if s >= 0:
        slot = s % ring
        if ring_s[slot] == s:
            return slot, ring_lo[slot], ring_hi[slot]
    return ring, 1 << 40, -(1 << 40)


@njit(cache=True, nogil=True)
def _pad(vals, slot, lo, hi, read_lo, read_hi, c):
    """NULL over the diagonals read_lo..read_hi of a row outside its wavefront's range lo..hi
    (WFA2's "init ends"): a few entries a score, where cleaning a reused row cost a pass over it."""
    for k in range(read_lo, min(read_hi, lo - 1) + 1):
        vals[slot, c + k] = NULL
    for k in range(max(read_lo, hi + 1), read_hi + 1):
        vals[slot, c + k] = NULL


@njit(cache=True, nogil=True, inline="always")
def _affine_cell(out_m, out_i, out_d, mo_l, mo_r, ie_l, de_r, mx, t, lim0, m):
    """I, D and M on one diagonal (``_affine_step``) stored; returns their candidates (I's open,
    I's extend, I, D's open, D's extend, M's mismatch, M), each NULL past the table."""
    null, one, top = np.int32(NULL), np.int32(1), np.int32(m)
    lim = np.int32(lim0 + t)
    g1 = mo_l[t] + one
    g1 = g1 if g1 <= top else null
    g2 = ie_l[t] + one
    g2 = g2 if g2 <= top else null
    d1 = mo_r[t]
    d1 = d1 if d1 <= lim else null
    d2 = de_r[t]
    d2 = d2 if d2 <= lim else null
    g = mx[t] + one
    g = g if g <= top and g <= lim else null
    ins, dele = max(g1, g2), max(d1, d2)
    best = max(g, max(ins, dele))
    out_i[t] = ins if ins >= 0 else null
    out_d[t] = dele if dele >= 0 else null
    out_m[t] = best if best >= 0 else null
    return g1, g2, ins, d1, d2, g, best


@njit(cache=True, nogil=True)
def _affine_step(out_m, out_i, out_d, mo_l, mo_r, ie_l, de_r, mx, count, lim0, m):
    """I, D and M of one score over ``count`` diagonals k = k0 + t (t = 0 ..), in one loop of
    branch-free selects that LLVM vectorises: ``ie_l[t]`` = I[s-e][k-1], ``mo_l[t]`` / ``mo_r[t]``
    = M[s-o-e][k-1] / [k+1], ``de_r[t]`` = D[s-e][k+1], ``mx[t]`` = M[s-x][k] (views shifted by the
    caller, so every index counts up from 0). A candidate past the table (h > m, or v = h - k >
    n, i.e. h > lim0 + t with lim0 = n + k0) is NULL; so is anything below 0 (a NULL plus a few)."""
    for t in range(count):
        _affine_cell(out_m, out_i, out_d, mo_l, mo_r, ie_l, de_r, mx, t, lim0, m)


@njit(cache=True, nogil=True)
def _affine_step_kept(out_m, out_i, out_d, mo_l, mo_r, ie_l, de_r, mx, count, lim0, m, origins):
    """``_affine_step`` for the traceback: also each diagonal's source byte (module doc) to
    origins[t]."""
    for t in range(count):
        g1, g2, ins, d1, d2, g, best = _affine_cell(out_m, out_i, out_d, mo_l, mo_r, ie_l, de_r, mx, t, lim0, m)
        code = SRC_MISMATCH if best == g else (SRC_INS if best == ins else SRC_DEL)
        origins[t] = np.uint8(code | (I_OPENED if g1 >= g2 else 0) | (D_OPENED if d1 >= d2 else 0))


@njit(cache=True, nogil=True)
def _linear_step(out_m, me_l, me_r, mx, count, lim0, m, keep, origins):
    """M of one score for linear costs (``_affine_step``'s conventions): a mismatch from
    ``mx[t]`` = M[s-x][k], an insertion from ``me_l[t]`` = M[s-e][k-1], a deletion from
    ``me_r[t]`` = M[s-e][k+1] (gaps of one letter)."""
    null, one, top = np.int32(NULL), np.int32(1), np.int32(m)
    for t in range(count):
        lim = np.int32(lim0 + t)
        gi = me_l[t] + one
        gi = gi if gi <= top else null
        gd = me_r[t]
        gd = gd if gd <= lim else null
        g = mx[t] + one
        g = g if g <= top and g <= lim else null
        best = max(g, max(gi, gd))
        out_m[t] = best if best >= 0 else null
        if keep:
            origins[t] = np.uint8(SRC_MISMATCH if best == g else (SRC_INS if best == gi else SRC_DEL) | OPENED)


PAD_A, PAD_B = 0xFA, 0xFB  # letters past the ends: equal to nothing


@intrinsic
def _load8(typingctx, codes, index):
    """The eight bytes codes[index .. index+7] as one little-endian uint64 (an unaligned load)."""
    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        pointer = builder.gep(array.data, [args[1]])
        return builder.load(builder.bitcast(pointer, ir.IntType(64).as_pointer()), align=1)
    return types.uint64(codes, index), codegen


@njit(cache=True, nogil=True)
def padded(codes, pad):
    """codes followed by eight ``pad`` bytes (so an 8-byte load at any index 0..len stays inside)."""
    out = np.full(codes.size + 8, pad, dtype=np.uint8)
    copy_into(out[:codes.size], codes)
    return out


@njit(cache=True, nogil=True, inline="always")
def _run(ap, bp, h, v):
    """The offset after the matching letters from (h, v), eight at a time: the first differing
    byte of the loads at a[v] and b[h] ends the run (the pads differ from every letter, so a run
    never passes an end); the count of trailing zero bits finds it without a branch."""
    diff = _load8(ap, v) ^ _load8(bp, h)
    while diff == 0:
        h += 8
        v += 8
        diff = _load8(ap, v) ^ _load8(bp, h)
    return h + (np.int64(trailing_zeros(diff)) >> 3)


@njit(cache=True, nogil=True)
def _extend_step(offsets, ap, bp, count, k0):
    """Follow matching letters from every offset of ``offsets`` (diagonals k0 + t; a view, so
    the index counts from 0 and needs no wrap-around: 0.7 ns a diagonal where indexing the whole
    row took 0.9)."""
    for t in range(count):
        h = offsets[t]
        if h >= 0:
            offsets[t] = _run(ap, bp, h, h - (k0 + t))


@njit(cache=True, nogil=True)
def _reached(offsets, count, k0, n):
    """The first t whose diagonal k0 + t reached the last row (v = n), or -1."""
    for t in range(count):
        if offsets[t] - (k0 + t) == n:
            return t
    return -1


@njit(cache=True, nogil=True)
def _grown(values, size):
    """values with room for at least ``size`` entries (doubling), the first ones kept."""
    if size <= values.size:
        return values
    out = np.empty(max(size, 2 * values.size), values.dtype)
    copy_into(out[:values.size], values)
    return out


@njit(cache=True, nogil=True)
def wfa_forward(ap, bp, n, m, x, o, e, infix_start, gap_start, ends_free, keep, work_cap, memory_cap):
    """Scores s = 0, 1, ... until the end is reached; ``ap``, ``bp``: a (n letters) and b (m)
    ``padded``. ``infix_start``: every column of row 0 is a start (infix); ``gap_start`` (with
    it): also in D at score 0 (the module doc; nothing with linear costs); ``ends_free``: the end
    is any cell of the last row (prefix, infix), else (n, m). ``keep``: keep the source byte of
    every M entry for the traceback. Linear costs
    (o = 0) need no I and D (they are M[s-e] shifted). Stops early with OVER_WORK when the
    diagonals visited exceed ``work_cap`` or OVER_MEMORY when the kept bytes exceed
    ``memory_cap``. Returns (status, score, end k, end h, visited, Trail): the source bytes of
    wavefront s are chunk[s] of ``sources`` from base[s], for k in lo[s]..hi[s]."""
    width = n + m + 3  # k = -n-1 .. m+1 at k + n + 1
    ring = max(x, o + e) + 1
    affine = o > 0
    # rows are written only where used (no pass over the width: _pad keeps the reads exact)
    # slot ``ring`` stands for an absent wavefront (an empty range: _pad writes NULL where read)
    mv = np.empty((ring + 1, width), dtype=np.int32)
    iv = np.empty((ring + 1 if affine else 1, width if affine else 1), dtype=np.int32)
    dv = np.empty((ring + 1 if affine else 1, width if affine else 1), dtype=np.int32)
    m_s, i_s, d_s = np.full(ring, -1, np.int64), np.full(ring, -1, np.int64), np.full(ring, -1, np.int64)
    m_lo, i_lo, d_lo = np.zeros(ring, np.int64), np.zeros(ring, np.int64), np.zeros(ring, np.int64)
    m_hi, i_hi, d_hi = np.full(ring, -1, np.int64), np.full(ring, -1, np.int64), np.full(ring, -1, np.int64)
    sources = List.empty_list(_SOURCES)
    block = np.empty(0, np.uint8)  # the last chunk of sources
    chunk, base = np.empty(64 if keep else 1, np.int64), np.empty(64 if keep else 1, np.int64)
    los, his = np.empty(64 if keep else 1, np.int64), np.empty(64 if keep else 1, np.int64)
    used = 0  # entries kept, all chunks
    at = 0  # entries used in the last chunk
    visited = 0
    k_end = m - n
    c = n + 1  # column of diagonal 0 in a row
    s = 0
    while True:
        sx, mx_lo, mx_hi = _row(m_s, m_lo, m_hi, ring, s - x)
        so, mo_lo, mo_hi = _row(m_s, m_lo, m_hi, ring, s - o - e)
        if s == 0:
            lo, hi = (0, m) if infix_start else (0, 0)
        elif affine:
            si, ie_lo, ie_hi = _row(i_s, i_lo, i_hi, ring, s - e)
            sd, de_lo, de_hi = _row(d_s, d_lo, d_hi, ring, s - e)
            lo = max(min(min(mx_lo, mo_lo - 1), min(ie_lo + 1, de_lo - 1)), -n)
            hi = min(max(max(mx_hi, mo_hi + 1), max(ie_hi + 1, de_hi - 1)), m)
        else:
            lo, hi = max(min(mx_lo, mo_lo - 1), -n), min(max(mx_hi, mo_hi + 1), m)
        span = max(0, hi - lo + 1)
        if keep:
            if s >= base.size:
                chunk, base = _grown(chunk, s + 1), _grown(base, s + 1)
                los, his = _grown(los, s + 1), _grown(his, s + 1)
            if used + span > memory_cap:
                return OVER_MEMORY, s, 0, 0, visited, Trail(sources, chunk, base, los, his)
            if at + span > block.size:  # a new chunk (the old ones stay where they are)
                block = np.empty(max(span, min(CHUNK_MAX, max(CHUNK_MIN, 2 * block.size))), np.uint8)
                sources.append(block)
                at = 0
            chunk[s], base[s], los[s], his[s] = len(sources) - 1, at, lo, hi
        out = _take(m_s, m_lo, m_hi, ring, s, lo, hi)
        origins = block[at:at + span]
        j0, j1 = c + lo, c + hi + 1  # row indices of the range (j1 exclusive)
        offsets = mv[out, j0:j1]
        if s == 0:
            for k in range(lo, hi + 1):
                offsets[k - lo] = k
            if keep:
                origins[:] = SRC_MISMATCH
            if affine and gap_start:  # D[0] = M[0] before the extension (module doc)
                copy_into(dv[_take(d_s, d_lo, d_hi, ring, 0, lo, hi), j0:j1], offsets)
        elif affine:
            _pad(mv, so, mo_lo, mo_hi, lo - 1, hi + 1, c)
            _pad(mv, sx, mx_lo, mx_hi, lo, hi, c)
            _pad(iv, si, ie_lo, ie_hi, lo - 1, hi - 1, c)
            _pad(dv, sd, de_lo, de_hi, lo + 1, hi + 1, c)
            ins = _take(i_s, i_lo, i_hi, ring, s, lo, hi)
            dele = _take(d_s, d_lo, d_hi, ring, s, lo, hi)
            views = (offsets, iv[ins, j0:j1], dv[dele, j0:j1], mv[so, j0 - 1:j1 - 1], mv[so, j0 + 1:j1 + 1],
                     iv[si, j0 - 1:j1 - 1], dv[sd, j0 + 1:j1 + 1], mv[sx, j0:j1], span, n + lo, m)
            if keep:
                _affine_step_kept(*views, origins)
            else:
                _affine_step(*views)
        else:
            _pad(mv, so, mo_lo, mo_hi, lo - 1, hi + 1, c)
            _pad(mv, sx, mx_lo, mx_hi, lo, hi, c)
            _linear_step(offsets, mv[so, j0 - 1:j1 - 1], mv[so, j0 + 1:j1 + 1], mv[sx, j0:j1], span, n + lo, m, keep,
                         origins)
        # ---- extend along matching letters; the end reached?
        _extend_step(offsets, ap, bp, span, lo)
        found = False
        end_k, end_h = 0, 0
        if ends_free:
            first = _reached(offsets, span, lo, n)
            if first >= 0:
                found = True
                end_k, end_h = lo + first, offsets[first]
        elif lo <= k_end <= hi and offsets[k_end - lo] == m:
            found = True
            end_k, end_h = k_end, m
        if keep:
            at += span
            used += span
        visited += span * (3 if affine and s > 0 else 1)
        if found or visited > work_cap:
            return (DONE if found else OVER_WORK), s, end_k, end_h, visited, Trail(
                sources, chunk, base, los, his)
        s += 1


@njit(cache=True, nogil=True, inline="always")
def _source(trail, s, k, held, block):
    """The source byte of (s, k), and the chunk now held (index, array): the walk back stays in
    one chunk for many steps, and taking a chunk from the typed list costs a reference count."""
    at = trail.chunk[s]
    if at != held:
        held, block = at, trail.sources[at]
    return np.int64(block[trail.base[s] + k - trail.lo[s]]), held, block


@njit(cache=True, nogil=True)
def wfa_traceback(ap, bp, n, m, x, o, e, infix_start, score, end_k, end_h, trail):
    """Operation codes (alignment order) of the path to (score, end_k, end_h), and the column of
    b it starts at. The source bytes alone give the path's steps back from the end (score,
    diagonal, operation, length); the offsets are then replayed forward from the start: each
    step's offset is its source's plus the step's shift, then the run of matches (``_run``), as
    the forward pass computed them, so no offset was kept. A D gap extended back to score 0 is
    the gap start's D[0] (none exists without it): the path starts there, in D, with no run of
    matches before the gap."""
    steps_op = np.empty(score + 1, dtype=np.int8)  # a step costs 1 or more (costs divided by their gcd)
    steps_len = np.empty(score + 1, dtype=np.int64)
    count = 0
    s, k = score, end_k
    held, block = -1, np.empty(0, np.uint8)
    in_gap = False  # the path starts in D (the gap start)
    while s > 0:  # back: the steps, last first
        origin, held, block = _source(trail, s, k, held, block)
        origin &= SOURCE
        if origin == SRC_MISMATCH:
            op, length, s = OP_MISMATCH, 1, s - x
        else:  # along the gap's I (or D) entries back to the M that opened it
            op, opened, dk = (OP_INS, I_OPENED, -1) if origin == SRC_INS else (OP_DEL, D_OPENED, 1)
            length = 0
            while True:
                length += 1
                was_open, held, block = _source(trail, s, k, held, block)
                was_open &= opened
                s, k = s - (o + e if was_open else e), k + dk
                if was_open:
                    break
                if s == 0:  # D[0]: the gap start
                    in_gap = True
                    break
        steps_op[count], steps_len[count] = op, length
        count += 1
    start = k if infix_start else 0  # s = 0: the start on diagonal k, row 0
    ops = np.empty(n + m + 1, dtype=np.int8)
    h = start if in_gap else _run(ap, bp, start, start - k)
    ops[:h - start] = OP_MATCH
    total = h - start
    for step in range(count - 1, -1, -1):  # forward: the offsets again
        op, length = steps_op[step], steps_len[step]
        if op == OP_MISMATCH:
            h += 1
        elif op == OP_INS:
            h += length
            k += length
        else:
            k -= length
        ops[total:total + length] = op
        total += length
        p = h
        h = _run(ap, bp, h, h - k)
        ops[total:total + h - p] = OP_MATCH
        total += h - p
    if k != end_k or h != end_h:
        raise AssertionError("WFA traceback: the replay does not reach the end")
    return ops[:total], start


@njit(cache=True, nogil=True)
def wfa_align_codes(a, b, x, o, e, infix_start, gap_start, ends_free, keep, work_cap, memory_cap):
    """``wfa_forward`` and, with ``keep`` and once the end is reached, ``wfa_traceback``, in one
    call: the kept bytes never cross into Python (a batch's threads hold the interpreter lock
    only to enter). Returns (status, score, end h, visited, operation codes, start column)."""
    n, m = a.size, b.size
    ap, bp = padded(a, PAD_A), padded(b, PAD_B)
    status, score, end_k, end_h, visited, trail = wfa_forward(ap, bp, n, m, x, o, e, infix_start, gap_start,
                                                              ends_free, keep, work_cap, memory_cap)
    ops, start = np.empty(0, np.int8), 0
    if status == DONE and keep:
        ops, start = wfa_traceback(ap, bp, n, m, x, o, e, infix_start, score, end_k, end_h, trail)
    return status, score, end_h, visited, ops, start
