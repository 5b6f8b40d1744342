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
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
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
    choose_shape,
    inter_profile,
    lane_word,
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
# device bytes per residue: its code, and per stream searching it the pass-to-pass scratch (2
# buffers x 2 fields x 4 bytes per row of a group's longest sequence: 16 with 32-bit lanes, one
# sequence a group; a 16-bit pair's group shares its rows, about half that); per sequence the
# offsets, order, scores and slack
CODE_BYTES = 1
SCRATCH_BYTES = 16
BYTES_PER_RESIDUE = CODE_BYTES + SCRATCH_BYTES  # a resident database searched on one stream
BYTES_PER_SEQUENCE = 8 + 4 + 4 + 8
# A streamed database's launches alternate between two streams, so that one launch's tail (its
# longest sequences' blocks, a chunk's launch is short) runs beside the next launch's blocks; a
# block-scheduling model (scripts/sw_stream_model.py) of 8 chunks x 4 queries (Swiss-Prot
# lengths) gives 1.96x the resident kernel time on one stream (an H100 measured ~1.96x),
# 1.10x on two with no wait between chunks, 1.01x with 5 chunks.
STREAMS = 2
# A streamed database's first chunk is this fraction of the others: its upload runs before any
# search (a fifth of a 200 M-residue database at a quarter of its footprint: ~40 MB through the
# pinned staging buffers, ~10% of 4 queries' search), the later ones while the previous chunk is
# searched. H100, 4 queries (464 ... 729) at a quarter of the footprint: 0.126 s against 0.130 s
# with equal chunks (the resident search alone: 0.100 s).
FIRST_CHUNK_SHARE = 4
# queries queued together hold their scores on the device until the batch ends: at most this many bytes
QUERY_BATCH_BYTES = 64 << 20


def queue_order(queries: Sequence[Query]) -> list[int]:
    """Query indices in the order their launches are queued: longest first (ties in input
    order), so that the last query's scores, and with them the hits' alignments that wait for
    them, belong to the shortest query."""
    return sorted(range(len(queries)), key=lambda k: -queries[k].length)


def query_batches(order: list[int], sequences: int) -> list[list[int]]:
    """``order`` cut into the batches queued together against a chunk of ``sequences``: a
    batch's scores (int32, a row per query) stay on the device until it ends."""
    per = max(1, QUERY_BATCH_BYTES // (4 * max(1, sequences)))
    return [order[a: a + per] for a in range(0, len(order), per)]


@dataclass
class _Step:
    """A batch of queries queued against one resident chunk: the queries (call indices, queue
    order), the chunk, its device copy, the scores (a row per query), the event after each
    query's launch, and the launches (None against an empty chunk; their inputs stay alive
    until the scores are collected)."""
    queries: list[int]
    chunk: int
    part: Database
    ddb: DeviceDatabase
    out: Any
    done: list[Any]
    plans: list[Launch | None]


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

    def footprint(self, db: Database) -> int:
        """Device bytes of ``db`` resident and searched (one stream)."""
        return BYTES_PER_RESIDUE * db.residues + BYTES_PER_SEQUENCE * len(db)

    def chunk_ranges(self, db: Database) -> list[tuple[int, int]]:
        """Consecutive sequence ranges that fit the memory budget (one range when the whole
        database does)."""
        budget = device.memory_budget(self.memory_cap)
        if self.footprint(db) <= budget:
            return [(0, len(db))]
        # two chunks' codes on the device at once (the one searched, the next one uploading) and
        # the scratch of each stream
        scratch = SCRATCH_BYTES if self.wide_only else SCRATCH_BYTES // 2
        per_residue = 2 * CODE_BYTES + STREAMS * scratch
        mean_length = max(1.0, db.residues / max(1, len(db)))
        per = max(1, int(budget // (per_residue + 2 * BYTES_PER_SEQUENCE / mean_length)))
        longest = int(db.lengths.max()) if len(db) else 0
        device.require_memory((per_residue + STREAMS * SCRATCH_BYTES) * longest + 2 * BYTES_PER_SEQUENCE, budget,
                              "the longest database sequence")
        # the first chunk's upload is the only one no search hides: a fraction of the others'
        ranges = db.chunks(per, max(1, per // FIRST_CHUNK_SHARE))
        log.info("database of %d residues streamed in %d chunks of <= %d residues (device memory budget %.2f GiB)",
                 db.residues, len(ranges), per, budget / 2**30)
        return ranges

    def scores_many(self, queries: Sequence[Query], db: Database, scoring: Scoring,
                    ready: Callable[[int, np.ndarray], None] | None = None) -> list[np.ndarray]:
        """Every query against the database, chunk by chunk; the next chunk's upload (its own
        stream, from a second thread) overlaps the searches of the current one, and its
        launches are queued before the current chunk's scores are collected (the GPU does not
        wait for the host between chunks). ``ready(k, scores)`` is called (in this thread) as
        soon as query k's scores are final: the longest queries are queued first, so the last
        one ready is the shortest."""
        ranges = self.chunk_ranges(db)
        parts = [db if (a, b) == (0, len(db)) else db.subset(a, b) for a, b in ranges]
        # The uploader thread works on this thread's device (a new thread's current device is
        # device 0: a search on another GPU, with --devices, would read device 0's memory).
        with ThreadPoolExecutor(1, initializer=self.cp.cuda.Device().use) as uploader:
            return self._search(queries, parts, ranges, lambda part: uploader.submit(self._upload, part), scoring,
                                STREAMS if len(parts) > 1 else 1, ready=ready)

    def scores_resident(self, query: Query, db: Database, ddb: DeviceDatabase, scoring: Scoring) -> np.ndarray:
        """Scores against a database already on the device (``ddb`` holds ``db``), as a
        search service keeps it between queries."""
        return self.scores_resident_many([query], db, ddb, scoring)[0]

    def scores_resident_many(self, queries: Sequence[Query], db: Database, ddb: DeviceDatabase,
                             scoring: Scoring, marks: dict | None = None,
                             ready: Callable[[int, np.ndarray], None] | None = None) -> list[np.ndarray]:
        """Every query against a resident database with no synchronisation between queries: the
        one-chunk case of ``_search`` (one stream, one pass-to-pass scratch the launches share in
        turn, longest query first; ``_queue``: the first launch goes as soon as its inputs are on
        the device, the others' inputs follow while it runs), then each query's scores are
        copied back as soon as its launches are done (``ready(k, scores)``, while the GPU runs
        the later ones). ``marks``, when given, receives per query k a CUDA event before and one
        after its launches (its device time)."""
        self.cp.cuda.Stream.null.synchronize()  # ddb's copies on the default stream are done
        resident: Future[DeviceDatabase] = Future()
        resident.set_result(ddb)
        return self._search(queries, [db], [(0, len(db))], lambda part: resident, scoring, 1, marks, ready)

    def _search(self, queries: Sequence[Query], parts: list[Database], ranges: list[tuple[int, int]],
                upload: Callable[[Database], Future[DeviceDatabase]], scoring: Scoring, streams: int,
                marks: dict | None = None, ready: Callable[[int, np.ndarray], None] | None = None
                ) -> list[np.ndarray]:
        """Every query against the chunks ``parts`` (the database's sequences ``ranges``), each
        on the device by ``upload`` (the next one's asked for while the current one is
        searched), with ``streams`` launch streams: a batch of queries is queued before the
        previous batch's scores are collected; a chunk is freed once its last batch is."""
        out = [np.zeros(ranges[-1][1], dtype=np.int64) for _ in queries] if len(parts) > 1 else [None] * len(queries)
        launch_streams = self._streams(streams)
        batches = query_batches(queue_order(queries), max(len(p) for p in parts))
        steps = [(c, batch) for c in range(len(parts)) for batch in batches]

        def collected(step: _Step) -> None:
            (a, b), final = ranges[step.chunk], step.chunk == len(parts) - 1
            for k, scores in self._collect(step, queries, scoring):
                if out[k] is None:
                    out[k] = scores
                else:
                    out[k][a:b] = scores
                if final and ready is not None:
                    ready(k, out[k])

        uploads: dict = {c: upload(parts[c]) for c in range(min(2, len(parts)))}
        queued: _Step | None = None
        for c, batch in steps:
            step = self._queue(batch, c, queries, parts[c], uploads[c].result(), scoring, launch_streams, marks)
            if queued is not None:
                collected(queued)
                if queued.chunk != c:  # its chunk is done (steps go chunk by chunk): free it, upload
                    # the one after next
                    del uploads[queued.chunk]
                    queued = None
                    if c + 1 < len(parts) and c + 1 not in uploads:
                        uploads[c + 1] = upload(parts[c + 1])
            queued = step
            del step
        if queued is not None:
            collected(queued)
        device.check(self.cp)
        self._scratch = {}
        return out

    def _streams(self, count: int) -> list[Any]:
        """``count`` streams for the launches; each gets its pass-to-pass scratch on first use
        (grown when a launch needs more, made on its own stream: CuPy's pool reuses a block only
        in the order of the stream it was made on). The solver's streams (made once: a block
        freed on a stream is reused on that stream only) are the launch streams, one for
        launch inputs and the copies back (``_side``) and one for uploads; none waits for the
        legacy default stream."""
        cp = self.cp
        if not hasattr(self, "_side"):
            self._side, self._uploads = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
            self._launches = [cp.cuda.Stream(non_blocking=True) for _ in range(STREAMS)]
        self._scratch: dict = {}  # a call's scratch is freed at its end
        return self._launches[:count]

    def _upload(self, part: Database) -> DeviceDatabase:
        """``part`` on the device, its copies finished (the launches run on other streams)."""
        with self._uploads:
            ddb = DeviceDatabase.upload(self.cp, part)
        self._uploads.synchronize()
        return ddb

    def _queue(self, batch: Sequence[int], chunk: int, queries: Sequence[Query], part: Database,
               ddb: DeviceDatabase, scoring: Scoring, streams: list[Any], marks: dict | None = None) -> _Step:
        """Queue the launches of the queries ``batch`` against a resident chunk, the queries
        alternating between ``streams``; their inputs (profiles, scores filled with POISON)
        are on the device first. The first query's launch goes as soon as its own inputs are
        there: the GPU runs it while the host plans the others (20 queries: ~17 ms of host
        work, 1% of their search on an H100)."""
        cp = self.cp
        lanes = LANES[0] if self.wide_only else LANES[1]
        with self._side:
            out = cp.full((len(batch), max(1, len(part))), device.POISON, dtype=cp.int32)
        plans: list[Launch | None] = []
        done = []
        for rows in (range(min(1, len(batch))), range(1, len(batch))):
            with self._side:
                plans += [self._launch_plan(ddb, ddb.order, ddb.sorted_lengths, lanes, queries[batch[row]], scoring,
                                            ddb.scratch) if len(ddb.sorted_lengths) else None for row in rows]
            self._side.synchronize()
            for row in rows:
                stream = streams[row % len(streams)]
                self._launch(stream, plans[row], out[row], marks, batch[row])
                done.append(stream.record())
        return _Step(list(batch), chunk, part, ddb, out, done, plans)

    def _launch(self, stream: Any, launch: Launch | None, out_row: Any, marks: dict | None = None,
                k: int = 0) -> None:
        """Queue ``launch`` (if any) on ``stream`` with that stream's scratch."""
        cp = self.cp
        with stream:
            need = max(1, launch.scratch_words if launch is not None else 1)
            scratch = self._scratch.get(id(stream))
            if scratch is None or scratch.size < need:
                scratch = self._scratch[id(stream)] = cp.empty(need, dtype=cp.int32)
            start = stream.record() if marks is not None else None
            if launch is not None:
                launch.run(scratch, out_row)
            if marks is not None:
                marks[k] = (start, stream.record())

    def _collect(self, step: _Step, queries: Sequence[Query], scoring: Scoring) -> Iterator[tuple[int, np.ndarray]]:
        """(k, scores) of each query of ``step`` in queue order, as soon as its launches are
        done (the copy waits for its event only). Pairs ran on 16-bit lanes (two per register);
        the rare pair whose best passes plan.overflow_bound may have wrapped and is searched
        again on 32-bit lanes, as CUDASW++ 4.0 does (on the side stream, with a scratch of its
        own: beyond the memory budget only if most of a chunk's pairs score above 32,000)."""
        cp, side, n = self.cp, self._side, len(step.part)
        bound = overflow_bound(scoring)

        def fetched(row: int) -> np.ndarray:
            scores = step.out[row].get(stream=side)[:n]
            side.synchronize()
            return scores

        for row, k in enumerate(step.queries):
            side.wait_event(step.done[row])
            scores = fetched(row)
            which = np.zeros(0, np.int64) if self.wide_only else np.flatnonzero(scores > bound)
            if which.size:  # the pairs that may have wrapped, on the side stream (runs beside the launches)
                which = which[np.argsort(-step.part.lengths[which], kind="stable")]  # longest first
                with side:
                    wide = self._launch_plan(step.ddb, cp.asarray(which.astype(np.int32)), step.part.lengths[which],
                                             LANES[0], queries[k], scoring, {})
                self._launch(side, wide, step.out[row])
                scores = fetched(row)
            if np.any(scores == device.POISON):
                raise RuntimeError("gpu: a database sequence was not scored (kernel fault)")
            yield k, scores.astype(np.int64)

    def _launch_plan(self, ddb: DeviceDatabase, order: Any, lengths: np.ndarray, lanes: str, query: Query,
                     scoring: Scoring, bases: dict) -> Launch:
        """One launch over the sequences ``order`` (device indices, longest first; their
        ``lengths``); ``bases`` keeps the scratch bases of each lane kind for the launches that
        share ``order``."""
        cp = self.cp
        R, T = self.shape or choose_shape(query.length)
        per_group = 2 if lanes == LANES[1] else 1
        mpad = padded_rows(query.length, (R, T))
        dtype = np.uint32 if per_group == 2 else np.int32
        prof = cp.asarray(inter_profile(query.codes, scoring, mpad, dtype))
        itemsize = np.dtype(dtype).itemsize
        smem = slice_bytes((R, T), itemsize)
        name = kernel_name(lanes, R, T, scoring.affine)
        kernel = device.function(KERNEL_FILE, name, (name,), DEFINES)
        device.allow_shared_memory(kernel, smem)
        fields = 2 if scoring.affine else 1
        if mpad > R * T:  # several passes: bottom rows between them in the scratch
            if per_group not in bases:
                base, rows = scratch_bases(lengths, per_group)
                bases[per_group] = (cp.asarray(base), rows)
            base_d, rows = bases[per_group]
            words = rows * 2 * fields
        else:
            base_d, words = bases.setdefault("none", (cp.zeros(1, dtype=cp.int64), 0))[0], 1
        groups = -(-len(lengths) // per_group)
        return Launch(kernel, -(-groups * T // BLOCK), smem, ddb, order, len(lengths), prof, mpad,
                      row_stride(R, itemsize), lane_word(-scoring.first_gap, per_group == 2),
                      lane_word(-scoring.gap_extend, per_group == 2), base_d, words)


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
    neg_gap: int
    neg_extend: int
    scratch_bases: Any
    scratch_words: int

    def run(self, scratch: Any, out: Any) -> None:
        """Queue it on the current stream; ``scratch`` holds at least scratch_words words."""
        self.kernel((self.blocks,), (BLOCK,),
                    (self.ddb.codes, self.ddb.offsets, self.order, np.int32(self.count), self.profile,
                     np.int32(self.mpad), np.int32(self.stride), np.int32(self.neg_gap), np.int32(self.neg_extend),
                     scratch, self.scratch_bases, out), shared_mem=self.shared_mem)
