"""The run-length CIGAR text of an alignment's operation codes, compiled (numba): kept apart from
``records`` so that reading the workload's records (as the pipeline's planning does) needs no numba."""

from __future__ import annotations

import numpy as np
from numba import njit

from splicedalign.workloads.nw.records import OP_LETTERS


@njit(cache=True, nogil=True)
def _cigar_bytes(ops, letters):
    """The run-length CIGAR as ASCII codes (a run of L letters takes at most L + 1 bytes)."""
    out = np.empty(2 * ops.size, dtype=np.uint8)
    size = 0
    i = 0
    while i < ops.size:
        j = i + 1
        while j < ops.size and ops[j] == ops[i]:
            j += 1
        length, digits = j - i, 1
        while length >= 10 ** digits:
            digits += 1
        for d in range(digits):  # the digits, last first, from the right
            out[size + digits - 1 - d] = 48 + length % 10
            length //= 10
        size += digits
        out[size] = letters[ops[i]]
        size += 1
        i = j
    return out[:size]


_OP_CODES = np.frombuffer(OP_LETTERS.encode("ascii"), dtype=np.uint8)


def cigar_string(ops: np.ndarray) -> str:
    """Run-length CIGAR of an array of operation codes (OP_*), in alignment order."""
    ops = np.ascontiguousarray(ops, dtype=np.int8)
    return _cigar_bytes(ops, _OP_CODES).tobytes().decode("ascii") if ops.size else ""
