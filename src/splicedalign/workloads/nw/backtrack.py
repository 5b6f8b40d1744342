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
Both return operation codes (records.OP_*) in alignment order.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from splicedalign.workloads.nw.cpu_kernels import advance, trace_block
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
