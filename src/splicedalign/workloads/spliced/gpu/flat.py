"""A batch of test cases as flat arrays, made in one pass over the case objects, and their
sequences packed for the device.

The `gpu` solver's host work on a data set it has not seen is linear in its exons and letters;
Python touches each case object a few times and reads each base's exon bounds once
(``TestCase.bounds``: a loader's array, or made from the exons), everything else is NumPy or
compiled (numba), in parallel over cases (the paper-shaped set: 1,010 cases, 52,000 exons, 10.4
MB of bases, 1.5 MB of targets).
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba import njit, prange
from numba.core import types
from numba.extending import intrinsic

from splicedalign.core.alphabet import _lut_base, _lut_target
from splicedalign.core.strmem import str_addresses
from splicedalign.workloads.spliced.records import CaseSet, TestCase, list_sums, same_exons, used_bases

_EXONS, _TARGET, _BASE, _BOUNDS = map(operator.attrgetter, ("exons", "target", "base", "bounds"))
# Cases read in blocks of READ_BLOCK by _read: each block's objects are read while in cache.
READ_BLOCK = 512
_LAID_OUT = "_laid_out_arrays"  # where FlatCases keeps its exons laid out (FlatCases._laid_out)

# The compiled passes over a batch run in parallel over its cases (numba prange). numba's
# workqueue threading layer, the only one always present, aborts the process when two threads
# run parallel code at once (one solver per GPU, each in its own thread): callers of the
# parallel passes hold PARALLEL (re-entrant: build_plan holds it around FlatCases.of). The passes
# here and in plan.py let go of the GIL (nogil): another thread's Python runs meanwhile.
PARALLEL = threading.RLock()
# A compiled pass over fewer than SMALL_PASS exons runs on the calling thread alone (few_threads):
# numba's OpenMP team sleeps once idle for a few thousand spins (core.jit.openmp_team), and the split's
# first pass comes after ~1 ms of Python. Waking the team costs ~0.1 ms on the H100 host (with
# OMP_WAIT_POLICY=passive, a wake at every region, a fed planning's ~45 regions took 3-5 ms more),
# plus each region's start and end; one thread sorts a list's exons in ~7 ns an exon besides the sort
# (dev machine: a paper set's sorted_lists, 12,000-14,300 exons, 0.10-0.13 ms on one thread against
# 0.37 on its 2, whose waking team competes with other processes for the cores), so a paper set
# breaks about even on the H100 host's slower cores and a 10-set call's chunks (~27,000) keep the
# team. The letters' gather (~0.5 ns a letter on one thread: a fed step's 170-220 KB, 0.05-0.14 ms)
# keeps it too: inside a planning it is awake.
SMALL_PASS = 1 << 14


@contextmanager
def few_threads(items: int) -> Iterator[None]:
    """PARALLEL held around compiled passes over ``items`` items, run on this thread alone (numba's
    setting is the thread's own) where they are fewer than SMALL_PASS."""
    with PARALLEL:
        if items >= SMALL_PASS:
            yield
            return
        before = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            yield
        finally:
            numba.set_num_threads(before)


class ExonLists(NamedTuple):
    """Each distinct exon list of a batch once (cases of one base share their candidate exons):
    list i's exons at [start[i], start[i + 1]), in (first, last) order."""
    start: np.ndarray  # (U+1,)
    first: np.ndarray  # (X,) 1-based first row of each exon
    last: np.ndarray   # (X,) its last row
    order: np.ndarray  # (X,) its input index in its list (TestCase.order)

    def sums(self, values: np.ndarray, source: np.ndarray) -> np.ndarray:
        """(C,) the sum of ``values`` (one per exon of the lists) over the exons of each case,
        whose list is ``source`` (records.list_sums)."""
        return list_sums(values, self.start, source)


@dataclass(frozen=True)
class FlatCases:
    """Cases ``cases`` as arrays: exons case after case, each case's in (first, last) order
    (TestCase.order: the solvers' exon order), and each case's distinct base. The exons are
    held once per distinct list (``lists``, each case's at ``source``); ``first``, ``last``
    and ``order`` lay them out case after case when first read, so that a call's split reads
    per-case sums only and each launch lays out its own cases' exons (the 10 sets' 570,000
    exons laid out at once were ~1/3 of the split: fresh pages)."""
    cases: tuple[TestCase, ...]
    K: np.ndarray           # (C,) exons per case
    m: np.ndarray           # (C,) base lengths
    n: np.ndarray           # (C,) target lengths
    exon_start: np.ndarray  # (C+1,) each case's first exon
    base_index: np.ndarray  # (C,) index of each case's base among the distinct ones (by identity)
    bases: tuple[str, ...]  # the distinct bases, in first-use order
    lists: ExonLists        # the distinct exon lists
    source: np.ndarray      # (C,) each case's list in ``lists``

    @classmethod
    def of(cls, cases: Sequence[TestCase] | FlatCases) -> FlatCases:
        if isinstance(cases, FlatCases):
            return cases
        if isinstance(cases, CaseSet):
            return cls._of_columns(cases)
        cases = tuple(cases)
        C = len(cases)
        exons, n, ids = _read(cases)
        # A case whose exons are the previous case's (a base's targets share its candidate
        # exons) takes that case's list: each base's exon bounds are read once. The same tuple
        # by its id (no Python per case); the rest by same_exons.
        eid = np.fromiter(map(id, exons), dtype=np.int64, count=C)
        own = np.ones(C, dtype=bool)
        np.not_equal(eid[1:], eid[:-1], out=own[1:])
        maybe = np.flatnonzero(own[1:]) + 1
        if maybe.size:
            own[maybe] = [not same_exons(exons[i - 1], exons[i]) for i in maybe.tolist()]
        owners = np.flatnonzero(own)
        lists = list(map(_BOUNDS, map(cases.__getitem__, owners.tolist())))
        K_own = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        bounds = np.concatenate(lists) if lists else np.zeros((0, 2), dtype=np.int64)
        base_index, base_first, source, K, exon_start, own_start = _index(ids, own, K_own)
        bases = tuple(map(_BASE, map(cases.__getitem__, base_first.tolist())))
        m = np.fromiter(map(len, bases), dtype=np.int64, count=len(bases))[base_index]
        first, last, order = sorted_lists(own_start, bounds)
        return cls(cases, K, m, n, exon_start, base_index, bases, ExonLists(own_start, first, last, order), source)

    @classmethod
    def _of_columns(cls, cases: CaseSet) -> FlatCases:
        """``of`` of cases with their columns: no case object read (records.CaseSet)."""
        c = cases.columns
        K = np.diff(c.list_start)[c.source]
        exon_start = np.zeros(K.size + 1, dtype=np.int64)
        np.cumsum(K, out=exon_start[1:])
        m = np.fromiter(map(len, c.bases), dtype=np.int64, count=len(c.bases))[c.base_index]
        first, last, order = sorted_lists(c.list_start, c.bounds)
        return cls(cases, K, m, c.n, exon_start, c.base_index, c.bases, ExonLists(c.list_start, first, last, order),
                   c.source)

    @classmethod
    def join(cls, parts: Sequence[FlatCases]) -> FlatCases:
        """The cases of ``parts`` (each one's ``source`` not decreasing, as ``of`` and its
        selects in rising order make it), part after part, as one batch: what ``of`` makes of
        all their cases where the parts are consecutive runs of one list of cases (a call split
        chunk by chunk, GpuSolver._streamed): bases by identity in first-use order, a part's
        first case sharing the previous case's exon list where ``of`` would. Each part's lists
        from its first case's to its last case's are copied once."""
        parts = [p for p in parts if len(p)]
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return cls.of(())
        index: dict[int, int] = {}
        bases: list[str] = []
        base_index, source, starts, columns = [], [], [np.zeros(1, np.int64)], []
        lists = exons = 0
        for i, p in enumerate(parts):
            remap = np.fromiter((index.setdefault(id(b), len(index)) for b in p.bases), np.int64, len(p.bases))
            bases.extend(b for b, j in zip(p.bases, remap.tolist()) if j == len(bases))
            base_index.append(remap[p.base_index])
            lo, hi = int(p.source[0]), int(p.source[-1]) + 1
            shared = i and same_exons(parts[i - 1].cases[-1].exons, p.cases[0].exons)
            source.append(p.source - lo + lists - shared)
            a, b = int(p.lists.start[lo + shared]), int(p.lists.start[hi])
            starts.append(p.lists.start[lo + shared + 1:hi + 1] - a + exons)
            columns.append((p.lists.first[a:b], p.lists.last[a:b], p.lists.order[a:b]))
            lists, exons = lists + hi - lo - shared, exons + b - a
        K = np.concatenate([p.K for p in parts])
        exon_start = np.zeros(K.size + 1, dtype=np.int64)
        np.cumsum(K, out=exon_start[1:])
        first, last, order = (np.concatenate(c) for c in zip(*columns))
        return cls(sum((p.cases for p in parts), ()), K, np.concatenate([p.m for p in parts]),
                   np.concatenate([p.n for p in parts]), exon_start, np.concatenate(base_index), tuple(bases),
                   ExonLists(np.concatenate(starts), first, last, order), np.concatenate(source))

    def __len__(self) -> int:
        return len(self.cases)

    @property
    def _laid_out(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(first, last, order) of every exon, case after case: views of the lists where the
        cases' lists follow each other, else laid out by one compiled pass; made once, kept in
        the instance without a lock. (functools.cached_property holds one lock for every instance
        while it computes, on Python < 3.12: with PARALLEL taken inside it, two threads planning
        at once, a solver per GPU, deadlocked: one in a batch's layout waiting for PARALLEL, the
        other holding PARALLEL and asking another batch's layout. Two threads may both lay out
        one batch: the same arrays.)"""
        got = self.__dict__.get(_LAID_OUT)
        if got is None:
            got = self.__dict__[_LAID_OUT] = self._lay_out()
        return got

    def _lay_out(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        lists, source = self.lists, self.source
        if not source.size:
            return lists.first[:0], lists.last[:0], lists.order[:0]
        if _is_run(source):
            a, b = lists.start[source[0]], lists.start[source[-1] + 1]
            return lists.first[a:b], lists.last[a:b], lists.order[a:b]
        with few_threads(int(self.exon_start[-1])):
            return _segments(lists.start, source, self.exon_start, lists.first, lists.last, lists.order)

    @property
    def first(self) -> np.ndarray:
        """(E,) 1-based first row of each exon, (first, last) order per case."""
        return self._laid_out[0]

    @property
    def last(self) -> np.ndarray:
        """(E,) its last row."""
        return self._laid_out[1]

    @property
    def order(self) -> np.ndarray:
        """(E,) its input index in its case (TestCase.order)."""
        return self._laid_out[2]

    @property
    def exon_case(self) -> np.ndarray:
        return np.repeat(np.arange(len(self)), self.K)

    @property
    def cells(self) -> np.ndarray:
        """(C,) n * Σ|b_k| per case (TestCase.cells)."""
        return self.exon_sums * self.n

    @cached_property
    def exon_sums(self) -> np.ndarray:
        """(C,) Σ|b_k| per case (TestCase.exon_length_sum)."""
        return self.lists.sums(self.lists.last - self.lists.first + 1, self.source)

    def strips(self, rows: int) -> np.ndarray:
        """(C,) strips of up to ``rows`` rows each case's exons take (kept per ``rows``: a
        call's split asks for them more than once)."""
        kept = self.__dict__.setdefault("_strips", {})
        if rows not in kept:
            lists = self.lists
            kept[rows] = lists.sums((lists.last - lists.first + rows) // rows, self.source)
        return kept[rows]

    def longest_paths(self) -> np.ndarray:
        """(C,) each case's longest possible traceback path, n + min(m, Σ|b_k|) moves (chain
        exons do not overlap): the size of its op region, and what its walk costs at most."""
        return self.n + np.minimum(self.m, self.exon_sums)

    def records(self) -> np.ndarray:
        """(E, 3) int64: each exon's input index, first, last (backtrack.exon_records)."""
        return np.stack([self.order, self.first, self.last], axis=1)

    def select(self, idx: Sequence[int]) -> FlatCases:
        """The cases ``idx`` (in that order), as one batch (sharing these exon lists)."""
        idx = np.asarray(idx, dtype=np.int64)
        if idx.size == len(self) and (idx == np.arange(len(self))).all():
            return self
        K = self.K[idx]
        exon_start = np.zeros(idx.size + 1, dtype=np.int64)
        np.cumsum(K, out=exon_start[1:])
        if idx.size and _is_run(idx):  # a run (a launch)
            cases = self.cases[int(idx[0]):int(idx[-1]) + 1]
        else:
            cases = tuple(map(self.cases.__getitem__, idx.tolist()))
        # the bases the cases use, numbered in this batch's order (no sort: they are indices)
        base_index, bases = used_bases(self.base_index[idx], self.bases)
        return FlatCases(cases, K, self.m[idx], self.n[idx], exon_start, base_index, bases, self.lists,
                         self.source[idx])


def _read(cases: tuple[TestCase, ...]) -> tuple[list, np.ndarray, np.ndarray]:
    """(each case's exons, n, its base's id): the case objects read by C-level maps, a block of
    READ_BLOCK cases at a time (a data set's case objects are mostly no longer in the CPU's
    caches: each is then read from memory once, not once per map)."""
    C = len(cases)
    exons: list = []
    n, ids = np.empty(C, np.int64), np.empty(C, np.int64)
    for a in range(0, C, READ_BLOCK):
        block = cases[a:a + READ_BLOCK]
        exons += map(_EXONS, block)
        n[a:a + len(block)] = np.fromiter(map(len, map(_TARGET, block)), dtype=np.int64, count=len(block))
        ids[a:a + len(block)] = np.fromiter(map(id, map(_BASE, block)), dtype=np.int64, count=len(block))
    return exons, n, ids


# Fibonacci hashing's multiplier (2^64 / golden ratio): _index's table of base ids
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def _index(ids, own, K_own):  # pragma: no cover - compiled
    """FlatCases.of's indices from each case's base id ``ids``, whether it has its own exon list
    (``own``) and those lists' sizes ``K_own``: (base_index, each distinct base's first case, in
    first-use order, source, K, exon_start, the lists' start), in one serial pass (NumPy's dozen
    calls, a sort of the ids among them, were ~0.1 ms of a paper set's split). The distinct bases
    by identity: the first case of each run of cases of one base (a base's targets follow each
    other) looked up in an open-addressing table of ids (Fibonacci hashing: a large string's
    address is page-aligned), a new one numbered in turn."""
    C = ids.size
    bits = 4
    while (1 << bits) < 2 * C:
        bits += 1
    mask, shift = (1 << bits) - 1, np.uint64(64 - bits)
    slot_base = np.full(1 << bits, -1, np.int64)
    slot_id = np.empty(1 << bits, np.int64)
    base_first = np.empty(C, np.int64)
    base_index = np.empty(C, np.int64)
    source = np.empty(C, np.int64)
    K = np.empty(C, np.int64)
    exon_start = np.empty(C + 1, np.int64)
    own_start = np.empty(K_own.size + 1, np.int64)
    own_start[0] = exon_start[0] = 0
    for i in range(K_own.size):
        own_start[i + 1] = own_start[i] + K_own[i]
    B, b, s = 0, -1, -1
    for c in range(C):
        if c == 0 or ids[c] != ids[c - 1]:
            i = np.int64((np.uint64(ids[c]) * _GOLDEN) >> shift)
            while slot_base[i] >= 0 and slot_id[i] != ids[c]:
                i = (i + 1) & mask
            if slot_base[i] < 0:
                slot_base[i], slot_id[i], base_first[B] = B, ids[c], c
                B += 1
            b = slot_base[i]
        s += own[c]
        base_index[c] = b
        source[c] = s
        K[c] = K_own[s]
        exon_start[c + 1] = exon_start[c] + K[c]
    return base_index, base_first[:B], source, K, exon_start, own_start


def _is_run(idx: np.ndarray) -> bool:
    """Whether the (non-empty) indices ``idx`` are consecutive, rising by one (its ends checked
    first: a cheap answer for most that are not)."""
    return bool(idx[-1] - idx[0] == idx.size - 1 and (np.diff(idx) == 1).all())


def sorted_lists(start: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first, last, order) of the exons ``bounds`` ((E, 2), list i's at [start[i], start[i + 1])
    in input order), each list sorted by (first, last), ties in input order (np.lexsort's
    order); ``order``: each sorted exon's input index in its list.

    One NumPy sort of (list, first, input index) packed in an int64 per exon (its SIMD sort:
    0.5 ms for the 10 sets' 133,000 exons on one core, where an np.argsort per list in a
    compiled pass was 3.4), as many lists at once as leave their index room, then exons of equal
    first ordered by last (rare: runs of one almost always)."""
    if not bounds.size:
        return tuple(np.zeros(0, np.int64) for _ in range(3))  # type: ignore[return-value]
    first_bits = int(bounds[:, 0].max()).bit_length()
    index_bits = int(np.diff(start).max() - 1).bit_length()
    list_bits = 63 - first_bits - index_bits
    if list_bits < 0:
        raise ValueError(f"exon lists too long ({index_bits} bits) on bases too long ({first_bits} bits) to sort")
    with few_threads(bounds.shape[0]):
        keys = _pack_exons(start, bounds, first_bits, index_bits, list_bits)
        lists = start.size - 1
        for a in range(0, lists, 1 << list_bits):
            keys[start[a]:start[min(a + (1 << list_bits), lists)]].sort()
        return _unpack_exons(start, bounds, keys, index_bits)


@njit(cache=True, parallel=True, nogil=True)
def _pack_exons(start, bounds, first_bits, index_bits, list_bits):  # pragma: no cover - compiled
    """Each exon's (list modulo 2^list_bits, first, input index in its list) in one int64."""
    keys = np.empty(bounds.shape[0], np.int64)
    for c in prange(start.size - 1):
        head = (c & ((1 << list_bits) - 1)) << (first_bits + index_bits)
        for i in range(start[c], start[c + 1]):
            keys[i] = head | (bounds[i, 0] << index_bits) | (i - start[c])
    return keys


@njit(cache=True, parallel=True, nogil=True)
def _unpack_exons(start, bounds, keys, index_bits):  # pragma: no cover - compiled
    """(first, last, order) of the sorted ``keys`` (_pack_exons), exons of equal first put in
    (last, input index) order by insertion."""
    E = keys.size
    first, last, order = np.empty(E, np.int64), np.empty(E, np.int64), np.empty(E, np.int64)
    for c in prange(start.size - 1):
        a = start[c]
        for i in range(a, start[c + 1]):
            k = keys[i] & ((1 << index_bits) - 1)
            f, la, j = bounds[a + k, 0], bounds[a + k, 1], i
            while j > a and first[j - 1] == f and last[j - 1] > la:
                first[j], last[j], order[j] = first[j - 1], last[j - 1], order[j - 1]
                j -= 1
            first[j], last[j], order[j] = f, la, k
    return first, last, order


@njit(cache=True, parallel=True, nogil=True)
def _segments(start, idx, out_start, first, last, order):  # pragma: no cover - compiled
    """(first, last, order) of the exons of cases ``idx``, case after case."""
    E = out_start[-1]
    f, la, o = np.empty(E, np.int64), np.empty(E, np.int64), np.empty(E, np.int64)
    for i in prange(idx.size):
        a = start[idx[i]]
        for k in range(out_start[i + 1] - out_start[i]):
            f[out_start[i] + k], la[out_start[i] + k], o[out_start[i] + k] = first[a + k], last[a + k], order[a + k]
    return f, la, o


def letters(strings: Sequence[str]) -> np.ndarray:
    """The bytes of ``strings`` concatenated (one encode over all of them; a letter outside
    Latin-1 becomes '?', which no alphabet holds)."""
    return np.frombuffer("".join(strings).encode("latin-1", errors="replace"), dtype=np.uint8)


def bad_letter(kind: str, cases: Sequence[TestCase]) -> None:
    """Raise the one-line error of the first case with a letter outside the alphabet in its
    ``kind`` ("base" or "target"): its ``base_codes`` or ``target_codes`` says which and where."""
    for c in cases:
        getattr(c, f"{kind}_codes")
    raise AssertionError("a bad letter no case holds")


def checked_letters(strings: Sequence[str], which: np.ndarray, lo: np.ndarray, hi: np.ndarray, lut: np.ndarray,
                    kind: str, cases: Sequence[TestCase]) -> np.ndarray:
    """The letters ``strings[which[i]][lo[i] - 1:hi[i]]`` of every interval i (1-based
    inclusive bounds) concatenated, each one checked to have a code in ``lut``: a letter outside
    the alphabet raises the case's own one-line error (bad_letter). The codes themselves are
    made on the device (wavefront.cu, encode_inputs). Where CPython holds every string as one
    byte a letter (core.strmem.str_addresses), one compiled pass copies the intervals from the strings' own
    memory, in parallel (Python's slices and join were ~40% of a launch's planning on the H100
    host); else the slices are joined and encoded."""
    at = str_addresses(strings)
    if at is not None:
        raw = np.empty(int((hi - lo).sum()) + len(lo), np.uint8)  # NumPy's: huge pages where the kernel has them
        with PARALLEL:
            bad = _gather_letters(at, which, lo, hi, lut, raw)
    else:  # (rare: a string that is not plain ASCII)
        raw = letters([strings[w][a - 1:b] for w, a, b in zip(which.tolist(), lo.tolist(), hi.tolist())])
        bad = int(np.count_nonzero(lut[raw] == 255))
    if bad:
        bad_letter(kind, cases)
    return raw


@intrinsic
def _byte_at(typingctx, address, index):
    """The byte at ``address + index`` (core.strmem.str_addresses)."""
    def codegen(context, builder, sig, args):
        where = builder.add(args[0], context.cast(builder, args[1], sig.args[1], types.int64))
        return builder.load(builder.inttoptr(where, ir.IntType(8).as_pointer()))
    return types.uint8(types.int64, index), codegen


@intrinsic
def _word_at(typingctx, address, index):
    """The 8 bytes at ``address + index`` (any alignment) as one little-endian word."""
    def codegen(context, builder, sig, args):
        where = builder.add(args[0], context.cast(builder, args[1], sig.args[1], types.int64))
        return builder.load(builder.inttoptr(where, ir.IntType(64).as_pointer()), align=1)
    return types.uint64(types.int64, index), codegen


@intrinsic
def _put_word(typingctx, address, value):
    """Store the word ``value`` at ``address`` (any alignment)."""
    def codegen(context, builder, sig, args):
        builder.store(args[1], builder.inttoptr(args[0], ir.IntType(64).as_pointer()), align=1)
        return context.get_dummy_value()
    return types.none(types.int64, value), codegen


# _gather_letters ORs the codes of the letters it copies: a letter without one (255) sets the
# top bit, which no code has.
assert all(((lut < 128) | (lut == 255)).all() for lut in (_lut_base, _lut_target))


@njit(cache=True, parallel=True, nogil=True)
def _gather_letters(at, which, lo, hi, lut, out):  # pragma: no cover - compiled
    """The letters of every interval from the strings' memory into ``out``; nonzero if one has
    no code (255) in ``lut``. In parallel over intervals, 8 letters a load and a store (one
    letter at a time was ~1 ns a letter: the 10 sets' first launch, 12 MB, 15 ms on one core)."""
    count = which.size
    start = np.zeros(count + 1, np.int64)
    for i in range(count):
        start[i + 1] = start[i] + hi[i] - lo[i] + 1
    dst = out.ctypes.data
    bad = 0
    for i in prange(count):
        base, o, size = at[which[i]] + lo[i] - 1, start[i], start[i + 1] - start[i]
        seen = np.uint8(0)
        words = size // 8 * 8
        for j in range(0, words, 8):
            w = _word_at(base, j)
            _put_word(dst + o + j, w)
            for shift in range(0, 64, 8):
                seen |= lut[(w >> np.uint64(shift)) & np.uint64(255)]
        for j in range(words, size):
            b = _byte_at(base, j)
            out[o + j] = b
            seen |= lut[b]
        bad += seen >> 7
    return bad


BASE_LUT, TARGET_LUT = _lut_base, _lut_target
