"""One 1-D array copied into another of its length, for numba kernels: ``copy_into(dst, src)``
in place of the slice assignment ``dst[:] = src``.

numba compiles every array-to-array slice assignment with a length check whose error message
is formatted in compiled code (``numba.np.arrayobj.raise_with_shape_context``: the shapes'
``str``, joins and concatenations), ~2 CPU s to compile once in each process that compiles such
an assignment (2-core machine: a 10-element copy compiled in 2.5-3.2 s against 0.4-0.5 as a
loop; a fresh clone's test suite paid it in 7 processes, 10.6 CPU s), and so in a user's first
solve with an empty numba cache. ``copy_into`` checks the lengths with a fixed message."""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def copy_into(dst, src):
    """dst[i] = src[i] for every i; ValueError when their lengths differ (1-D arrays or views)."""
    if dst.shape[0] != src.shape[0]:
        raise ValueError("copy_into: the arrays' lengths differ")
    for i in range(src.shape[0]):
        dst[i] = src[i]
