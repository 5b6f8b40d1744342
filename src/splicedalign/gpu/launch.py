"""Batching of test cases into `gpu` launches and the kernel's shape parameters (pure)."""

from __future__ import annotations

from typing import Sequence

from splicedalign.case import TestCase
from splicedalign.gpu.plan import WARP, round_up

# Row storage of one launch (elements); 32-bit offsets and a few GiB of device memory.
ROW_BUDGET = 2**30
# Measured on an H200 (docs/gpu.md): 8 rows per lane (256-row strips) ties 4 on the
# paper-shaped set and is 14% faster on the IL1RAPL1 case, whose critical path runs through
# strips.
ROWS_PER_LANE = 8
RUN_ROWS_PER_LANE = (2, 4, 8, 16)  # compiled variants


def row_elements(case: TestCase, rows_per_lane: int) -> int:
    """Row storage a case needs: one row per strip and one per fold (at most K folds)."""
    P = WARP * rows_per_lane
    lengths = case.last_sorted - case.first_sorted + 1
    strips = int(((lengths + P - 1) // P).sum())
    return (strips + case.K) * int(round_up(case.n + 1))


def batches(cases: Sequence[TestCase], rows_per_lane: int, budget: int = ROW_BUDGET) -> list[list[int]]:
    """Consecutive runs of case indices whose row storage fits ``budget`` (a case that alone
    exceeds it gets a launch of its own)."""
    out: list[list[int]] = []
    used = budget + 1
    for i, c in enumerate(cases):
        size = row_elements(c, rows_per_lane)
        if used + size > budget:
            out.append([])
            used = 0
        out[-1].append(i)
        used += size
    return out


def rows_per_lane(cases: Sequence[TestCase]) -> int:
    """Rows each lane holds in registers for this batch (one choice for every batch shape)."""
    return ROWS_PER_LANE
