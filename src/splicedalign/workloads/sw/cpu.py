"""CPU solvers: ``sequential`` (numba, one core) and ``multicore`` (numba, inter-sequence lanes
across all cores); the kernels are in cpu_kernels."""

from __future__ import annotations

import numba
import numpy as np

from splicedalign.workloads.sw import cpu_kernels as k
from splicedalign.workloads.sw.records import Database, Query, Scoring, fits_int16


class SequentialSolver:
    name = "sequential"

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        out = np.zeros(len(db), dtype=np.int32)
        k.search_sequential(query.codes, db.codes, db.offsets, scoring.table, np.int32(scoring.gap), out)
        return out.astype(np.int64)


class MulticoreSolver:
    name = "multicore"

    def __init__(self, threads: int = 0):
        self.threads = threads or numba.config.NUMBA_NUM_THREADS

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        out = np.zeros(len(db), dtype=np.int32)
        lengths = db.lengths
        order = np.argsort(lengths, kind="stable").astype(np.int64)
        safe = fits_int16(scoring, query.length, lengths[order])
        narrow, wide = order[safe], order[~safe]  # sorted: the safe ones are the shortest
        numba.set_num_threads(self.threads)
        gap = np.int32(scoring.gap)
        if narrow.size:
            out16 = np.zeros(len(db), dtype=np.int16)
            k.search_lanes(query.codes, db.codes, db.offsets, narrow, scoring.table.astype(np.int16),
                           np.int16(scoring.gap), k.LANES16, out16)
            out[narrow] = out16[narrow]
        if wide.size:
            k.search_lanes(query.codes, db.codes, db.offsets, wide, scoring.table, gap, k.LANES32, out)
        return out.astype(np.int64)
