"""A batch's sequences gathered into one host buffer on numba's threads, by their addresses.

NumPy's concatenate of a batch's 4,000 sequences (2,000 pairs of 10 kb, each its own array,
scattered over the heap) copies one array after another on one core: ~7 ms on the H100 host,
the largest host cost of the batch (threads calling it each on a share ran 1.6x slower still:
the GIL is taken back after every array's copy). Here the arrays' addresses are read once
(~0.8 us an array) and a compiled loop copies them on every core. Where numba has few threads
(the 2-core machine, loaded: 21.7 ms against concatenate's 4.4) concatenate stays."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numba
import numpy as np
from numba import carray, njit, prange, types
from numba.extending import intrinsic

PARALLEL_MIN = 8  # numba threads from which the copy by address runs (else NumPy's concatenate)
ARRAYS_MIN = 64  # and arrays (a single pair's two: concatenate, no wake-up of numba's threads)
_one_at_a_time = threading.Lock()


@intrinsic
def _bytes_at(typingctx, address):
    """The uint8 pointer at an integer address."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(types.CPointer(types.uint8)))
    return types.CPointer(types.uint8)(types.int64), codegen


@njit(cache=True, nogil=True, parallel=True)
def _copy(addresses, sizes, starts, out):
    for k in prange(addresses.size):
        out[starts[k]:starts[k] + sizes[k]] = carray(_bytes_at(addresses[k]), (sizes[k],))


def addresses(arrays: Sequence[np.ndarray]) -> np.ndarray | None:
    """Each array's data address, or None unless every one is a contiguous 1-D uint8 array."""
    out = []
    for a in arrays:
        face = a.__array_interface__
        if face["typestr"] != "|u1" or face["strides"] is not None or len(face["shape"]) != 1:
            return None
        out.append(face["data"][0])
    return np.array(out, np.int64)


def gather_into(out: np.ndarray, arrays: Sequence[np.ndarray], sizes: np.ndarray, starts: np.ndarray) -> None:
    """``arrays`` (sizes given; in order, contiguous: ``starts`` their running sum) copied to
    ``out``: by address on numba's threads where it has at least PARALLEL_MIN of them and there
    are ARRAYS_MIN arrays, else (or where an array is not contiguous uint8) by NumPy's concatenate."""
    many = len(arrays) >= ARRAYS_MIN and numba.get_num_threads() >= PARALLEL_MIN
    where = addresses(arrays) if many else None
    if where is None:
        try:
            np.concatenate(arrays, out=out)
        except TypeError:  # (not uint8)
            np.concatenate([np.asarray(a, np.uint8) for a in arrays], out=out)
    else:
        with _one_at_a_time:  # (solvers of several GPUs run on threads; numba's workqueue layer takes one caller)
            _copy(where, np.ascontiguousarray(sizes, np.int64), np.ascontiguousarray(starts, np.int64), out)
