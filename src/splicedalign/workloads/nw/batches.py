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

import ctypes
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import overload

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from splicedalign.core.alphabet import IUPAC, encode_base, encode_target
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
    ``sizes``: n0 m0 n1 m1 ...; ``starts``: each sequence's offset), in input order."""

    def __init__(self, letters: np.ndarray, sizes: np.ndarray, names: Sequence[str] | None = None,
                 ids1: Sequence[str] | None = None, ids2: Sequence[str] | None = None) -> None:
        self.letters = letters
        self.sizes = np.asarray(sizes, np.int64)
        if self.sizes.size % 2:
            raise ValueError(f"{self.sizes.size} sequence sizes: a batch of pairs needs an even number")
        ends = np.cumsum(self.sizes)
        if ends.size and int(ends[-1]) > letters.size:
            raise ValueError(f"the sizes add up to {int(ends[-1]):,} letters, the buffer holds {letters.size:,}")
        self.starts = ends - self.sizes
        self.n, self.m = self.sizes[0::2], self.sizes[1::2]
        count = self.n.size
        self._names = list(names) if names is not None else None  # (default: pair1, pair2, ... made when asked)
        self.ids1 = list(ids1) if ids1 is not None else ["seq1"] * count
        self.ids2 = list(ids2) if ids2 is not None else ["seq2"] * count
        given = {"names": self._names, "seq1 ids": self.ids1, "seq2 ids": self.ids2}
        for what, values in given.items():
            if values is not None and len(values) != count:
                raise ValueError(f"{count} pairs but {len(values)} {what}")

    @property
    def names(self) -> list[str]:
        if self._names is None:
            self._names = [f"pair{k + 1}" for k in range(len(self))]
        return self._names

    @classmethod
    def from_strings(cls, seqs1: Iterable[str], seqs2: Iterable[str], names: Sequence[str] | None = None,
                     ids1: Sequence[str] | None = None, ids2: Sequence[str] | None = None,
                     allocate: Allocate | None = None) -> PairBatch:
        """Pair k: ``seqs1[k]`` against ``seqs2[k]`` (nucleotide letters; checked when a pair's
        codes are made, or on the device). The letters are copied string by string into one
        buffer from ``allocate`` (default NumPy's; page-locked memory for a GPU: ``gpu.common.pinned_bytes``)."""
        strings = [s for pair in zip(seqs1, seqs2, strict=True) for s in pair]
        sizes = np.fromiter(map(len, strings), np.int64, len(strings))
        total = int(sizes.sum())
        letters = np.empty(total, np.uint8) if allocate is None else allocate(total)
        where = _addresses(strings, sizes)
        if where is not None:
            copy_at(where, sizes, letters)
        else:
            into, at = memoryview(letters), 0
            for s in strings:
                end = at + len(s)
                into[at:end] = s.encode("latin-1", errors="replace")  # (a letter past latin-1: '?', refused later)
                at = end
        return cls(letters, sizes, names, ids1, ids2)

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
        name = self._names[k] if self._names is not None else f"pair{k + 1}"
        return Pair(name, self.ids1[k], self.ids2[k], self._codes(2 * k, name, self.ids1[k]),
                    self._codes(2 * k + 1, name, self.ids2[k]))

    def __iter__(self) -> Iterator[Pair]:
        return (self[k] for k in range(len(self)))

    def _codes(self, q: int, name: str, record: str) -> np.ndarray:
        """Sequence q's codes (a's for q even, b's for odd) by bytes.translate (a 10 kb sequence:
        8 us, where core.alphabet's encoding of its text took 32 on the 2-core machine); a bad
        letter raises alphabet's InputError naming the record and the letter."""
        at = int(self.starts[q])
        raw = self.letters[at:at + int(self.sizes[q])].tobytes()
        codes = raw.translate(_TABLE_B if q % 2 else _TABLE_A)
        if bytes([BAD]) in codes:
            (encode_target if q % 2 else encode_base)(raw.decode("latin-1"), name, record)
            raise AssertionError(f"{record}: a letter without a code that core.alphabet accepts")
        return np.frombuffer(bytearray(codes), np.uint8)

    def sequence(self, q: int) -> str:
        """Sequence q's letters (q = 2 k: seq1 of pair k, 2 k + 1: its seq2)."""
        at = int(self.starts[q])
        return str(memoryview(self.letters[at:at + int(self.sizes[q])]), "latin-1")


# Where CPython keeps an ASCII string's letters: right after its object's header (PEP 393's
# compact form, which every str of ASCII letters made by CPython has), so that a batch's 4,000
# strings are copied by a compiled loop from their addresses (id) without a Python call a string:
# the string-by-string copy (``from_strings``' other way) took 10 ms on the H200 host.
_HEADER = sys.getsizeof("") - 1  # sys.getsizeof of an ASCII str: header + letters + its NUL


def _compact_ascii_works() -> bool:
    """Whether this interpreter keeps ASCII strings so (checked once on a string made here)."""
    if sys.implementation.name != "cpython":
        return False
    probe = "".join(["ACGT", "acgtN"] * 3)
    return ctypes.string_at(id(probe) + _HEADER, len(probe)) == probe.encode("ascii")


_COMPACT_ASCII = _compact_ascii_works()


def _addresses(strings: list[str], sizes: np.ndarray) -> np.ndarray | None:
    """Each string's letters' address, or None unless each is a str of ASCII letters in the
    compact form (its size says so: header, letters, NUL)."""
    if not _COMPACT_ASCII or not all(type(s) is str for s in strings) or not all(map(str.isascii, strings)):
        return None
    held = np.fromiter(map(sys.getsizeof, strings), np.int64, len(strings))
    if not np.array_equal(held, sizes + _HEADER + 1):
        return None
    return np.fromiter(map(id, strings), np.int64, len(strings)) + _HEADER


@intrinsic
def _memcpy(typingctx, destination, source, count):
    """memcpy of ``count`` bytes between two integer addresses (LLVM's, inlined)."""
    def codegen(context, builder, signature, args):
        byte_pointer = context.get_value_type(types.CPointer(types.uint8))
        cgutils.raw_memcpy(builder, builder.inttoptr(args[0], byte_pointer), builder.inttoptr(args[1], byte_pointer),
                           args[2], 1)
        return context.get_dummy_value()
    return types.void(types.int64, types.int64, types.int64), codegen


@njit(cache=True, nogil=True)
def _copy_at(addresses, sizes, out):
    """The bytes at ``addresses`` (``sizes`` each) one after another into ``out``."""
    into = out.ctypes.data
    for k in range(addresses.size):
        _memcpy(into, addresses[k], sizes[k])
        into += sizes[k]


COPY_THREADS = 8  # threads copying a large batch's strings (the compiled copy lets go of the GIL)
COPY_SHARE = 4 << 20  # bytes a thread at least
_copiers: ThreadPoolExecutor | None = None


def copy_at(addresses: np.ndarray, sizes: np.ndarray, out: np.ndarray) -> None:
    """``_copy_at`` in shares of about equal bytes on up to COPY_THREADS threads (one where the
    batch is small or the machine has few cores): a 40 MB batch's scattered strings take ~3 ms
    of memory traffic on one core."""
    global _copiers
    ends = np.cumsum(sizes)
    total = int(ends[-1]) if ends.size else 0
    shares = max(1, min(COPY_THREADS, (os.cpu_count() or 1) // 2, total // COPY_SHARE))
    if shares == 1:
        _copy_at(addresses, sizes, out)
        return
    if _copiers is None:
        _copiers = ThreadPoolExecutor(COPY_THREADS, thread_name_prefix="pairbatch-copy")
    cuts = np.searchsorted(ends, np.arange(1, shares) * (total / shares)).tolist()
    bounds = list(zip([0, *cuts], [*cuts, addresses.size]))
    starts = [int(ends[k0 - 1]) if k0 else 0 for k0, _ in bounds]
    list(_copiers.map(lambda bound, at: _copy_at(addresses[bound[0]:bound[1]], sizes[bound[0]:bound[1]], out[at:]),
                      bounds, starts))
