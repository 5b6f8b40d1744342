"""``gpu`` (ours): inter-sequence database search, CUDASW++ 4.0 style (inter.cu): groups of T
threads per database sequence (per pair of sequences with 16-bit lanes), R query rows per
thread in registers, sequences sorted by length; pairs whose scores could exceed 16 bits run
in a 32-bit launch; linear or affine (Gotoh) gaps, one kernel variant each.

Many queries go in one call (``scores_many``): the database is uploaded once and every query
runs against it. A database larger than the device memory left to it (``memory_cap``, the
command line's --gpu-memory) goes in chunks of consecutive sequences, each uploaded once and
searched by every query, with the same scores."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from splicedalign.gpu import device
from splicedalign.workloads.sw.gpu.device_db import DeviceDatabase
from splicedalign.workloads.sw.gpu.plan import (
    BLOCK,
    CODES,
    DEFINES,
    SHAPES,
    SMEM_LIMIT,
    choose_shape,
    inter_profile,
    padded_rows,
    scratch_bases,
    split_point,
)
from splicedalign.workloads.sw.records import Database, Query, Scoring

KERNEL_FILE = Path(__file__).with_name("inter.cu")
LANES = ("Lane32", "Lane16x2")  # 32-bit lanes, or a pair of 16-bit DPX lanes per thread


def kernel_name(lanes: str, R: int, T: int, smem: bool, affine: bool) -> str:
    """The inter.cu instance of a launch: lanes, R rows per thread, T threads per group, the
    profile in shared memory or not, affine gaps or linear."""
    return f"sw_inter<{lanes}, {R}, {T}, {'true' if smem else 'false'}, {'true' if affine else 'false'}>"


# every instance a launch may ask for (any shape: GpuSolver(shape=...) overrides choose_shape)
NAMES = tuple(kernel_name(lanes, R, T, smem, affine) for lanes in LANES for R, T in SHAPES
              for smem in (True, False) for affine in (False, True))
log = logging.getLogger("splicedalign")
# device bytes per residue of a resident chunk: its code (1), pass-to-pass scratch (up to 2
# buffers x 2 fields x 4 bytes per residue of a group's longest sequence, shared by the
# pair of a 16-bit group or bounded by the residues), and per sequence offsets, order, scores
BYTES_PER_RESIDUE = 1 + 16
BYTES_PER_SEQUENCE = 8 + 4 + 4 + 8


class GpuSolver:
    name = "gpu"

    def __init__(self, shape: tuple[int, int] | None = None, wide_only: bool = False,
                 memory_cap: int | None = None) -> None:
        """``shape`` (R, T) overrides the choice of plan.choose_shape; ``wide_only`` runs every
        pair with 32-bit lanes (for measurements); ``memory_cap`` bounds the device memory the
        database and its scratch take (bytes; None: what the device has free)."""
        self.cp = device.cupy()
        self.shape = shape
        self.wide_only = wide_only
        self.memory_cap = memory_cap

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        """Host to host: the database is uploaded on every call."""
        return self.scores_many([query], db, scoring)[0]

    def chunk_ranges(self, db: Database) -> list[tuple[int, int]]:
        """Consecutive sequence ranges that fit the memory budget (one range when the whole
        database does)."""
        budget = device.memory_budget(self.memory_cap)
        need = BYTES_PER_RESIDUE * db.residues + BYTES_PER_SEQUENCE * len(db)
        if need <= budget:
            return [(0, len(db))]
        # two chunks on the device at once: the one searched and the next one uploading
        mean_length = max(1.0, db.residues / max(1, len(db)))
        per = max(1, int(budget / 2 // (BYTES_PER_RESIDUE + BYTES_PER_SEQUENCE / mean_length)))
        longest = int(db.lengths.max()) if len(db) else 0
        device.require_memory(2 * (BYTES_PER_RESIDUE * longest + BYTES_PER_SEQUENCE), budget,
                              "the longest database sequence")
        ranges = db.chunks(per)
        log.info("database of %d residues streamed in %d chunks of <= %d residues (device memory budget %.2f GiB)",
                 db.residues, len(ranges), per, budget / 2**30)
        return ranges

    def scores_many(self, queries: Sequence[Query], db: Database, scoring: Scoring) -> list[np.ndarray]:
        """Every query against the database, chunk by chunk; the next chunk's upload (its own
        stream, from a second thread) overlaps the searches of the current one."""
        out = [np.zeros(len(db), dtype=np.int64) for _ in queries]
        ranges = self.chunk_ranges(db)
        parts = [db if (a, b) == (0, len(db)) else db.subset(a, b) for a, b in ranges]
        # The uploader thread works on this thread's device (a new thread's current device is
        # device 0: a search on another GPU, with --devices, would read device 0's memory).
        with ThreadPoolExecutor(1, initializer=self.cp.cuda.Device().use) as uploader:
            pending = uploader.submit(DeviceDatabase.upload, self.cp, parts[0])
            for c, ((a, b), part) in enumerate(zip(ranges, parts)):
                ddb = pending.result()
                if c + 1 < len(parts):
                    pending = uploader.submit(DeviceDatabase.upload, self.cp, parts[c + 1])
                for k, q in enumerate(queries):
                    out[k][a:b] = self.scores_resident(q, part, ddb, scoring)
                del ddb
        return out

    def scores_resident(self, query: Query, db: Database, ddb: DeviceDatabase, scoring: Scoring) -> np.ndarray:
        """Scores against a database already on the device (``ddb`` holds ``db``), as a
        search service keeps it between queries."""
        cp = self.cp
        out = cp.full(max(1, len(db)), device.POISON, dtype=cp.int32)
        k = len(db) if self.wide_only else split_point(ddb.sorted_lengths, scoring, query.length)
        # wide (32-bit) pairs are the longest: order[:k]; the rest go two per group on 16 bits
        for lanes, a, b in ((LANES[0], 0, k), (LANES[1], k, len(db))):
            if b > a:
                self._launch(ddb, a, b, lanes, query, scoring, out)
        device.check(cp)
        scores = cp.asnumpy(out)[: len(db)].astype(np.int64)
        if np.any(scores == device.POISON):
            raise RuntimeError("gpu: a database sequence was not scored (kernel fault)")
        return scores

    def _launch(self, ddb: DeviceDatabase, a: int, b: int, lanes: str, query: Query, scoring: Scoring,
                out) -> None:
        """One launch over the sequences order[a:b] (longest first)."""
        cp = self.cp
        lengths = ddb.sorted_lengths[a:b]
        R, T = self.shape or choose_shape(query.length, float(lengths.mean()), scoring.affine)
        per_group = 2 if lanes == LANES[1] else 1
        mpad = padded_rows(query.length, (R, T))
        dtype = np.int16 if per_group == 2 else np.int32
        prof = cp.asarray(inter_profile(query.codes, scoring, mpad, dtype))
        smem = CODES * mpad * np.dtype(dtype).itemsize
        use_smem = smem <= SMEM_LIMIT
        name = kernel_name(lanes, R, T, use_smem, scoring.affine)
        kernel = device.function(KERNEL_FILE, name, (name,), DEFINES)
        count = b - a
        groups = -(-count // per_group)
        passes = mpad // (R * T)
        fields = 2 if scoring.affine else 1
        if passes > 1:
            base, rows = scratch_bases(lengths, per_group)
            base_d = cp.asarray(base)
            scratch = cp.empty(max(1, rows * 2 * fields), dtype=cp.uint32 if per_group == 2 else cp.int32)
        else:
            base_d = cp.zeros(1, dtype=cp.int64)
            scratch = cp.empty(1, dtype=cp.uint32 if per_group == 2 else cp.int32)
        blocks = -(-groups * T // BLOCK)
        kernel((blocks,), (BLOCK,),
               (ddb.codes, ddb.offsets, ddb.order[a:b], np.int32(count), prof, np.int32(mpad),
                np.int32(scoring.first_gap), np.int32(scoring.gap_extend), scratch, base_d, out),
               shared_mem=smem if use_smem else 0)
