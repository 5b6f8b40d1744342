"""The run-length CIGAR text of an alignment's operation codes, compiled (numba): kept apart from
``records`` so that reading the workload's records (as the pipeline's planning does) needs no numba."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from splicedalign.workloads.nw.records import OP_LETTERS, cigar_counts


def digit_words(most: int) -> tuple[np.ndarray, np.ndarray]:
    """(words, counts) of each length L < ``most`` (at most 3 digits): L's decimal digits as ASCII in a little-endian
    uint32 (its first digit the lowest byte; the bytes above them 0, room for the run's letter), and their count."""
    words, counts = np.zeros(most, np.uint32), np.zeros(most, np.int64)
    for length in range(most):
        text = str(length).encode("ascii")
        if len(text) > 3:
            raise ValueError(f"digit_words: {length} has more than 3 digits")
        words[length], counts[length] = int.from_bytes(text, "little"), len(text)
    return words, counts


# (a similar pair's runs: 10^5 1% linear's match runs ~75 letters long on average)
_WORDS, _COUNTS = digit_words(1000)


@intrinsic
def _store4(typingctx, out, index, word):
    """The low four bytes of ``word`` at out[index .. index+3], little-endian, as one (unaligned) store."""
    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        pointer = builder.bitcast(builder.gep(array.data, [args[1]]), ir.IntType(32).as_pointer())
        value = builder.trunc(args[2], ir.IntType(32)) if args[2].type.width > 32 else args[2]
        builder.store(value, pointer, align=1)
        return context.get_dummy_value()
    return types.void(out, index, word), codegen


@njit(cache=True, nogil=True)
def _put_run(out, size, length, letter):
    """One run's text (its length's digits, then its letter) at out[size:] (room for 4 bytes at least, or its
    digits and letter); the size after it. A length below 1,000 goes as one 4-byte word (its digits from _WORDS, the
    letter above them; a byte past them is the next run's to overwrite), one store (``_store4``: a synthetic
    2,118 runs' text 5.0 -> 3.3 us on the 2-core development host, where its four bytes went one by one): its
    digits and letter byte by byte from a digit table took 8.2 against 7.8 us over 10^5 1%'s 2,203 runs, the digit
    loop's branches ~1.4x as long."""
    if length < _WORDS.size:
        count = _COUNTS[length]
        _store4(out, size, _WORDS[length] | (np.uint32(letter) << np.uint32(8 * count)))
        return size + count + 1
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
    """The run-length CIGAR as ASCII codes (a run of L letters takes at most L + 1 bytes; _put_run writes 4 bytes
    whatever the run's text: 2 bytes more)."""
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
        if used[k] == 0:
            continue
        # a walk's first run apart: it joins the run before it, across the seam, nearly always (10^5 1%: 247 of 254
        # pieces), where a walk's next runs change operation (their branch then predicted; the development host,
        # 10^5 1%'s 2,203 runs: this pass 7.8 -> 7.6 us with _put_run's word; pieces_cigar 8.9 -> 8.2 with both)
        last = first[k] + used[k] - 1
        run = np.int64(runs[last])
        if run & 3 == op:
            length += run >> 2
        else:
            if op >= 0:
                size = _put_run(out, size, length, letters[op])
            op, length = run & 3, run >> 2
        for r in range(last - 1, first[k] - 1, -1):
            run = np.int64(runs[r])
            if run & 3 != op:
                size = _put_run(out, size, length, letters[op])
                op, length = run & 3, run >> 2
            else:
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
