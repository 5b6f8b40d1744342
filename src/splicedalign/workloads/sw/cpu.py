"""CPU solvers: ``sequential`` (numba, one core) and ``multicore`` (numba, inter-sequence
saturating SIMD lanes across all cores); the kernels are in cpu_kernels."""

from __future__ import annotations

import numba
import numpy as np

from splicedalign.core.simd import LOOKUP_ENTRIES, lanes
from splicedalign.workloads.sw import cpu_kernels as k
from splicedalign.workloads.sw.matrices import CODES
from splicedalign.workloads.sw.records import Database, Query, Scoring


class SequentialSolver:
    name = "sequential"

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        out = np.zeros(len(db), dtype=np.int32)
        k.search_sequential(query.codes, db.codes, db.offsets, scoring.table, np.int32(scoring.gap_open),
                            np.int32(scoring.gap_extend), out)
        return out.astype(np.int64)


LANE_TYPES = (np.int8, np.int16)  # the first pass, then the re-run of the lanes that reached the maximum


def lane_table(scoring: Scoring, dtype) -> np.ndarray:
    """Row a: letter a's score against every code, clipped to ``dtype`` (the padding code gets
    the type's minimum), as a vector of ``lanes(dtype)`` entries for core.simd.lookup."""
    info = np.iinfo(dtype)
    assert CODES <= LOOKUP_ENTRIES <= lanes(dtype)
    out = np.full((CODES, lanes(dtype)), info.min, dtype=dtype)
    out[:, :CODES] = np.clip(scoring.table, info.min, info.max)
    return out


def round_robin(items: np.ndarray, threads: int) -> np.ndarray:
    """``items`` reordered so that numba's prange, which hands each thread one contiguous range
    of iterations, gives thread t items t, t + threads, ...: with items sorted by size every
    thread gets a share of small and large ones (contiguous halves kept ~1.4 of 2 cores busy,
    the long half holding 71% of the work)."""
    return np.concatenate([items[t::threads] for t in range(threads)]) if items.size else items


def dealt(count: int, lanes: int, threads: int) -> np.ndarray:
    """Start offsets of the batches of ``lanes`` over ``count`` length-sorted sequences, dealt
    round robin."""
    return round_robin(np.arange(0, count, lanes, dtype=np.int64), threads)


class MulticoreSolver:
    name = "multicore"

    def __init__(self, threads: int = 0):
        self.threads = threads or numba.config.NUMBA_NUM_THREADS

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        out = np.zeros(len(db), dtype=np.int32)
        numba.set_num_threads(self.threads)
        order = np.argsort(db.lengths, kind="stable").astype(np.int64)
        for dtype in LANE_TYPES:
            ceiling = np.iinfo(dtype).max
            if not order.size or scoring.first_gap > ceiling:
                continue
            k.search_saturating(query.codes, db.codes, db.offsets, order, dealt(order.size, lanes(dtype), self.threads),
                                lane_table(scoring, dtype), dtype(scoring.first_gap), dtype(scoring.gap_extend), out)
            order = order[out[order] >= ceiling]
        if order.size:  # scores that may exceed 16 bits: int32, the sequential sweep across cores, longest first
            k.search_scalar_parallel(query.codes, db.codes, db.offsets, round_robin(order[::-1], self.threads),
                                     scoring.table, np.int32(scoring.gap_open), np.int32(scoring.gap_extend), out)
        return out.astype(np.int64)
