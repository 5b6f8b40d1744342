"""A batch's strings copied into one buffer by their addresses (``PairBatch.from_strings``): a
compiled memcpy from where CPython keeps an ASCII string's letters (``core.strmem``), so that
4,000 strings take no Python call each: string by string took 9.6-10 ms on the H200 host, by
address 4.7 (shares on threads: the copy lets go of the GIL). Kept apart from ``batches`` so
that reading the workload's records (as the pipeline's planning does) needs no numba."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


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
