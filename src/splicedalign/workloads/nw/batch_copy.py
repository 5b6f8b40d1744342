"""A batch's sequences copied into one buffer by their addresses (``PairBatch.from_strings``, the
GPU batch's ``Staging``): a compiled memcpy from where CPython keeps an ASCII string's letters
(``core.strmem``) or where a NumPy array keeps its bytes (``array_addresses``), so that 4,000
sequences take no Python call each: string by string took 9.6-10 ms on the H200 host, by
address 4.7 (shares on threads: the copy lets go of the GIL); 4,000 code arrays of a list of
``Pair`` concatenated by NumPy took 7.9 ms on the H100 host (their addresses alone, read in
Python, 8.3 ms on the H200 host). Kept apart from ``batches`` so that reading the workload's
records (as the pipeline's planning does) needs no numba."""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from splicedalign.core.atomics import load_acquire, store_release
from splicedalign.core.strmem import STR_OFFSET, str_addresses


@intrinsic
def _memcpy(typingctx, destination, source, count):
    """memcpy of ``count`` bytes between two integer addresses (LLVM's, inlined)."""
    def codegen(context, builder, signature, args):
        byte_pointer = context.get_value_type(types.CPointer(types.uint8))
        cgutils.raw_memcpy(builder, builder.inttoptr(args[0], byte_pointer), builder.inttoptr(args[1], byte_pointer),
                           args[2], 1)
        return context.get_dummy_value()
    return types.void(types.int64, types.int64, types.int64), codegen


def _loader(kind):
    """An intrinsic reading a ``kind`` (numba integer type) at an integer address."""
    @intrinsic
    def load(typingctx, address):
        def codegen(context, builder, signature, args):
            pointer = builder.inttoptr(args[0], context.get_value_type(types.CPointer(kind)))
            return builder.load(pointer)
        return kind(types.int64), codegen
    return load


_load64, _load32 = _loader(types.int64), _loader(types.int32)


@njit(cache=True, nogil=True)
def _copy_at(addresses, sizes, out):
    """The bytes at ``addresses`` (``sizes`` each) one after another into ``out``."""
    into = out.ctypes.data
    for k in range(addresses.size):
        _memcpy(into, addresses[k], sizes[k])
        into += sizes[k]


@njit(cache=True, nogil=True)
def copy_pieces(addresses, sizes, out, pieces, mine, done):
    """Pieces ``mine`` (rows of ``pieces``: first sequence, past the last, offset in ``out``) of
    the bytes at ``addresses`` (``sizes`` each) copied into ``out`` in that order, each flagged in
    ``done`` (1) once copied: one copying thread's share of a batch, without the GIL from start
    to end (``wait_pieces`` reads the flags). (Stores that skip the cache gained nothing: 40 MB
    of strings in 0.96 ms on 8 threads of the H100 host either way.)"""
    base = out.ctypes.data
    for i in range(mine.size):
        p = mine[i]
        into = base + pieces[p, 2]
        for q in range(pieces[p, 0], pieces[p, 1]):
            _memcpy(into, addresses[q], sizes[q])
            into += sizes[q]
        store_release(done, p, 1)


@njit(cache=True, nogil=True)
def piece_rows(sizes, starts, chunks, threads):
    """``common.piece_rows`` (its docstring) of ``chunks`` (rows: first pair, past the last)."""
    rows = np.empty((chunks.shape[0] * threads, 3), np.int64)
    bounds = np.empty(threads + 1, np.int64)
    for c in range(chunks.shape[0]):
        q0, q1 = 2 * chunks[c, 0], 2 * chunks[c, 1]
        cut = min(threads, 1 << min(c, 30))
        ends = np.cumsum(sizes[q0:q1])
        middles = ends - sizes[q0:q1] / 2
        bounds[0] = q0
        for t in range(1, cut):  # the first sequence whose middle is at or past t shares' bytes
            bounds[t] = q0 + np.searchsorted(middles, t * (ends[-1] / cut))
        bounds[cut:] = q1
        for t in range(threads):
            row = c * threads + t
            rows[row, 0], rows[row, 1] = bounds[t], bounds[t + 1]
            rows[row, 2] = starts[min(bounds[t], starts.size - 1)]
    return rows


@njit(cache=True, nogil=True)
def wait_pieces(done, p0, p1, spins):
    """Whether pieces p0 .. p1 - 1 are flagged in ``done``, read up to ``spins`` times over
    (without the GIL: the copying threads take it to start and to end)."""
    for _ in range(spins):
        p = p0
        while p < p1 and load_acquire(done, p) != 0:
            p += 1
        if p == p1:
            return True
    return False


# A NumPy array's fields after the object's header (numpy/ndarraytypes.h, PyArrayObject_fields,
# the same in NumPy 1.x and 2.x on 64-bit CPython): its data pointer, nd, dimensions, strides,
# base, descr (whose type_num follows typeobj and four chars); checked on probes at import
# (ARRAYS_BY_ADDRESS), else the callers concatenate.
DATA, ND, DIMS, STRIDES, DESCR, TYPE_NUM = 16, 24, 32, 40, 56, 28
BYTE_TYPES = (np.dtype(np.uint8).num, np.dtype(np.int8).num)


@njit(cache=True, nogil=True)
def _array_data(ids, sizes, byte_types):
    """Each array's data address (``ids``: the arrays' id), where it is 1-D, ``sizes[k]`` bytes
    long, contiguous and of a byte type; (addresses, -1), else (_, the first that is not)."""
    out = np.empty(ids.size, np.int64)
    for k in range(ids.size):
        obj = ids[k]
        if _load32(obj + ND) != 1 or _load64(_load64(obj + DIMS)) != sizes[k]:
            return out, k
        if sizes[k] > 1 and _load64(_load64(obj + STRIDES)) != 1:
            return out, k
        kind = _load32(_load64(obj + DESCR) + TYPE_NUM)
        if kind != byte_types[0] and kind != byte_types[1]:
            return out, k
        out[k] = _load64(obj + DATA)
    return out, -1


def _probe() -> bool:
    """Whether the field offsets above read NumPy's arrays as NumPy itself does (a few probes
    made at run time: a view at an offset, a strided one, 2-D, another type)."""
    base = np.arange(12, dtype=np.uint8)
    probes = [base[3:], base[::2], base.reshape(3, 4), base.astype(np.int64), np.zeros(0, np.int8)]

    def read(obj: np.ndarray) -> tuple:
        at = id(obj)
        i64, i32 = ctypes.c_int64.from_address, ctypes.c_int32.from_address
        return (i64(at + DATA).value, i32(at + ND).value, i64(i64(at + DIMS).value).value,
                i64(i64(at + STRIDES).value).value, i32(i64(at + DESCR).value + TYPE_NUM).value)

    try:
        return all(read(a) == (a.ctypes.data, a.ndim, a.shape[0], a.strides[0], a.dtype.num) for a in probes)
    except Exception:  # pragma: no cover - another layout
        return False


ARRAYS_BY_ADDRESS = ctypes.sizeof(ctypes.c_void_p) == 8 and _probe()


def array_addresses(arrays: Sequence[np.ndarray], sizes: np.ndarray) -> np.ndarray | None:
    """Each array's data address (int64), where every one is a NumPy array of ``sizes[k]`` bytes
    (uint8 or int8, 1-D, contiguous), else None. The arrays must stay alive while the addresses
    are read (the callers hold them)."""
    if not ARRAYS_BY_ADDRESS or not arrays or not all(issubclass(t, np.ndarray) for t in set(map(type, arrays))):
        return None
    ids = np.fromiter(map(id, arrays), np.int64, len(arrays))
    out, failed = _array_data(ids, np.ascontiguousarray(sizes, np.int64), np.array(BYTE_TYPES, np.int32))
    return out if failed < 0 else None


# A list's items, read where CPython keeps them (Include/cpython/listobject.h: PyListObject's item
# pointer after the variable-size header, the same from 3.8 on), and a str's length and state
# (PyASCIIObject: length after the header, then the hash, then the state's bit field: kind 1,
# compact, ascii), so that 4,000 objects' table is one compiled pass: map(id, ...), set(map(type,
# ...)) and map(str.isascii, ...) over 4,000 strings took 0.38 ms of a GPU batch on the H100 host.
# Checked on probes at import (OBJECTS_BY_ADDRESS), else the callers read them in Python.
LIST_SIZE, LIST_ITEMS, OB_TYPE, STR_LENGTH, STR_STATE = 16, 24, 8, 16, 32
ASCII_MASK, ASCII_STATE = 0b1111100, 0b1100100  # kind (3 bits from bit 2) 1, compact, ascii


@njit(cache=True, nogil=True)
def _items(list_id):
    """The ids of a list's items (its item pointers)."""
    count = _load64(list_id + LIST_SIZE)
    items = _load64(list_id + LIST_ITEMS)
    out = np.empty(count, np.int64)
    for k in range(count):
        out[k] = _load64(items + 8 * k)
    return out


@njit(cache=True, nogil=True)
def _ascii_letters(ids, str_type, offset):
    """Each str's letters' address and its length, where every one is an exact str held compact
    as ASCII; (_, _, the first that is not, else -1)."""
    where = np.empty(ids.size, np.int64)
    sizes = np.empty(ids.size, np.int64)
    for k in range(ids.size):
        obj = ids[k]
        if _load64(obj + OB_TYPE) != str_type or (_load32(obj + STR_STATE) & ASCII_MASK) != ASCII_STATE:
            return where, sizes, k
        where[k] = obj + offset
        sizes[k] = _load64(obj + STR_LENGTH)
    return where, sizes, -1


@njit(cache=True, nogil=True)
def _arrays_data(ids, array_type, byte_types):
    """Each exact NumPy array's data address and bytes, where every one is 1-D, contiguous and
    of a byte type; (_, _, the first that is not, else -1)."""
    where = np.empty(ids.size, np.int64)
    sizes = np.empty(ids.size, np.int64)
    for k in range(ids.size):
        obj = ids[k]
        if _load64(obj + OB_TYPE) != array_type or _load32(obj + ND) != 1:
            return where, sizes, k
        size = _load64(_load64(obj + DIMS))
        if size > 1 and _load64(_load64(obj + STRIDES)) != 1:
            return where, sizes, k
        kind = _load32(_load64(obj + DESCR) + TYPE_NUM)
        if kind != byte_types[0] and kind != byte_types[1]:
            return where, sizes, k
        where[k] = _load64(obj + DATA)
        sizes[k] = size
    return where, sizes, -1


def string_table(strings: list[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """(addresses, lengths) of the letters of each of ``strings`` (a list), where every one is an
    exact str of ASCII letters held compact (``core.strmem``), else None. The list must stay as
    it is, and its strings alive, while they are read."""
    if not OBJECTS_BY_ADDRESS or type(strings) is not list or not strings:
        return None
    where, sizes, failed = _ascii_letters(_items(id(strings)), id(str), STR_OFFSET)
    return (where, sizes) if failed < 0 else None


def array_table(arrays: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """(addresses, bytes) of the data of each of ``arrays`` (a list), where every one is an exact
    NumPy array of uint8 or int8, 1-D and contiguous, else None (``array_addresses``' checks,
    and its sizes read, in one compiled pass). The list must stay as it is, and its arrays alive,
    while they are read."""
    if not (OBJECTS_BY_ADDRESS and ARRAYS_BY_ADDRESS) or type(arrays) is not list or not arrays:
        return None
    where, sizes, failed = _arrays_data(_items(id(arrays)), id(np.ndarray), np.array(BYTE_TYPES, np.int32))
    return (where, sizes) if failed < 0 else None


def _probe_objects() -> bool:
    """Whether the list, str and type offsets above read objects as Python does (probes made at
    run time: ASCII strings short and long, interned or not, and strings that are not ASCII)."""
    if STR_OFFSET is None or ctypes.sizeof(ctypes.c_void_p) != 8:
        return False
    i64, u32 = ctypes.c_int64.from_address, ctypes.c_uint32.from_address
    ascii_ones = ["".join(["ACGT", "n"] * k) for k in (1, 3, 999)] + [sys.intern("".join(["acgt", "N"]))]
    others = ["".join(["ACGT", "\xe9"]), "".join(["ACGT", "\u0100"]), "".join(["ACGT", "\U0001f600"])]
    items = [*ascii_ones, *others]
    try:
        listed = i64(id(items) + LIST_SIZE).value == len(items) and all(
            i64(i64(id(items) + LIST_ITEMS).value + 8 * k).value == id(x) for k, x in enumerate(items))
        typed = all(i64(id(x) + OB_TYPE).value == id(str) for x in items)
        sized = all(i64(id(x) + STR_LENGTH).value == len(x) for x in items)
        states = [u32(id(x) + STR_STATE).value & ASCII_MASK == ASCII_STATE for x in items]
        letters = all(ctypes.string_at(id(x) + STR_OFFSET, len(x)) == x.encode("ascii") for x in ascii_ones)
    except Exception:  # pragma: no cover - another layout
        return False
    return listed and typed and sized and letters and states == [True] * len(ascii_ones) + [False] * len(others)


OBJECTS_BY_ADDRESS = _probe_objects()


def string_addresses(strings: list[str], sizes: np.ndarray) -> np.ndarray | None:
    """Each string's letters' address where every one is ASCII held compact and ``sizes[k]``
    letters long (``string_table``, else ``core.strmem.str_addresses``), else None."""
    table = string_table(strings)
    if table is None:
        return str_addresses(strings)
    return table[0] if np.array_equal(table[1], sizes) else None


# threads copying a large batch's sequences (the compiled copy lets go of the GIL; 12 were slower
# than 8 on the 16-CPU H200 host: the copies share its memory bandwidth)
COPY_THREADS = 8
COPY_SHARE = 4 << 20  # bytes a thread at least
_copiers: ThreadPoolExecutor | None = None


def copiers() -> ThreadPoolExecutor:
    """The copying threads (made once, COPY_THREADS; ``copy_threads`` of them used at a time)."""
    global _copiers
    if _copiers is None:
        _copiers = ThreadPoolExecutor(COPY_THREADS, thread_name_prefix="pairbatch-copy")
    return _copiers


def copy_threads() -> int:
    """Copying threads a batch takes: up to COPY_THREADS, half the machine's cores."""
    return max(1, min(COPY_THREADS, (os.cpu_count() or 1) // 2))


def copy_at(addresses: np.ndarray, sizes: np.ndarray, out: np.ndarray) -> None:
    """``_copy_at`` in shares of about equal bytes on up to COPY_THREADS threads (one where the
    batch is small or the machine has few cores): a 40 MB batch's scattered strings take ~3 ms
    of memory traffic on one core."""
    ends = np.cumsum(sizes)
    total = int(ends[-1]) if ends.size else 0
    shares = max(1, min(copy_threads(), total // COPY_SHARE))
    if shares == 1:
        _copy_at(addresses, sizes, out)
        return
    cuts = np.searchsorted(ends, np.arange(1, shares) * (total / shares)).tolist()
    bounds = list(zip([0, *cuts], [*cuts, addresses.size]))
    starts = [int(ends[k0 - 1]) if k0 else 0 for k0, _ in bounds]
    list(copiers().map(lambda bound, at: _copy_at(addresses[bound[0]:bound[1]], sizes[bound[0]:bound[1]], out[at:]),
                       bounds, starts))
