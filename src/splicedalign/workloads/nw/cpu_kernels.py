"""numba kernels of the CPU solvers: rows of the cost table in linear space, one core or a
wavefront of blocks over all cores, and the traceback of one block from its boundary values.

Scores are int64 (|D| <= max|cost| * (n + m), far inside). Letters are the codes of
``records.Pair`` (a wildcard never equals anything).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from splicedalign.core.arraycopy import copy_into
from splicedalign.workloads.nw.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH


@njit(cache=True, nogil=True)
def advance(a, b, row, i0, match, mismatch, indel):
    """Turn ``row`` = D[i0][0..m] into D[i0 + len(a)][0..m] in place (rows of ``a`` in order)."""
    m = b.size
    for r in range(a.size):
        ai = a[r]
        diag = row[0]
        left = (i0 + r + 1) * indel
        row[0] = left
        for j in range(1, m + 1):
            up = row[j]
            s = diag + (match if ai == b[j - 1] else mismatch)
            v = min(up, left) + indel
            if s < v:
                v = s
            diag = up
            row[j] = v
            left = v


@njit(cache=True, nogil=True)
def _block(a, b, top, left, out_bottom, out_right, match, mismatch, indel):
    """One block: ``top`` = its row above (len(b) + 1 values, [0] the corner), ``left`` = its
    column to the left (len(a) values); writes its bottom row (len(b)) and right column (len(a))."""
    h, w = a.size, b.size
    row = top[1:].copy()
    corner = top[0]
    for r in range(h):
        ai = a[r]
        diag = corner
        lv = left[r]
        corner = lv
        for j in range(w):
            up = row[j]
            s = diag + (match if ai == b[j] else mismatch)
            v = min(up, lv) + indel
            if s < v:
                v = s
            diag = up
            row[j] = v
            lv = v
        out_right[r] = lv
    copy_into(out_bottom, row)


@njit(cache=True, nogil=True)
def trace_block(a, b, top, left, match, mismatch, indel):
    """Traceback inside one block whose boundary is known: ``top`` = D of the row above the
    block (len(b) + 1 values, [0] the corner), ``left`` = D of the column to its left (len(a) + 1
    values, [0] the corner). Starts at the block's last cell (len(a), len(b)), stops on the
    block's first row or column. Returns (ops in reverse alignment order, stop i, stop j)."""
    h, w = a.size, b.size
    table = np.empty((h + 1, w + 1), dtype=top.dtype)
    copy_into(table[0], top)
    for r in range(1, h + 1):
        table[r, 0] = left[r]
        ai = a[r - 1]
        for j in range(1, w + 1):
            s = table[r - 1, j - 1] + (match if ai == b[j - 1] else mismatch)
            v = min(table[r - 1, j], table[r, j - 1]) + indel
            table[r, j] = s if s < v else v
    ops = np.empty(h + w, dtype=np.int8)
    k = 0
    i, j = h, w
    while i > 0 and j > 0:
        here = table[i, j]
        same = a[i - 1] == b[j - 1]
        if here == table[i - 1, j - 1] + (match if same else mismatch):
            ops[k] = OP_MATCH if same else OP_MISMATCH
            i -= 1
            j -= 1
        elif here == table[i - 1, j] + indel:
            ops[k] = OP_DEL
            i -= 1
        else:
            ops[k] = OP_INS
            j -= 1
        k += 1
    return ops[:k], i, j


# ---- gap-affine (Gotoh) kernels: H = min(M, I, D) and D (a letter of a against a gap) kept per row

BIG = np.int64(1) << 60  # "no such state" (far from overflow when costs are added)


@njit(cache=True, nogil=True)
def advance_affine(a, b, h, d, i0, match, mismatch, gap_open, extend):
    """Turn ``h``, ``d`` = H[i0][0..m], D[i0][0..m] into the rows of i0 + len(a) in place: one
    block (``_block_affine``) whose left column is column 0 (gap(i) in H, no I state)."""
    rows = a.size
    left_h = np.empty(rows, dtype=h.dtype)
    left_i = np.full(rows, BIG, dtype=h.dtype)
    for r in range(rows):
        left_h[r] = gap_open + (i0 + r + 1) * extend
    right_h = np.empty(rows, dtype=h.dtype)
    right_i = np.empty(rows, dtype=h.dtype)
    _block_affine(a, b, h, d[1:], left_h, left_i, h[1:], d[1:], right_h, right_i, match, mismatch, gap_open,
                  extend)
    if rows:
        h[0] = left_h[rows - 1]
        d[0] = h[0]


@njit(cache=True, nogil=True)
def affine_block_bits(a, b, h, d, i0, match, mismatch, gap_open, extend, bits):
    """Rows i0+1 .. i0+len(a) of columns 0..len(b) from ``h``, ``d`` (row i0, advanced in place),
    recording per cell (bits[r, j]) where each state came from: bits 0-1 H's source (0 diagonal,
    1 D, 2 I), bit 2 D extends D (else opens from H above), bit 3 I extends I (else opens)."""
    m = b.size
    oe = gap_open + extend
    for r in range(a.size):
        ai = a[r]
        diag = h[0]
        left = gap_open + (i0 + r + 1) * extend
        h[0] = left
        d[0] = left
        ins = BIG
        for j in range(1, m + 1):
            up = h[j]
            code = 0
            dv = up + oe
            if d[j] + extend < dv:
                dv = d[j] + extend
                code = 4
            if ins + extend < left + oe:
                ins = ins + extend
                code |= 8
            else:
                ins = left + oe
            v = diag + (match if ai == b[j - 1] else mismatch)
            if dv < v:
                v = dv
                code |= 1
            if ins < v:
                v = ins
                code = (code & 12) | 2
            bits[r, j] = code
            diag = up
            d[j] = dv
            h[j] = v
            left = v


@njit(cache=True, nogil=True)
def affine_walk(a, b, bits, i0, i, j, state, ops, k):
    """Walk back from cell (i, j) in ``state`` (0 H, 1 D, 2 I) through the block of rows
    i0+1 .. (bits[r] = row i0+1+r) until row i0 or column 0; appends ops (reverse order) at
    ops[k:]. Returns (k, i, j, state) where it stopped."""
    while i > i0 and j > 0:
        code = bits[i - i0 - 1, j]
        if state == 0:
            src = code & 3
            if src == 0:
                ops[k] = OP_MATCH if a[i - 1] == b[j - 1] else OP_MISMATCH
                k += 1
                i -= 1
                j -= 1
            else:
                state = src
        elif state == 1:
            ops[k] = OP_DEL
            k += 1
            if (code & 4) == 0:
                state = 0
            i -= 1
        else:
            ops[k] = OP_INS
            k += 1
            if (code & 8) == 0:
                state = 0
            j -= 1
    return k, i, j, state


@njit(cache=True, nogil=True)
def _block_affine(a, b, top_h, top_d, left_h, left_i, out_bh, out_bd, out_rh, out_ri, match, mismatch,
                  gap_open, extend):
    """``_block`` for Gotoh's costs: ``top_h`` = H of the row above (len(b) + 1, [0] the corner),
    ``top_d`` = its D (len(b)); ``left_h``, ``left_i`` = H and I of the column to the left (len(a));
    writes the bottom H and D rows and the right H and I columns."""
    h, w = a.size, b.size
    oe = gap_open + extend
    hrow = top_h[1:].copy()
    drow = top_d.copy()
    corner = top_h[0]
    for r in range(h):
        ai = a[r]
        diag = corner
        left = left_h[r]
        corner = left
        ins = left_i[r]
        for j in range(w):
            up = hrow[j]
            dv = min(up + oe, drow[j] + extend)
            ins = min(left + oe, ins + extend)
            v = diag + (match if ai == b[j] else mismatch)
            v = min(v, min(dv, ins))
            diag = up
            drow[j] = dv
            hrow[j] = v
            left = v
        out_rh[r] = left
        out_ri[r] = ins
    copy_into(out_bh, hrow)
    copy_into(out_bd, drow)


@njit(cache=True, parallel=True)
def _blocks_wavefront(a, b, h, d, i0, match, mismatch, gap_open, extend, block_rows, strips, affine):
    """The rows of ``a`` over all cores: bands of ``block_rows`` rows x ``strips`` strips of
    columns; block (band r, strip s) needs (r-1, s) and (r, s-1), so the blocks of one
    anti-diagonal r + s = step run in parallel. Band r reads and writes its strip's part of the
    rows (only band r touches it at that step) and hands its right column (H, and I for affine
    costs) to (r, s+1) through ``edge_h`` / ``edge_i``, double-buffered by band parity since
    (r+1, s) writes the next one in the same step. Linear costs: ``gap_open`` 0, ``d`` unused."""
    n, m = a.size, b.size
    strips = max(1, min(strips, m))
    bands = (n + block_rows - 1) // block_rows
    bounds = np.empty(strips + 1, dtype=np.int64)
    for s in range(strips + 1):
        bounds[s] = s * m // strips
    # edge_h[p, s, 0] = corner (row above the band, last column of strip s-1), then the band's rows
    edge_h = np.empty((2, strips + 1, block_rows + 1), dtype=h.dtype)
    edge_i = np.empty((2 if affine else 1, strips + 1, block_rows + 1), dtype=h.dtype)
    corner0 = h[0]
    for step in range(bands + strips - 1):
        lo = max(0, step - strips + 1)
        hi = min(bands - 1, step)
        for r in prange(lo, hi + 1):
            s = step - r
            r0 = r * block_rows
            r1 = min(n, r0 + block_rows)
            c0, c1 = bounds[s], bounds[s + 1]
            p = r & 1
            top_h = np.empty(c1 - c0 + 1, dtype=h.dtype)
            copy_into(top_h[1:], h[c0 + 1:c1 + 1])
            left_h = np.empty(r1 - r0, dtype=h.dtype)
            left_i = np.empty(r1 - r0, dtype=h.dtype)
            if s == 0:
                top_h[0] = corner0 if r0 == 0 else gap_open + (i0 + r0) * extend
                for k in range(r1 - r0):
                    left_h[k] = gap_open + (i0 + r0 + k + 1) * extend
                    left_i[k] = BIG
            else:
                top_h[0] = edge_h[p, s, 0]
                copy_into(left_h, edge_h[p, s, 1:r1 - r0 + 1])
                if affine:
                    copy_into(left_i, edge_i[p, s, 1:r1 - r0 + 1])
            bottom_h = np.empty(c1 - c0, dtype=h.dtype)
            right_h = np.empty(r1 - r0, dtype=h.dtype)
            if affine:
                top_d = d[c0 + 1:c1 + 1].copy()
                bottom_d = np.empty(c1 - c0, dtype=h.dtype)
                right_i = np.empty(r1 - r0, dtype=h.dtype)
                _block_affine(a[r0:r1], b[c0:c1], top_h, top_d, left_h, left_i, bottom_h, bottom_d, right_h,
                              right_i, match, mismatch, gap_open, extend)
                copy_into(edge_i[p, s + 1, 1:r1 - r0 + 1], right_i)
                copy_into(d[c0 + 1:c1 + 1], bottom_d)
            else:
                _block(a[r0:r1], b[c0:c1], top_h, left_h, bottom_h, right_h, match, mismatch, extend)
            edge_h[p, s + 1, 0] = h[c1]
            copy_into(edge_h[p, s + 1, 1:r1 - r0 + 1], right_h)
            copy_into(h[c0 + 1:c1 + 1], bottom_h)
    h[0] = gap_open + (i0 + n) * extend
    if affine:
        d[0] = h[0]


def advance_parallel(a, b, row, i0, match, mismatch, indel, block_rows, strips):
    """``advance`` over all cores (``_blocks_wavefront``)."""
    if a.size == 0 or b.size == 0:
        advance(a, b, row, i0, match, mismatch, indel)
    else:
        _blocks_wavefront(a, b, row, row, i0, match, mismatch, 0, indel, block_rows, strips, False)


def advance_parallel_affine(a, b, h, d, i0, match, mismatch, gap_open, extend, block_rows, strips):
    """``advance_affine`` over all cores (``_blocks_wavefront``)."""
    if a.size == 0 or b.size == 0:
        advance_affine(a, b, h, d, i0, match, mismatch, gap_open, extend)
    else:
        _blocks_wavefront(a, b, h, d, i0, match, mismatch, gap_open, extend, block_rows, strips, True)
