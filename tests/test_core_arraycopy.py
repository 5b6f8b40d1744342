"""core.arraycopy.copy_into: a 1-D copy for numba kernels, into views of other arrays too, with
the slice assignment's length check."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from splicedalign.core.arraycopy import copy_into


@njit
def _shifted(dst, src, at):
    copy_into(dst[at:at + src.shape[0]], src)


def test_copies_into_a_view_and_casts_like_a_slice_assignment():
    rng = np.random.default_rng(7)
    print("seed", 7)
    src = rng.integers(-2**31, 2**31 - 1, 37).astype(np.int32)
    dst = np.full((3, 50), -1, dtype=np.int64)
    want = dst.copy()
    want[1, 5:42] = src
    _shifted(dst[1], src, 5)
    assert np.array_equal(dst, want)
    copy_into(dst[2, ::2][:0], src[:0])  # nothing to copy: nothing changes
    assert np.array_equal(dst, want)


@pytest.mark.parametrize("length", [36, 38])
def test_lengths_that_differ_raise(length):
    with pytest.raises(ValueError, match="lengths differ"):
        copy_into(np.zeros(length, np.int64), np.ones(37, np.int64))
