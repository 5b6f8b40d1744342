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
        k.search_sequential(query.codes, db.codes, db.offsets, scoring.table, np.int32(scoring.gap_open),
                            np.int32(scoring.gap_extend), out)
        return out.astype(np.int64)


MIN_LANE_USE = 0.25  # a SIMD batch filled less than this (letters / lanes x longest) runs scalar


def sparse_batches(sorted_lengths: np.ndarray, lanes: int) -> np.ndarray:
    """Mask of the sequences (in length order) whose batch of ``lanes`` would mostly compute
    padding: an incomplete batch, or one whose lengths spread widely (tiny databases)."""
    mask = np.zeros(sorted_lengths.size, dtype=bool)
    for a in range(0, sorted_lengths.size, lanes):
        batch = sorted_lengths[a: a + lanes]
        if batch.sum() < MIN_LANE_USE * lanes * batch.max():
            mask[a: a + lanes] = True
    return mask


def dealt(count: int, lanes: int, threads: int) -> np.ndarray:
    """Start offsets of the batches of ``lanes`` over ``count`` length-sorted sequences, dealt
    round robin: numba's prange hands each thread one contiguous range of iterations, so
    thread t gets batches t, t + threads, ... and every thread a share of short and long ones
    (contiguous halves kept ~1.4 of 2 cores busy, the long half holding 71% of the work)."""
    starts = np.arange(0, count, lanes, dtype=np.int64)
    return np.concatenate([starts[t::threads] for t in range(threads)]) if starts.size else starts


class MulticoreSolver:
    name = "multicore"

    def __init__(self, threads: int = 0):
        self.threads = threads or numba.config.NUMBA_NUM_THREADS

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        out = np.zeros(len(db), dtype=np.int32)
        lengths = db.lengths
        order = np.argsort(lengths, kind="stable").astype(np.int64)
        numba.set_num_threads(self.threads)
        o, e = np.int32(scoring.gap_open), np.int32(scoring.gap_extend)
        scalar = sparse_batches(lengths[order], k.LANES16)
        if scalar.any():
            # prange hands each thread one contiguous chunk: deal longest first, round robin
            seqs = order[scalar][::-1]
            seqs = np.concatenate([seqs[t:: self.threads] for t in range(self.threads)])
            k.search_scalar_parallel(query.codes, db.codes, db.offsets, seqs, scoring.table, o, e, out)
            order = order[~scalar]
        safe = fits_int16(scoring, query.length, lengths[order])
        narrow, wide = order[safe], order[~safe]  # sorted: the safe ones are the shortest
        if narrow.size:
            out16 = np.zeros(len(db), dtype=np.int16)
            k.search_lanes(query.codes, db.codes, db.offsets, narrow, dealt(narrow.size, k.LANES16, self.threads),
                           scoring.table.astype(np.int16), np.int16(o), np.int16(e), k.LANES16, out16)
            out[narrow] = out16[narrow]
        if wide.size:
            k.search_lanes(query.codes, db.codes, db.offsets, wide, dealt(wide.size, k.LANES32, self.threads),
                           scoring.table, o, e, k.LANES32, out)
        return out.astype(np.int64)
