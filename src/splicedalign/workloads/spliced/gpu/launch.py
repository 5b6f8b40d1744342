"""Batching of test cases into `gpu` launches and the kernel's shape parameters (pure)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from splicedalign.workloads.spliced.records import TestCase
from splicedalign.workloads.spliced.gpu.plan import WARP, round_up

# Row storage of one launch (elements); 32-bit offsets and a few GiB of device memory.
ROW_BUDGET = 2**30
# Measured on an H200 (docs/gpu.md): 8 rows per lane (256-row strips) ties 4 on the
# paper-shaped set and is 14% faster on the IL1RAPL1 case, whose critical path runs through
# strips.
ROWS_PER_LANE = 8
RUN_ROWS_PER_LANE = (2, 4, 8, 16)  # compiled variants


def row_elements_many(cases: Sequence[TestCase], rows_per_lane: int) -> np.ndarray:
    """Row storage each case needs: one row per strip and one per fold (at most K folds)."""
    P = WARP * rows_per_lane
    K = np.fromiter((c.K for c in cases), dtype=np.int64, count=len(cases))
    lengths = np.concatenate([c.last_sorted - c.first_sorted for c in cases]) + 1
    strips = np.add.reduceat((lengths + P - 1) // P, np.cumsum(K) - K)
    n = np.fromiter((c.n for c in cases), dtype=np.int64, count=len(cases))
    return (strips + K) * round_up(n + 1)


def row_elements(case: TestCase, rows_per_lane: int) -> int:
    return int(row_elements_many([case], rows_per_lane)[0])


def batches(cases: Sequence[TestCase], rows_per_lane: int, budget: int = ROW_BUDGET) -> list[list[int]]:
    """Consecutive runs of case indices whose row storage fits ``budget`` (a case that alone
    exceeds it gets a launch of its own)."""
    out: list[list[int]] = []
    used = budget + 1
    for i, size in enumerate(row_elements_many(cases, rows_per_lane).tolist()):
        if used + size > budget:
            out.append([])
            used = 0
        out[-1].append(i)
        used += size
    return out


def rows_per_lane(cases: Sequence[TestCase]) -> int:
    """Rows each lane holds in registers for this batch (one choice for every batch shape)."""
    return ROWS_PER_LANE
