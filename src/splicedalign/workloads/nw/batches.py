"""A batch of pairs in one buffer (``PairBatch``): the letters of every sequence as given (seq1
and seq2 of the first pair, then of the second, ...) one after another, with their sizes and
the pairs' names. ``nw --pairs`` and the in-process API (``PairBatch.from_strings``) make one,
and any solver takes it as a sequence of ``Pair``: a pair's codes are made when it is asked for
(core.alphabet, InputError naming the record on a bad letter). The GPU batch sends the buffer
itself, in chunks, and turns letters into codes on the device (wfa.cu's pack kernel), so that
nothing per pair happens on the host: 2,000 pairs of 10 kb are 40 MB, whose copies into one
buffer string by string cost 4.2 ms on the 2-core machine, where joining them into one string
and encoding it took 38 ms (a fresh 40 MB is ~10,000 page faults a pass) and translating the
letters into codes on the host 14-60 ms more.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import overload

import numpy as np

from splicedalign.core.alphabet import IUPAC, encode_base, encode_target
from splicedalign.core.strmem import str_addresses
from splicedalign.workloads.nw.records import Pair

Allocate = Callable[[int], np.ndarray]  # a uint8 array of that many bytes (e.g. page-locked memory)
BAD = 255  # a byte's code in ``letter_tables`` when it is no letter of the alphabet


def letter_tables() -> tuple[bytes, bytes]:
    """(a's, b's): each byte's code (core.alphabet's base and target codes of the IUPAC letters,
    either case) for bytes.translate, BAD for any other byte."""
    letters = "".join(sorted(IUPAC)) + "".join(sorted(IUPAC)).lower()
    tables = []
    for codes in (encode_base(letters), encode_target(letters)):
        table = bytearray([BAD]) * 256
        for letter, code in zip(letters.encode("ascii"), codes.tolist()):
            table[letter] = code
        tables.append(bytes(table))
    return tables[0], tables[1]


_TABLE_A, _TABLE_B = letter_tables()


class PairBatch(Sequence[Pair]):
    """Pairs whose sequences' letters lie in one uint8 buffer (``letters``: a0 b0 a1 b1 ...;
    ``sizes``: n0 m0 n1 m1 ...; ``starts``: each sequence's offset), in input order. Made from
    strings, the buffer is filled when it is first read, or pair by pair in order (``filled``: a
    GPU batch fills each chunk while the device runs the chunks before it)."""

    def __init__(self, letters: np.ndarray, sizes: np.ndarray, names: Sequence[str] | None = None,
                 ids1: Sequence[str] | None = None, ids2: Sequence[str] | None = None,
                 strings: list[str] | None = None) -> None:
        self._letters = letters
        self._strings = strings  # each sequence's letters while some are not in the buffer yet
        self.sizes = np.asarray(sizes, np.int64)
        if self.sizes.size % 2:
            raise ValueError(f"{self.sizes.size} sequence sizes: a batch of pairs needs an even number")
        ends = np.cumsum(self.sizes)
        if ends.size and int(ends[-1]) > letters.size:
            raise ValueError(f"the sizes add up to {int(ends[-1]):,} letters, the buffer holds {letters.size:,}")
        self.starts = ends - self.sizes
        self.n, self.m = self.sizes[0::2], self.sizes[1::2]
        count = self.n.size
        self._filled = count if strings is None else 0  # pairs whose letters are in the buffer
        self._names = list(names) if names is not None else None  # (default: pair1, pair2, ... made when asked)
        self.ids1 = list(ids1) if ids1 is not None else ["seq1"] * count
        self.ids2 = list(ids2) if ids2 is not None else ["seq2"] * count
        given = {"names": self._names, "seq1 ids": self.ids1, "seq2 ids": self.ids2}
        for what, values in given.items():
            if values is not None and len(values) != count:
                raise ValueError(f"{count} pairs but {len(values)} {what}")

    @property
    def letters(self) -> np.ndarray:
        """The buffer, every pair's letters in it."""
        return self.filled(len(self))

    @property
    def complete(self) -> bool:
        """Whether every pair's letters are in the buffer."""
        return self._filled == len(self)

    @property
    def buffer(self) -> np.ndarray:
        """The buffer as it is (its pairs' letters in it only once ``complete``)."""
        return self._letters

    def unfilled_addresses(self) -> np.ndarray | None:
        """Where each sequence's letters lie (their strings' addresses: ``core.strmem``) while
        none is in the buffer yet, for a caller that copies them in itself (the GPU batch's
        ``Staging``: in pieces on threads) and then says so (``mark_filled``); None once some
        are in the buffer, or where the strings cannot be read by address."""
        if self._strings is None or self._filled:
            return None
        from splicedalign.workloads.nw.batch_copy import string_addresses  # (numba: not for planning)

        return string_addresses(self._strings, self.sizes)

    def mark_filled(self) -> None:
        """Every pair's letters are in the buffer now (copied by the caller of ``unfilled_addresses``)."""
        self._filled, self._strings = len(self), None

    def filled(self, pairs: int) -> np.ndarray:
        """The buffer, the letters of its first ``pairs`` pairs in it (copied in now if they are
        not yet: ``copy_strings``)."""
        if self._filled < pairs and self._strings is not None:
            q0, q1 = 2 * self._filled, 2 * pairs
            at = int(self.starts[q0]) if q0 < self.starts.size else 0
            copy_strings(self._strings[q0:q1], self.sizes[q0:q1], self._letters[at:])
            self._filled = pairs
            if pairs == len(self):
                self._strings = None
        return self._letters

    @property
    def names(self) -> list[str]:
        if self._names is None:
            self._names = [self._name(k) for k in range(len(self))]
        return self._names

    def _name(self, k: int) -> str:
        """Pair k's name (as given, else pair1, pair2, ...), without making the default list."""
        return self._names[k] if self._names is not None else f"pair{k + 1}"

    @classmethod
    def from_strings(cls, seqs1: Iterable[str], seqs2: Iterable[str], names: Sequence[str] | None = None,
                     ids1: Sequence[str] | None = None, ids2: Sequence[str] | None = None,
                     allocate: Allocate | None = None) -> PairBatch:
        """Pair k: ``seqs1[k]`` against ``seqs2[k]`` (nucleotide letters; checked when a pair's
        codes are made, or on the device), into one buffer from ``allocate`` (default NumPy's;
        page-locked memory for a GPU: ``gpu.common.pinned_bytes``), filled when it is read
        (``filled``); a pair asked for before that is made from its strings."""
        firsts, seconds = list(seqs1), list(seqs2)
        if len(firsts) != len(seconds):
            raise ValueError(f"{len(firsts)} first sequences but {len(seconds)} second ones")
        strings: list[str] = [""] * (2 * len(firsts))  # a0 b0 a1 b1 ... (slices: ~10x a comprehension)
        strings[0::2], strings[1::2] = firsts, seconds
        sizes = _lengths(strings)
        total = int(sizes.sum())
        letters = np.empty(total, np.uint8) if allocate is None else allocate(total)
        return cls(letters, sizes, names, ids1, ids2, strings)

    def __len__(self) -> int:
        return self.n.size

    @overload
    def __getitem__(self, k: int) -> Pair: ...

    @overload
    def __getitem__(self, k: slice) -> list[Pair]: ...

    def __getitem__(self, k: int | slice) -> Pair | list[Pair]:
        if isinstance(k, slice):
            return [self[x] for x in range(*k.indices(len(self)))]
        k = range(len(self))[k]  # (negative indices; IndexError past the end)
        name = self._name(k)
        return Pair(name, self.ids1[k], self.ids2[k], self._codes(2 * k, name, self.ids1[k]),
                    self._codes(2 * k + 1, name, self.ids2[k]))

    def __iter__(self) -> Iterator[Pair]:
        return (self[k] for k in range(len(self)))

    def codes(self, q: int, start: int, stop: int) -> np.ndarray:
        """The codes of letters [start, stop) of sequence q (q = 2 k: seq1 of pair k, 2 k + 1: its
        seq2), as ``_codes`` makes them (a bad letter among them raises InputError): a few letters
        of a long sequence without the whole one's (the GPU batch's divergence sample reads 512
        at each end of 8 pairs)."""
        k = q // 2
        return self._codes(q, self._name(k), self.ids2[k] if q % 2 else self.ids1[k], start, stop)

    def spans_codes(self, spans: list[tuple[int, int, int]]) -> list[np.ndarray]:
        """``codes(q, start, stop)`` of each span, made in two translations (a's spans', b's),
        not one a span (the GPU batch's sample: 32 spans)."""
        out: list[np.ndarray] = [np.empty(0, np.uint8)] * len(spans)
        for parity, table in ((0, _TABLE_A), (1, _TABLE_B)):
            mine = [k for k, span in enumerate(spans) if span[0] % 2 == parity]
            raws = [self._raw(*spans[k]) for k in mine]
            codes = b"".join(raws).translate(table)
            if bytes([BAD]) in codes:  # (the span's InputError, naming its record and letter)
                return [self.codes(*span) for span in spans]
            flat, at = np.frombuffer(bytearray(codes), np.uint8), 0
            for k, raw in zip(mine, raws):
                out[k] = flat[at:at + len(raw)]
                at += len(raw)
        return out

    def _codes(self, q: int, name: str, record: str, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Sequence q's codes (a's for q even, b's for odd; letters [start, stop)) by
        bytes.translate (a 10 kb sequence: 8 us, where core.alphabet's encoding of its text took
        32 on the 2-core machine); a bad letter raises alphabet's InputError naming the record
        and the letter."""
        raw = self._raw(q, start, stop)
        codes = raw.translate(_TABLE_B if q % 2 else _TABLE_A)
        if bytes([BAD]) in codes:
            (encode_target if q % 2 else encode_base)(raw.decode("latin-1"), name, record)
            raise AssertionError(f"{record}: a letter without a code that core.alphabet accepts")
        return np.frombuffer(bytearray(codes), np.uint8)

    def sequence(self, q: int) -> str:
        """Sequence q's letters (q = 2 k: seq1 of pair k, 2 k + 1: its seq2)."""
        return self._raw(q).decode("latin-1")

    def _raw(self, q: int, start: int = 0, stop: int | None = None) -> bytes:
        """Sequence q's letters [start, stop) as bytes (from its string while the buffer does not
        hold them)."""
        size = int(self.sizes[q])
        stop = size if stop is None else min(stop, size)
        if self._strings is not None and q // 2 >= self._filled:
            return self._strings[q][start:stop].encode("latin-1", errors="replace")  # (past latin-1: '?', refused)
        at = int(self.starts[q])
        return self._letters[at + start:at + max(start, stop)].tobytes()


def _lengths(strings: list[str]) -> np.ndarray:
    """Each string's length (int64): read from the strings in one compiled pass where numba is
    loaded already (``batch_copy.string_table``: a GPU solve's process; len of 4,000 strings took
    0.14 ms of a ~0.2 ms from_strings on the 2-core machine), else by len (no numba import here)."""
    if "numba" in sys.modules:
        from splicedalign.workloads.nw.batch_copy import string_table

        table = string_table(strings)
        if table is not None:
            return table[1]
    return np.fromiter(map(len, strings), np.int64, len(strings))


def total_cells(pairs: Sequence[Pair]) -> int:
    """The pairs' cells (n m each) summed; a ``PairBatch``'s from its sizes (its pairs' codes,
    made when a pair is asked for, are not made for it)."""
    if isinstance(pairs, PairBatch):
        return int(np.sum(pairs.n * pairs.m))
    return sum(p.cells for p in pairs)


def copy_strings(strings: list[str], sizes: np.ndarray, out: np.ndarray) -> None:
    """``strings`` (``sizes`` letters each) one after another into ``out``: by address where
    CPython holds them as ASCII (``core.strmem``; a compiled memcpy, in shares on threads:
    ``batch_copy``), else string by string (a letter past latin-1 becomes '?': refused later)."""
    where = str_addresses(strings)
    if where is not None:
        from splicedalign.workloads.nw.batch_copy import copy_at  # (numba: not for planning)

        copy_at(where, np.ascontiguousarray(sizes), out)
        return
    into, at = memoryview(out), 0
    for s in strings:
        end = at + len(s)
        into[at:end] = s.encode("latin-1", errors="replace")
        at = end

