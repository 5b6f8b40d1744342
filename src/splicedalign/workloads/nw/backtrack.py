"""Alignments in linear-ish space, shared by the CPU and GPU solvers.

* ``hirschberg``: split a at its middle row, find the column where the forward cost of the top
  half plus the backward cost of the bottom half is least (that cell lies on an optimal path),
  recurse on the two quarters; subproblems of at most ``base_cells`` cells are traced from a
  full table. Memory O(m + base_cells); about twice the score's cell updates.
* ``trace_checkpoints``: when a solver kept the cost rows every ``S`` rows and the cost columns
  every ``C`` columns (the GPU kernel does, as it sweeps), the path is traced block by block
  from the corner: each block on the path is recomputed from its top row and left column and
  traced to its first row or column, which is where the next block up, left or up-left ends.
  Cells recomputed: at most about ``n * C + m * S``.
* ``affine_align`` (gap-affine costs): the H and D rows every K rows are kept as the forward
  pass goes (K from the memory caps below); then, from the corner, each block of K rows is
  recomputed up to the path's column with the source of every state in one byte
  (kernels.affine_block_bits) and walked back (kernels.affine_walk), entering the block above
  in the state (H or D) the path crosses its boundary row in. About twice the score's cells.
* ``region``: prefix and infix modes reduce to a global alignment of a against b[start:end]:
  the mode's forward pass gives the end (first least cost in the last row), and for infix a
  prefix-mode pass of the reversed a against the reversed b[:end] gives the start.
All return operation codes (records.OP_*) in alignment order.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.workloads.nw.cpu_kernels import (
    BIG,
    advance,
    advance_affine,
    affine_block_bits,
    affine_walk,
    trace_block,
)
from splicedalign.workloads.nw.records import OP_DEL, OP_INS, Costs

# advance(a, b, row, i0): turns row = D[i0][*] into D[i0 + len(a)][*] (kernels.advance's shape)
Advance = Callable[[np.ndarray, np.ndarray, np.ndarray, int], None]
BASE_CELLS = 1 << 22  # full-table subproblems up to 4M cells (32 MB of int64)


def first_row(m: int, costs: Costs, offset: int = 0) -> np.ndarray:
    """D[0][offset..offset+m] = indel * j (int64)."""
    return costs.indel * np.arange(offset, offset + m + 1, dtype=np.int64)


def align_full(a: np.ndarray, b: np.ndarray, costs: Costs) -> np.ndarray:
    """Operation codes of an optimal alignment from the full table (small inputs)."""
    ops, i, j = trace_block(a, b, first_row(b.size, costs), first_row(a.size, costs), *costs.as_tuple())
    tail = np.full(i, OP_DEL, dtype=np.int8) if i else np.full(j, OP_INS, dtype=np.int8)
    return np.concatenate([tail, ops[::-1]])


def hirschberg(a: np.ndarray, b: np.ndarray, costs: Costs, forward: Advance,
               base_cells: int = BASE_CELLS) -> np.ndarray:
    """Operation codes of an optimal alignment of a and b in linear space (see module doc)."""
    if a.size * b.size <= base_cells or a.size < 2:
        return align_full(a, b, costs)
    mid = a.size // 2
    top = first_row(b.size, costs)
    forward(np.ascontiguousarray(a[:mid]), b, top, 0)
    bottom = first_row(b.size, costs)
    forward(np.ascontiguousarray(a[mid:][::-1]), np.ascontiguousarray(b[::-1]), bottom, 0)
    split = int(np.argmin(top + bottom[::-1]))
    return np.concatenate([hirschberg(a[:mid], b[:split], costs, forward, base_cells),
                           hirschberg(a[mid:], b[split:], costs, forward, base_cells)])


def sequential_forward(costs: Costs) -> Advance:
    match, mismatch, indel = costs.as_tuple()
    return lambda a, b, row, i0: advance(a, b, row, i0, match, mismatch, indel)


# row(k, c0, c1) = D[k*S][c0..c1]; column(q, r0, r1) = D[r0..r1][q*C] (both int64 arrays)
RowAt = Callable[[int, int, int], np.ndarray]


def trace_checkpoints(a: np.ndarray, b: np.ndarray, costs: Costs, rows_every: int, row_at: RowAt,
                      cols_every: int, column_at: RowAt) -> np.ndarray:
    """Operation codes of an optimal alignment from checkpoint rows and columns (module doc)."""
    match, mismatch, indel = costs.as_tuple()
    i, j = a.size, b.size
    pieces = []
    while i > 0 and j > 0:
        k, q = (i - 1) // rows_every, (j - 1) // cols_every
        r0, c0 = k * rows_every, q * cols_every
        top = first_row(j - c0, costs, c0) if k == 0 else row_at(k, c0, j)
        left = first_row(i - r0, costs, r0) if q == 0 else column_at(q, r0, i)
        ops, bi, bj = trace_block(a[r0:i], b[c0:j], top, left, match, mismatch, indel)
        pieces.append(ops)
        i, j = r0 + bi, c0 + bj
    pieces.append(np.full(i, OP_DEL, dtype=np.int8) if i else np.full(j, OP_INS, dtype=np.int8))
    return np.concatenate(pieces)[::-1].copy()


# ---- any cost model and mode: rows of the forward pass, the region, gap-affine alignment

# Rows(a, b, rows, i0): advances the list of rows ([H] linear, [H, D] affine) past the rows of a
Rows = Callable[[np.ndarray, np.ndarray, list, int], None]
BITS_BYTES = 1 << 28  # the byte-per-cell sources of one recomputed block (affine_align)
CHECKPOINT_BYTES = 1 << 31  # the H and D checkpoint rows of affine_align


def initial_rows(m: int, costs: Costs, mode: str) -> list[np.ndarray]:
    """Row 0 of the forward pass: [H] (linear costs) or [H, D] (affine). H[0][j] = gap(j), or 0
    for every j in infix mode (leading letters of b free)."""
    if mode == "infix":
        h = np.zeros(m + 1, dtype=np.int64)
    else:
        h = costs.gap_open + costs.indel * np.arange(m + 1, dtype=np.int64)
        h[0] = 0
    return [h, np.full(m + 1, BIG, dtype=np.int64)] if costs.affine else [h]


def serial_rows(costs: Costs) -> Rows:
    if costs.affine:
        match, mismatch, gap_open, extend = costs.as_affine()
        return lambda a, b, rows, i0: advance_affine(a, b, rows[0], rows[1], i0, match, mismatch, gap_open, extend)
    match, mismatch, indel = costs.as_tuple()
    return lambda a, b, rows, i0: advance(a, b, rows[0], i0, match, mismatch, indel)


def last_row(a: np.ndarray, b: np.ndarray, costs: Costs, mode: str, forward: Rows,
             on_rows: Callable[[int], None] | None = None, chunk: int | None = None) -> np.ndarray:
    """H[n][0..m] of the mode, the rows advanced ``chunk`` at a time (``on_rows(done)`` after each)."""
    rows = initial_rows(b.size, costs, mode)
    chunk = chunk or max(1, a.size)
    for start in range(0, a.size, chunk):
        forward(np.ascontiguousarray(a[start:start + chunk]), b, rows, start)
        if on_rows:
            on_rows(min(a.size, start + chunk))
    return rows[0]


def end_of(row: np.ndarray, mode: str) -> int:
    return row.size - 1 if mode == "global" else int(np.argmin(row))


def region(a: np.ndarray, b: np.ndarray, costs: Costs, mode: str, forward: Rows) -> tuple[int, int, int]:
    """(score, start, end): an optimal alignment of the mode is a global one of a and b[start:end]."""
    row = last_row(a, b, costs, mode, forward)
    end = end_of(row, mode)
    if mode != "infix":
        return int(row[end]), 0, end
    back = last_row(np.ascontiguousarray(a[::-1]), np.ascontiguousarray(b[:end][::-1]), costs, "prefix", forward)
    length = end_of(back, "prefix")
    if int(back[length]) != int(row[end]):
        raise AssertionError(f"infix: the reverse pass costs {int(back[length])}, the forward {int(row[end])}")
    return int(row[end]), end - length, end


def affine_align(a: np.ndarray, b: np.ndarray, costs: Costs, forward: Rows) -> np.ndarray:
    """Operation codes of an optimal global alignment under gap-affine costs (module doc)."""
    n, m = a.size, b.size
    if n == 0 or m == 0:
        return np.full(n, OP_DEL, dtype=np.int8) if n else np.full(m, OP_INS, dtype=np.int8)
    block = max(1, min(n, BITS_BYTES // (m + 1)))
    blocks = -(-n // block)
    if blocks * (m + 1) * 16 > CHECKPOINT_BYTES:
        raise SolverUnavailable(f"the gap-affine DP alignment of {n:,} x {m:,} needs "
                                f"{blocks * (m + 1) * 16 / 2**30:.1f} GiB of checkpoint rows; use --score-only or a "
                                "cost-adaptive solver (multicore)")
    match, mismatch, gap_open, extend = costs.as_affine()
    ck_h = np.empty((blocks, m + 1), dtype=np.int64)
    ck_d = np.empty((blocks, m + 1), dtype=np.int64)
    rows = initial_rows(m, costs, "global")
    for c in range(blocks):
        ck_h[c], ck_d[c] = rows
        forward(np.ascontiguousarray(a[c * block:(c + 1) * block]), b, rows, c * block)
    bits_buffer = np.empty(block * (m + 1), dtype=np.uint8)
    ops = np.empty(n + m, dtype=np.int8)
    k, i, j, state = 0, n, m, 0
    for c in range(blocks - 1, -1, -1):
        i0 = c * block
        if j == 0 or i <= i0:
            break
        h, d = ck_h[c, :j + 1].copy(), ck_d[c, :j + 1].copy()
        bits = bits_buffer[:(i - i0) * (j + 1)].reshape(i - i0, j + 1)
        affine_block_bits(a[i0:i], b[:j], h, d, i0, match, mismatch, gap_open, extend, bits)
        k, i, j, state = affine_walk(a, b, bits, i0, i, j, state, ops, k)
    tail = np.full(i, OP_DEL, dtype=np.int8) if i else np.full(j, OP_INS, dtype=np.int8)
    return np.concatenate([ops[:k], tail])[::-1].copy()
