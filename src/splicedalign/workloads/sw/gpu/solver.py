"""``gpu`` (ours): inter-sequence database search, CUDASW++ 4.0 style (inter.cu): groups of T
threads per pair of database sequences (two 16-bit lanes per register), R query rows per
thread in registers, sequences sorted by length; a pair whose best may have wrapped 16 bits
is searched again on 32-bit lanes (as CUDASW++ does); linear or affine (Gotoh) gaps, one
kernel variant each.

Many queries go in one call (``scores_many``): the database is uploaded once and every query
runs against it. A database larger than the device memory left to it (``memory_cap``, the
command line's --gpu-memory) goes in chunks of consecutive sequences, each uploaded once and
searched by every query, with the same scores."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from splicedalign.gpu import device
from splicedalign.workloads.sw.gpu.device_db import DeviceDatabase
from splicedalign.workloads.sw.gpu.plan import (
    BLOCK,
    DEFINES,
    SHAPES,
    SMEM_DEFAULT,
    choose_shape,
    inter_profile,
    overflow_bound,
    padded_rows,
    row_stride,
    scratch_bases,
    slice_bytes,
)
from splicedalign.workloads.sw.records import Database, Query, Scoring

KERNEL_FILE = Path(__file__).with_name("inter.cu")
LANES = ("Lane32", "Lane16x2")  # 32-bit lanes, or a pair of 16-bit DPX lanes per thread


def kernel_name(lanes: str, R: int, T: int, affine: bool) -> str:
    """The inter.cu instance of a launch: lanes, R rows per thread, T threads per group,
    affine gaps or linear."""
    return f"sw_inter<{lanes}, {R}, {T}, {'true' if affine else 'false'}>"


# every instance a launch may ask for (any shape: GpuSolver(shape=...) overrides choose_shape)
NAMES = tuple(kernel_name(lanes, R, T, affine) for lanes in LANES for R, T in SHAPES for affine in (False, True))
log = logging.getLogger("splicedalign")
# device bytes per residue of a resident chunk: its code (1), pass-to-pass scratch (up to 2
# buffers x 2 fields x 4 bytes per residue of a group's longest sequence, shared by the
# pair of a 16-bit group or bounded by the residues), and per sequence offsets, order, scores
BYTES_PER_RESIDUE = 1 + 16
BYTES_PER_SEQUENCE = 8 + 4 + 4 + 8
# queries queued together hold their scores on the device until the batch ends: at most this many bytes
QUERY_BATCH_BYTES = 64 << 20


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
                per = max(1, QUERY_BATCH_BYTES // (4 * max(1, len(part))))
                for q0 in range(0, len(queries), per):
                    batch = self.scores_resident_many(queries[q0: q0 + per], part, ddb, scoring)
                    for k, scores in enumerate(batch, start=q0):
                        out[k][a:b] = scores
                del ddb
        return out

    def scores_resident(self, query: Query, db: Database, ddb: DeviceDatabase, scoring: Scoring) -> np.ndarray:
        """Scores against a database already on the device (``ddb`` holds ``db``), as a
        search service keeps it between queries."""
        return self.scores_resident_many([query], db, ddb, scoring)[0]

    def scores_resident_many(self, queries: Sequence[Query], db: Database, ddb: DeviceDatabase,
                             scoring: Scoring, marks: list | None = None) -> list[np.ndarray]:
        """Every query against a resident database with no synchronisation between queries:
        every launch's inputs are uploaded first, then every kernel is queued (one stream, one
        pass-to-pass scratch they share in turn), then one wait and one copy of all scores.
        Pairs run on 16-bit lanes (two per register); the rare pair whose best passes
        plan.overflow_bound may have wrapped and is searched again on 32-bit lanes (one more
        wait, only when there is one), as CUDASW++ 4.0 does. ``marks``, when given, receives a
        CUDA event before each query's launches and one after the last (per-query device times)."""
        cp = self.cp
        lanes = LANES[0] if self.wide_only else LANES[1]
        plans = [[self._launch_plan(ddb, ddb.order, ddb.sorted_lengths, lanes, q, scoring, ddb.scratch)]
                 if len(ddb.sorted_lengths) else [] for q in queries]
        out = cp.full((len(queries), max(1, len(db))), device.POISON, dtype=cp.int32)
        self._run(plans, out, marks)
        scores = cp.asnumpy(out)[:, : len(db)]
        if not self.wide_only:  # the pairs that may have wrapped: again on 32-bit lanes
            bound = overflow_bound(scoring)
            redo = []
            for k, q in enumerate(queries):
                which = np.flatnonzero(scores[k] > bound)
                which = which[np.argsort(-db.lengths[which], kind="stable")]  # longest first
                redo.append([self._launch_plan(ddb, cp.asarray(which.astype(np.int32)), db.lengths[which],
                                               LANES[0], q, scoring, {})] if which.size else [])
            if any(redo):
                self._run(redo, out)
                scores = cp.asnumpy(out)[:, : len(db)]
        if np.any(scores == device.POISON):
            raise RuntimeError("gpu: a database sequence was not scored (kernel fault)")
        return list(scores.astype(np.int64))

    def _run(self, plans: list[list[Launch]], out: Any, marks: list | None = None) -> None:
        """Queue every query's launches (one scratch, used in turn) and wait for them."""
        cp = self.cp
        scratch = cp.empty(max([1] + [launch.scratch_words for plan in plans for launch in plan]), dtype=cp.int32)
        for k, plan in enumerate(plans):
            if marks is not None:
                marks.append(cp.cuda.Event())
                marks[-1].record()
            for launch in plan:
                launch.run(scratch, out[k])
        if marks is not None:
            marks.append(cp.cuda.Event())
            marks[-1].record()
        device.check(cp)

    def _launch_plan(self, ddb: DeviceDatabase, order: Any, lengths: np.ndarray, lanes: str, query: Query,
                     scoring: Scoring, bases: dict) -> Launch:
        """One launch over the sequences ``order`` (device indices, longest first; their
        ``lengths``); ``bases`` keeps the scratch bases of each lane kind for the launches that
        share ``order``."""
        cp = self.cp
        R, T = self.shape or choose_shape(query.length)
        per_group = 2 if lanes == LANES[1] else 1
        mpad = padded_rows(query.length, (R, T))
        dtype = np.int16 if per_group == 2 else np.int32
        prof = cp.asarray(inter_profile(query.codes, scoring, mpad, dtype))
        itemsize = np.dtype(dtype).itemsize
        smem = slice_bytes((R, T), itemsize)
        name = kernel_name(lanes, R, T, scoring.affine)
        kernel = device.function(KERNEL_FILE, name, (name,), DEFINES)
        if smem > SMEM_DEFAULT:
            kernel.max_dynamic_shared_size_bytes = smem
        fields = 2 if scoring.affine else 1
        words = 1
        base_d = None
        if mpad > R * T:  # several passes: bottom rows between them in the scratch
            if per_group not in bases:
                base, rows = scratch_bases(lengths, per_group)
                bases[per_group] = (cp.asarray(base), rows)
            base_d, rows = bases[per_group]
            words = rows * 2 * fields
        if base_d is None:
            base_d = bases.setdefault("none", (cp.zeros(1, dtype=cp.int64), 0))[0]
        groups = -(-len(lengths) // per_group)
        return Launch(kernel, -(-groups * T // BLOCK), smem, ddb, order, len(lengths), prof, mpad,
                      row_stride(R, itemsize), scoring.first_gap, scoring.gap_extend, base_d, words)


@dataclass(frozen=True)
class Launch:
    """One kernel launch of a query over the sequences ``order`` (device indices, longest
    first): its kernel instance, grid, dynamic shared memory (one pass's profile slice), the
    profile and the pass-to-pass scratch it needs (32-bit words)."""
    kernel: Any
    blocks: int
    shared_mem: int
    ddb: DeviceDatabase
    order: Any
    count: int
    profile: Any
    mpad: int
    stride: int
    gap: int
    gap_extend: int
    scratch_bases: Any
    scratch_words: int

    def run(self, scratch: Any, out: Any) -> None:
        """Queue it on the current stream; ``scratch`` holds at least scratch_words words."""
        self.kernel((self.blocks,), (BLOCK,),
                    (self.ddb.codes, self.ddb.offsets, self.order, np.int32(self.count), self.profile,
                     np.int32(self.mpad), np.int32(self.stride), np.int32(self.gap), np.int32(self.gap_extend),
                     scratch, self.scratch_bases, out), shared_mem=self.shared_mem)
