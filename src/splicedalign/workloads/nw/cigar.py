"""The run-length CIGAR text of an alignment's operation codes, compiled (numba): kept apart from
``records`` so that reading the workload's records (as the pipeline's planning does) needs no numba."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from splicedalign.workloads.nw.records import OP_LETTERS, cigar_counts


def digit_table(most: int) -> np.ndarray:
    """Row L (0 <= L < most): L's decimal digits as ASCII, left-aligned in the first columns, and their count last."""
    width = len(str(most - 1))
    table = np.zeros((most, width + 1), np.uint8)
    for length in range(most):
        text = str(length).encode("ascii")
        table[length, :len(text)] = np.frombuffer(text, np.uint8)
        table[length, width] = len(text)
    return table


_DIGITS = digit_table(1000)  # (a similar pair's runs: 10^5 1% linear's match runs ~75 letters long on average)


@njit(cache=True, nogil=True)
def _put_run(out, size, length, letter):
    """One run's text (its length's digits, then its letter) at out[size:] (room for 3 bytes at least, or its
    digits and letter); the size after it. A length below 1,000 copies its digits from _DIGITS (three bytes, whatever
    its digits), where the digit loop's branches took ~1.4x as long over 10^5 1%'s ~3,000 runs (the 2-core
    development host: 16 against 11 us)."""
    if length < _DIGITS.shape[0]:
        for d in range(_DIGITS.shape[1] - 1):
            out[size + d] = _DIGITS[length, d]
        size += _DIGITS[length, _DIGITS.shape[1] - 1]
        out[size] = letter
        return size + 1
    digits, power = 1, 10
    while length >= power:
        digits, power = digits + 1, 10 * power
    for d in range(digits):  # the digits, last first, from the right
        out[size + digits - 1 - d] = 48 + length % 10
        length //= 10
    out[size + digits] = letter
    return size + digits + 1


@njit(cache=True, nogil=True)
def _cigar_bytes(ops, letters):
    """The run-length CIGAR as ASCII codes (a run of L letters takes at most L + 1 bytes; _put_run writes 3 digits
    whatever the run's: 2 bytes more)."""
    out = np.empty(2 * ops.size + 2, dtype=np.uint8)
    size = 0
    i = 0
    while i < ops.size:
        j = i + 1
        while j < ops.size and ops[j] == ops[i]:
            j += 1
        size = _put_run(out, size, j - i, letters[ops[i]])
        i = j
    return out[:size]


@njit(cache=True, nogil=True)
def _pieces_bytes(runs, first, used, letters):
    """The CIGAR of walks joined end to end as ASCII codes: walk k's runs (length << 2 | op each, written from its
    end backwards, as batch.cu's nw_band_text reads them) runs[first[k]:first[k] + used[k]], walks in alignment
    order (segments.py's pieces, read in place: ``Segmented.cigar``); runs of the same operation next to each
    other are one, across walks too."""
    out = np.empty(11 * used.sum(), dtype=np.uint8)  # 10 digits and the letter a run at most (merged: fewer runs)
    size = 0
    op, length = -1, np.int64(0)
    for k in range(first.size):
        for r in range(first[k] + used[k] - 1, first[k] - 1, -1):
            run = np.int64(runs[r])
            if run & 3 != op:
                if op >= 0:
                    size = _put_run(out, size, length, letters[op])
                op, length = run & 3, np.int64(0)
            length += run >> 2
    if op >= 0:
        size = _put_run(out, size, length, letters[op])
    return out[:size]


@njit(cache=True, nogil=True)
def _runs_bytes(runs, letters):
    """``_pieces_bytes`` of one walk's runs (its alignment's last run first)."""
    return _pieces_bytes(runs, np.zeros(1, np.int64), np.full(1, runs.size, np.int64), letters)


_OP_CODES = np.frombuffer(OP_LETTERS.encode("ascii"), dtype=np.uint8)


def runs_cigar(runs: np.ndarray) -> str:
    """The CIGAR of a walk's runs (uint32: length << 2 | op, the alignment's last run first):
    nw_band_text's text on the host (a single pair's, whose runs come back with its answer, or
    the runs of segments' pieces one after another, last piece first)."""
    return _runs_bytes(runs, _OP_CODES).tobytes().decode("ascii") if runs.size else ""


def pieces_cigar(runs: np.ndarray, first: np.ndarray, used: np.ndarray) -> str:
    """The CIGAR of walks joined end to end, each one's runs in place (``_pieces_bytes``), in one compiled pass."""
    return _pieces_bytes(runs, first, used, _OP_CODES).tobytes().decode("ascii")


def cigar_string(ops: np.ndarray) -> str:
    """Run-length CIGAR of an array of operation codes (OP_*), in alignment order."""
    ops = np.ascontiguousarray(ops, dtype=np.int8)
    return _cigar_bytes(ops, _OP_CODES).tobytes().decode("ascii") if ops.size else ""


@njit(cache=True, nogil=True)
def _op_counts(text, ends, letters):
    """Letters of each operation (in ``letters``' order) of each CIGAR's ASCII codes (row k:
    text[ends[k - 1]:ends[k]]); a row's last count is 1 when it is not a CIGAR over those letters
    (a run without its length, a length without its letter, any other byte)."""
    counts = np.zeros((ends.size, letters.size + 1), np.int64)
    start = 0
    for row in range(ends.size):
        number, digits = 0, 0
        for i in range(start, ends[row]):
            c = text[i]
            if 48 <= c <= 57:
                number = 10 * number + (c - 48)
                digits += 1
                continue
            k = 0
            while k < letters.size and letters[k] != c:
                k += 1
            if k == letters.size or digits == 0:
                digits = -1
                break
            counts[row, k] += number
            number, digits = 0, 0
        if digits:
            counts[row, letters.size] = 1
        start = ends[row]
    return counts


def op_counts_many(cigars: Sequence[str]) -> np.ndarray:
    """Letters of each operation of each CIGAR over '=XDI' (row k: cigars[k]'s, columns in
    OP_LETTERS' order; records.cigar_counts, compiled, in one pass over them all: the output
    formats count every pair's, and 2,000 CIGARs of 10 kb pairs at 5% took 1.7 s a format in
    Python char by char, ~20 ms one compiled call a CIGAR). ValueError on anything else
    (records.cigar_counts' message, of the first)."""
    text = "".join(cigars).encode("ascii", errors="replace")  # (one byte a letter, as len counts)
    ends = np.cumsum(np.fromiter(map(len, cigars), np.int64, len(cigars)))
    counts = _op_counts(np.frombuffer(text, np.uint8), ends, _OP_CODES)
    bad = np.flatnonzero(counts[:, -1])
    if bad.size:
        cigar = cigars[int(bad[0])]
        cigar_counts(cigar)  # raises, naming the problem
        raise ValueError(f"bad CIGAR {cigar!r}")
    return counts[:, :-1]


def op_counts(cigar: str) -> dict[str, int]:
    """Letters of each operation of one CIGAR (``op_counts_many``)."""
    return dict(zip(OP_LETTERS, op_counts_many([cigar])[0].tolist()))
