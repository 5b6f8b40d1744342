"""What the GPU solvers share: the int32 range check, the trivial empty-sequence answers, a
batch's lengths and sequences staged for the device (in chunks) and its Results built in bulk."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from concurrent.futures import wait
from dataclasses import fields
from typing import Any, overload

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.gpu import device
from splicedalign.workloads.nw.batches import PairBatch
from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.records import OP_DEL, OP_INS, Costs, Pair, Result, check_mode

INT32_SAFE = 1 << 30  # device scores are int32: every |D| and every sum of two must fit
# A single pair's walk back (nw_wfa's, nw_wfa_cluster's: wfa_common.cuh's walk_back) reads the kept
# wavefronts through windows of up to WALK_STEPS scores (and 2 WALK_DIAGS + 1 diagonals) that the block
# copies into the shared memory the ring and letters leave free: one thread's chain of three dependent
# global loads an operation (~0.43 ms of the 1.27 ms CIGAR kernel at 10^5 1% on an H200) becomes shared
# loads, a window's copy parallel. A batch's blocks (one pair each, many a multiprocessor) walk straight
# from the pool.
WALK_STEPS = 128
WALK_DIAGS = 16
# the letters past a pair's ends: equal to nothing and to each other (4-bit codes: wfa.cu's and wfa_cluster.cu's
# packed letters past a single pair's ends; strips.cu's padding rows and columns, b's below 8: its byte costs of
# b codes 0..7)
PAD_A, PAD_B = 6, 7


def linear_global_only(costs: Costs, mode: str, solver: str) -> None:
    """Section B only: linear costs, global mode (the paper's nw-tiles)."""
    check_mode(mode)
    if costs.affine or mode != "global":
        raise SolverUnavailable(f"{solver} takes linear costs in global mode only "
                                f"(asked: gap-open {costs.gap_open}, mode {mode}); use gpu, multicore or sequential")


def check_range(pair: Pair, costs: Costs, solver: str) -> None:
    if costs.bound(pair.n, pair.m) >= INT32_SAFE:
        raise SolverUnavailable(f"{solver}: costs x lengths exceed the 32-bit device scores "
                                f"(bound {costs.bound(pair.n, pair.m):,}); use sequential")


def trivial(pair: Pair, costs: Costs, solver: str, traceback: bool, mode: str = "global") -> Result:
    """An empty sequence (the device kernels need both lengths >= 1): a empty costs nothing in
    prefix and infix modes and one gap of b in global mode; b empty is one gap of a."""
    if pair.n == 0 and mode != "global":
        return Result(0, 0, solver, 0.0, "" if traceback else None, 0, 0)
    ops = np.full(pair.n, OP_DEL, dtype=np.int8) if pair.n else np.full(pair.m, OP_INS, dtype=np.int8)
    return Result(costs.gap(pair.n + pair.m), pair.cells, solver, 0.0, cigar_string(ops) if traceback else None,
                  0, pair.m)


def screen(pair: Pair, costs: Costs, mode: str, solver: str, traceback: bool, affine_modes: bool = False
           ) -> Result | None:
    """What every GPU solve checks first, in this order: the mode (and, unless the solver takes
    ``affine_modes``, linear costs in global mode), then the answer to an empty sequence (None
    for a pair the device must solve), then the int32 range."""
    check_mode(mode)
    if not affine_modes:
        linear_global_only(costs, mode, solver)
    if pair.n == 0 or pair.m == 0:
        return trivial(pair, costs, solver, traceback, mode)
    check_range(pair, costs, solver)
    return None


def lengths(pairs: Sequence[Pair]) -> tuple[np.ndarray, np.ndarray]:
    """(n, m): the lengths of a and b of each pair (int64 arrays)."""
    if isinstance(pairs, PairBatch):
        return pairs.n.copy(), pairs.m.copy()
    n = np.array([p.a.size for p in pairs], np.int64)  # (the sizes: Pair.n's property calls cost 4x)
    m = np.array([p.b.size for p in pairs], np.int64)
    return n, m


# A batch's sequences go up in chunks, so that the device starts on the first pairs while the
# host gathers the next ones (2,000 pairs of 10 kb: 40 MB, ~7 ms of concatenating on the H100
# and H200 hosts): the first chunk FIRST_CHUNK_BYTES, each next one twice the last, up to
# CHUNK_BYTES (a chunk costs the host ~0.5 ms of calls on the H200 host: 5 chunks for 40 MB).
FIRST_CHUNK_BYTES = 2 << 20
CHUNK_BYTES = 16 << 20
STAGING_ROLES = 3  # pinned buffers a staging rotates through (a chunk's waits for the one 3 before)
# Sequences read by address are copied by the copying threads (batch_copy.copiers: each thread one
# compiled call over its pieces, each flagged when copied), each chunk sent once its pieces are in.
# The chunks: the first PIECES_FIRST_BYTES (the device starts on it after ~0.1 ms of copying), each
# next twice the last, up to PIECES_CHUNK_BYTES; chunk c is cut into min(threads, 2^c) pieces
# (``piece_rows``), so that the first chunks wait only for the first threads to start. Measured on
# the H100 host, 2,000 x 10 kb from strings (40 MB): the copy alone 0.96 ms on 8 threads (42 GB/s;
# 3.5 ms on one), but pieces of 2 MB each copied by one thread (the first chunk by thread 0 alone)
# or every chunk in 8 pieces (each chunk waiting for the last thread to start) had the first
# kernels start 2.4-2.5 ms into the launch, the GPU's 3.3 ms of kernels after them.
PIECES_FIRST_BYTES = 1 << 20
PIECES_CHUNK_BYTES = 16 << 20
# pieces on threads where the sequences can be read by address (False: each chunk gathered on the
# caller's thread when it is sent; the device script's A/B of main's way)
BACKGROUND = True


def pair_sources(pairs: Sequence[Pair]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(n, m, addresses): the pairs' lengths (``lengths``) and, where every sequence of a list
    of ``Pair`` is a byte array (``batch_copy.array_table``: one compiled pass over the arrays,
    where their lengths, types and addresses in Python took ~0.65 ms of a 2,000-pair batch on
    the H100 host), the address of each (a0 b0 a1 b1 ...) for the copying threads; else None."""
    if isinstance(pairs, PairBatch) or not BACKGROUND or not len(pairs):
        return *lengths(pairs), None
    from splicedalign.workloads.nw import batch_copy

    arrays: list[np.ndarray] = [np.empty(0, np.uint8)] * (2 * len(pairs))  # a0 b0 a1 b1 ... (slices: ~2x a
    arrays[0::2], arrays[1::2] = [p.a for p in pairs], [p.b for p in pairs]  # comprehension over both)
    table = batch_copy.array_table(arrays)
    if table is None:
        n, m = lengths(pairs)
        return n, m, batch_copy.array_addresses(arrays, np.stack([n, m], 1).ravel())
    return table[1][0::2].copy(), table[1][1::2].copy(), table[0]


def chunk_bounds(sizes: np.ndarray, first: int | None = None, most: int | None = None) -> list[tuple[int, int]]:
    """Pairs [c0, c1) of each chunk of a batch whose pairs take ``sizes`` bytes each (at least
    one pair a chunk): ``first`` (FIRST_CHUNK_BYTES), then twice the last chunk's limit, up to
    ``most`` (CHUNK_BYTES)."""
    ends = np.cumsum(sizes)
    most = CHUNK_BYTES if most is None else most
    out, c0, limit = [], 0, FIRST_CHUNK_BYTES if first is None else first
    while c0 < sizes.size:
        before = int(ends[c0 - 1]) if c0 else 0
        c1 = max(c0 + 1, int(np.searchsorted(ends, before + limit, side="right")))
        out.append((c0, c1))
        c0, limit = c1, min(2 * limit, most)
    return out


def piece_rows(sizes: np.ndarray, starts: np.ndarray, chunks: list[tuple[int, int]], threads: int) -> np.ndarray:
    """The copying threads' pieces (rows: first sequence, past the last, offset of the first), row
    c * threads + t being thread t's piece of chunk c: chunk c's sequences (``sizes``: n0, m0,
    n1, ... at ``starts``) cut into min(threads, 2^c) pieces of about equal bytes (a sequence in
    the piece of its middle byte), the other rows empty, so that chunk c waits for the first 2^c
    threads alone (the threads start one after another: each takes the GIL to begin). One
    compiled pass (``batch_copy.piece_rows``: NumPy's passes chunk by chunk took ~0.15 ms of the
    staging's making for 6 chunks on the 2-core machine)."""
    from splicedalign.workloads.nw import batch_copy

    return batch_copy.piece_rows(np.ascontiguousarray(sizes, np.int64), np.ascontiguousarray(starts, np.int64),
                                 np.array(chunks, np.int64).reshape(-1, 2), threads)


def concatenate_codes(arrays: list[np.ndarray], out: np.ndarray) -> None:
    """``arrays`` (uint8 codes, or any integers: converted) one after another into ``out``. (Measured
    on the H200 host for 4,000 arrays of 10 kb: 7.6 ms; their addresses alone took 8.3 ms in
    Python, so a compiled copy by address on 16 threads took 9.3; Python threads each
    concatenating a share, 1.6x slower than one: the GIL is taken back after every array.)"""
    try:
        if arrays[0].dtype != np.uint8:  # (the output's dtype is not checked against the first)
            raise TypeError(arrays[0].dtype)
        np.concatenate(arrays, out=out)
    except TypeError:
        np.concatenate([np.asarray(a, np.uint8) for a in arrays], out=out)


def pinned_bytes(size: int) -> np.ndarray:
    """A uint8 array of ``size`` bytes in page-locked memory (CuPy's pinned pool, which keeps a
    freed block for the next batch): a ``PairBatch``'s buffer that the device copies from at full
    speed while the host goes on (``PairBatch.from_strings(..., allocate=pinned_bytes)``)."""
    return device.empty_pinned(max(1, size), np.uint8)[:size]


class Staging:
    """The sequences of a batch (a, b of each pair, in order) in one device byte array ``raw``,
    sent chunk by chunk (``chunks``: pairs [c0, c1) of each; ``send``), on ``stream``; ``finish``
    once every chunk is sent (``send_all``: both). ``sizes``: n0, m0, n1, m1, ... (a
    ``PairBatch``'s own); ``starts``: each sequence's offset in ``raw``, laid out as the host
    buffer; ``letters``: whether ``raw`` holds letters (a ``PairBatch``'s; the device makes the
    codes: wfa.cu's pack kernel), not codes.

    A filled ``PairBatch`` goes from its own buffer in one copy (in chunks, its first kernels
    started ~0.1 ms earlier, the 2,000 x 10 kb batch took 0.2-0.4 ms longer on the H100 host: the
    chunks' calls, more launches). Sequences that can be read by address (a ``PairBatch`` from
    strings, ``unfilled_addresses``; a list of ``Pair`` whose sequences are byte arrays,
    ``batch_copy.array_addresses``) are copied from the staging's making on by the copying
    threads into the pinned host buffer (the batch's own, or the role's), in pieces
    (``piece_rows``; ``batch_copy.copy_pieces``: a thread's pieces in one compiled call without
    the GIL, each flagged when copied), and each chunk is sent once its pieces' flags are up
    (``wait_pieces``, without the GIL): the copies run while the device works on the chunks
    before (a 40 MB batch: ~1 ms of copying on 8 threads on the H100 host; chunk by chunk on the
    caller's thread it took 7.3-9.5 ms inside the launch). ``timeline``: when its making began, its
    sequences' addresses were read and it was made, each copying thread started and each chunk
    was sent (time.perf_counter). Make it where
    the caller waits next (``send``): a thread needs the GIL to start, and waits a switch interval
    (5 ms) for it while the caller runs Python (measured: pieces started before the batch's
    sample made the sample 0.6 -> 1.2-1.9 ms and the batch slower). Other batches have each chunk
    gathered when it is sent (a batch's ``filled``; ``concatenate_codes`` of a list into the
    role's rotating pinned buffers)."""

    def __init__(self, pinned: Any, role: str, pairs: Sequence[Pair], n: np.ndarray, m: np.ndarray,
                 stream: Any, addresses: np.ndarray | None = None) -> None:
        self.timeline: dict[str, Any] = {"begun": time.perf_counter(), "sent": []}
        self.pinned, self.role, self.pairs, self.stream = pinned, role, pairs, stream
        self.batch = pairs if isinstance(pairs, PairBatch) else None
        if self.batch is not None:
            self.sizes, self.starts = self.batch.sizes, self.batch.starts
        else:
            self.sizes = np.stack([n, m], axis=1).reshape(-1)
            self.starts = np.cumsum(self.sizes) - self.sizes
        total = int(self.starts[-1] + self.sizes[-1]) if self.sizes.size else 0
        self.raw = device.cupy().empty(max(1, total), dtype=np.uint8)
        whole = self.batch is not None and self.batch.complete
        self._sent: dict[int, Any] = {}  # chunk -> the event after its copy
        self._jobs: list[Any] = []  # each copying thread's share of the pieces (a future)
        self._threads = 0  # copying threads: chunk c's pieces are rows c * threads .. (c + 1) * threads - 1
        self._done = np.zeros(0, np.int64)  # each piece's flag (core.atomics)
        self._first: tuple[np.ndarray, np.ndarray] | None = None  # (addresses, pieces) of the caller's piece
        addresses, self._host = self._sources(total, addresses) if BACKGROUND and not whole and total else (None, None)
        self.timeline["addressed"] = time.perf_counter()
        if whole and len(pairs):
            self.chunks = [(0, len(pairs))]
        elif addresses is not None:
            self.chunks = chunk_bounds(n + m, PIECES_FIRST_BYTES, PIECES_CHUNK_BYTES)
        else:
            self.chunks = chunk_bounds(n + m)
        if addresses is not None:
            self._start(addresses)
        self.timeline["made"] = time.perf_counter()

    @property
    def letters(self) -> bool:
        """Whether ``raw`` holds letters (a ``PairBatch``'s buffer), not codes."""
        return self.batch is not None

    def _sources(self, total: int, addresses: np.ndarray | None) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(addresses, host): where the sequences can be read by address, each one's address
        (``addresses`` when the caller has them: ``pair_sources``) and the pinned buffer to fill
        (the batch's own, or the role's); else (None, None)."""
        if self.batch is not None:
            addresses = self.batch.unfilled_addresses()
            return (addresses, self.batch.buffer) if addresses is not None else (None, None)
        if addresses is None:
            addresses = pair_sources(self.pairs)[2]
        return (addresses, self.pinned.hold(self.role, [total])[0]) if addresses is not None else (None, None)

    def _start(self, addresses: np.ndarray) -> None:
        """The pieces on the copying threads (``piece_rows``: the t-th thread to start copies
        piece t of each chunk, chunk after chunk), each thread's in one call; chunk 0's one piece
        the caller's (``_copy_first``)."""
        from splicedalign.workloads.nw import batch_copy

        threads, pool = batch_copy.copy_threads(), batch_copy.copiers()
        pieces = piece_rows(self.sizes, self.starts, self.chunks, threads)
        self._threads = threads
        # (empty pieces flagged already: chunk c waits for its 2^c threads alone, not for the others to start)
        self._done = (pieces[:, 0] == pieces[:, 1]).astype(np.int64)
        started = self.timeline["started"] = np.zeros(threads)
        # chunk 0's one piece (row 0) is the caller's, copied at its first wait while the threads start
        self._jobs = [pool.submit(_copy_share, started, t, addresses, self.sizes, self._host, pieces,
                                  np.arange(t if t else threads, len(pieces), threads), self._done)
                      for t in range(threads)]
        self._first = (addresses, pieces)

    def _wait(self, c: int) -> None:
        """Chunk c's pieces copied (their flags read without the GIL; a copying thread's
        exception raised here)."""
        from splicedalign.workloads.nw import batch_copy

        self._copy_first()
        p0, p1 = c * self._threads, (c + 1) * self._threads
        while not batch_copy.wait_pieces(self._done, p0, p1, 1 << 16):
            time.sleep(0)  # (a machine with fewer cores than threads: let the copying threads run)
            for job in self._jobs:
                if job.done():
                    job.result()  # (raises its exception; one that ended well has flagged its pieces)

    def _copy_first(self) -> None:
        """Chunk 0's piece copied on this thread, once (the first chunk on its way without waiting
        for a thread to start: each takes the GIL to begin)."""
        from splicedalign.workloads.nw import batch_copy

        if self._first is not None:
            addresses, pieces = self._first
            self._first = None
            batch_copy.copy_pieces(addresses, self.sizes, self._host, pieces, np.zeros(1, np.int64), self._done)

    def send(self, c: int) -> Any:
        """Chunk c on its way (its pieces waited for, or gathered here; copied on the stream); the
        event after its copy (the first call's: a chunk is sent once)."""
        if c in self._sent:
            return self._sent[c]
        c0, c1 = self.chunks[c]
        at = int(self.starts[2 * c0])
        size = int(self.starts[2 * c1 - 1] + self.sizes[2 * c1 - 1]) - at
        if self._host is not None:  # (by pieces)
            self._wait(c)
            self.raw[at:at + size].set(self._host[at:at + size], stream=self.stream)
        elif size and self.batch is not None:  # (its chunk's letters copied into its buffer first if not yet)
            self.raw[at:at + size].set(self.batch.filled(c1)[at:at + size], stream=self.stream)
        elif size:
            role = (self.role, c % STAGING_ROLES)
            arrays = [s for p in self.pairs[c0:c1] for s in (p.a, p.b)]
            self.pinned.fill(role, size, lambda view: concatenate_codes(arrays, view), self.stream,
                             self.raw[at:at + size])
        self._sent[c] = self.stream.record()
        self.timeline["sent"].append(time.perf_counter())
        return self._sent[c]

    def send_all(self) -> None:
        """Every chunk on its way, in order (``send``), then ``finish``."""
        for c in range(len(self.chunks)):
            self.send(c)
        self.finish()

    def finish(self) -> None:
        """Every piece copied (waited for), the batch's buffer marked filled, the role's buffer
        free for its next use once the copies are done (its next ``hold`` waits for them)."""
        if self._jobs:
            self._copy_first()
            jobs, self._jobs = self._jobs, []
            wait(jobs)
            for job in jobs:
                job.result()  # (a copying thread's exception)
            if self.batch is not None:
                self.batch.mark_filled()
            else:
                self.pinned.sent(self.role, self.stream.record())


def _copy_share(started: np.ndarray, t: int, *args: Any) -> None:
    """A copying thread's pieces (``batch_copy.copy_pieces(*args)``), its start time in started[t]."""
    from splicedalign.workloads.nw import batch_copy

    started[t] = time.perf_counter()
    batch_copy.copy_pieces(*args)


def results(score: list[int], cells: list[int], solver: str, seconds: list[float], cigars: list[str | None],
            start2: list[int], end2: list[int], algorithm: str) -> list[Result]:
    """Many ``Result`` at once, equal to ``Result(...)`` of each: a frozen dataclass's __init__
    sets each of its 8 fields through object.__setattr__ (2,000 Results: 1.4 ms of a batch's
    ~10), where this fills each new instance's __dict__ (0.5 ms)."""
    if _FIELDS != ("score", "cells", "solver", "seconds", "cigar", "start2", "end2", "algorithm"):
        raise AssertionError(f"Result's fields changed ({_FIELDS}): update common.results")
    new, out = object.__new__, []
    for s, c, t, cigar, first, last in zip(score, cells, seconds, cigars, start2, end2):
        r = new(Result)
        d = r.__dict__
        d["score"], d["cells"], d["solver"], d["seconds"] = s, c, solver, t
        d["cigar"], d["start2"], d["end2"], d["algorithm"] = cigar, first, last, algorithm
        out.append(r)
    return out


_FIELDS = tuple(f.name for f in fields(Result))


# CIGARs one after another: a str, or their ASCII bytes as the device wrote them (batch.write_text)
Text = str | memoryview
FEW_ROWS = 64  # a text's rows are decoded each alone when at most 1/FEW_ROWS of them are read


def cut_cigars(text: Text | None, offsets: list[int] | None, rows: Sequence[int]) -> list[str | None]:
    """The CIGARs of ``rows`` in a text of them one after another (row r's: text[offsets[r]:
    offsets[r + 1]]); None each where there is no text (no alignment asked for). Bytes are decoded
    (``as_str``) unless a few rows are read: then each row's alone."""
    if text is None or offsets is None:
        return [None] * len(rows)
    if not isinstance(text, str):
        if len(rows) * FEW_ROWS < len(offsets):
            return [str(text[offsets[r]:offsets[r + 1]], "ascii") for r in rows]
        text = as_str(text)
    return [text[offsets[r]:offsets[r + 1]] for r in rows]


def as_str(text: Text) -> str:
    """The text as a str (ASCII bytes decoded at once)."""
    return text if isinstance(text, str) else str(text, "ascii")


class Columns(Sequence["Result | None"]):
    """A batch's answers as columns, in input order, each ``Result`` made when it is first asked
    for (then kept): the pairs answered (``rows``: pair -> its row of the columns, -1 for none)
    with score, cells, start2, end2 and their CIGARs as one text (str, or ASCII bytes decoded
    when the CIGARs are read: ``cut_cigars``) and its offsets; None for a pair not answered until
    ``[k] = result`` sets it (``missing``: those pairs). 2,000 Results and their CIGAR strings
    made at once cost ~3 ms of a ~14 ms batch on the H200 host; a caller that reads a few
    answers, or goes through them once, no longer waits for all of them."""

    def __init__(self, rows: np.ndarray, score: list[int], cells: list[int], seconds_per_cell: float, solver: str,
                 algorithm: str, start2: list[int], end2: list[int], text: Text | None = None,
                 offsets: list[int] | None = None) -> None:
        self._rows = rows.tolist()
        self._unanswered = np.flatnonzero(rows < 0).tolist()
        self._made: list[Result | None] = [None] * len(self._rows)
        self._score, self._cells, self._share = score, cells, seconds_per_cell
        self._solver, self._algorithm, self._start2, self._end2 = solver, algorithm, start2, end2
        self._text, self._offsets = text, offsets

    @classmethod
    def none(cls, count: int) -> Columns:
        """No pair answered."""
        return cls(np.full(count, -1, np.int64), [], [], 0.0, "", "", [], [])

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, k: int) -> Result | None: ...

    @overload
    def __getitem__(self, k: slice) -> list[Result | None]: ...

    def __getitem__(self, k: int | slice) -> Result | None | list[Result | None]:
        if isinstance(k, slice):
            return [self[x] for x in range(*k.indices(len(self)))]
        made = self._made[k]
        if made is None and self._rows[k] >= 0:
            made = self._made[k] = self._results([self._rows[k]])[0]
        return made

    def __iter__(self) -> Iterator[Result | None]:
        """Every answer, those not made yet made at once (``results``: 2,000 in ~1 ms on the H200
        host, where one by one took ~4 us each)."""
        todo = [k for k, (row, made) in enumerate(zip(self._rows, self._made)) if made is None and row >= 0]
        for k, result in zip(todo, self._results([self._rows[k] for k in todo])):
            self._made[k] = result
        return iter(list(self._made))

    def _results(self, rows: list[int]) -> list[Result]:
        """The Results of ``rows`` of the columns (a text of bytes decoded once for many: kept)."""
        if self._text is not None and len(rows) * FEW_ROWS >= len(self._rows):
            self._text = as_str(self._text)
        cigars = cut_cigars(self._text, self._offsets, rows)
        cells = [self._cells[r] for r in rows]
        return results([self._score[r] for r in rows], cells, self._solver, [self._share * c for c in cells], cigars,
                       [self._start2[r] for r in rows], [self._end2[r] for r in rows], self._algorithm)

    def __setitem__(self, k: int, result: Result) -> None:
        self._made[k] = result

    def missing(self) -> list[int]:
        """The pairs without an answer (in order)."""
        return [k for k in self._unanswered if self._made[k] is None]


def gib(n_bytes: int) -> str:
    return f"{n_bytes / 2**30:.1f} GiB"
