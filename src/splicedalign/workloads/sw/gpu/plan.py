"""Pure host-side planning of the GPU launches (testable without a GPU): constants shared with
the kernels, query profiles, the 16-bit overflow bound, the (R, T) shape."""

from __future__ import annotations

import numpy as np

from splicedalign.workloads.sw.matrices import PAD_SCORE
from splicedalign.workloads.sw.records import INT16_MAX, Database, Scoring

LETTERS = 24  # codes 0..23: the matrix's letters
CODES = 25  # profile rows: the letters and the padding row
PAD_ROW = 24
# threads per block of `gpu`: 4 blocks of 4 warps per SM (128 registers a thread) rather than 2 of
# 8; the 20 CUDASW++ queries against 250,000 sequences on an H100: 0.7509 s against 0.7551 s
BLOCK = 128
DEFINES = {"SW_CODES": CODES, "SW_PAD_ROW": PAD_ROW, "SW_BLOCK": BLOCK}
# (R rows per thread, T threads per group) compiled in inter.cu; every one is spill-free. R is a
# multiple of 4 (16-byte loads of 32-bit profile elements), so that R * 8 can follow a query's
# length: q850 takes 4 passes of 28 x 8 (896 rows), not 4 of 32 x 8 (1,024).
SHAPES = ((8, 8), (12, 8), (16, 8), (20, 8), (24, 8), (28, 8), (32, 8), (8, 16), (16, 16), (24, 16), (16, 32))
# Time per padded query row of the T = 8 shapes relative to R = 32 (H100, 570,000-sequence
# Swiss-Prot-shaped database, BLOSUM62 11/1, q2005 alone in a call, every shape in one run): more
# rows per thread spread each step's shuffles, offsets and the wavefront's fill over more cells.
ROW_COST = {32: 1.0, 28: 1.006, 24: 1.024, 20: 1.07, 16: 1.128, 12: 1.268, 8: 1.329}
SCAN_WIDTHS = (128, 256, 512)  # sw-scan block widths; 512 is the paper's slice


def scan_profile(query: np.ndarray, scoring: Scoring) -> np.ndarray:
    """m x CODES int32: sbt(q_i, c), the padding code scoring PAD_SCORE."""
    table = scoring.table
    prof = np.full((query.size, CODES), PAD_SCORE, dtype=np.int32)
    prof[:, :LETTERS] = table[query.astype(np.int64)][:, :LETTERS]
    return prof


def inter_profile(query: np.ndarray, scoring: Scoring, mpad: int, dtype) -> np.ndarray:
    """CODES x mpad of sbt (affine) or sbt + g (linear: the kernel keeps G = H - g), rows past
    the query and the padding code at PAD_SCORE (+ g). ``dtype`` np.int32 for 32-bit lanes;
    np.uint32 for 16-bit lanes: each score's 16-bit pattern zero-extended, so that the kernel
    packs a letter pair's two scores into one register with an exact 32-bit multiply-add."""
    shift = 0 if scoring.affine else scoring.first_gap
    prof = np.full((CODES, mpad), PAD_SCORE + shift, dtype=np.int64)
    prof[:LETTERS, : query.size] = scan_profile(query, scoring)[:, :LETTERS].T + shift
    if np.dtype(dtype) == np.uint32:
        prof &= 0xFFFF
    return np.ascontiguousarray(prof.astype(dtype))


def lane_word(x: int, lanes16: bool) -> int:
    """``x`` in every lane of a kernel register (int32 bit pattern): two 16-bit lanes or one."""
    if not lanes16:
        return int(x)
    word = (x & 0xFFFF) * 0x10001
    return word - (1 << 32) if word >= 1 << 31 else word


def row_stride(R: int, itemsize: int) -> int:
    """Shared-memory stride (elements) between the R profile rows of consecutive threads: the
    kernel loads them 16 bytes at a time, a group's threads one letter's rows at once, and a
    stride of an even number of 16-byte units puts two threads on the same banks (R = 32 on 16
    bits: four-way conflicts; the profile then bounded the kernel, L1 throughput 99% under
    Nsight Compute), an odd number none."""
    unit = 16 // itemsize
    return R if (R // unit) % 2 else R + unit


def slice_bytes(shape: tuple[int, int], itemsize: int) -> int:
    """Dynamic shared memory of a launch: one pass's profile rows, CODES x T x row_stride. The
    kernel hands a column's row offsets down the group as 16-bit byte offsets: below 64 KiB."""
    R, T = shape
    size = CODES * T * row_stride(R, itemsize) * itemsize
    assert size <= 1 << 16, (shape, size)
    return size


def overflow_bound(scoring: Scoring) -> int:
    """A 16-bit lane's best above this may be wrong; such pairs are searched again on 32-bit
    lanes. At or below it every H was exact: only a diagonal step adds (at most max_sbt; gaps
    subtract, PAD_SCORE and the gap costs stay far from -32768), so the first wrap needs an
    H above INT16_MAX - max_sbt, and the best covers every H computed before it."""
    return INT16_MAX - scoring.max_score


def choose_shape(m: int) -> tuple[int, int]:
    """(R, T): groups of 8 threads, the least padded rows weighted by ROW_COST (q657: 28 x 8 on
    672 rows, not 32 x 8 on 768 or 8 x 8 on 704)."""
    return min((s for s in SHAPES if s[1] == 8), key=lambda s: (padded_rows(m, s) * ROW_COST[s[0]], -s[0]))


def padded_rows(m: int, shape: tuple[int, int]) -> int:
    R, T = shape
    return -(-m // (R * T)) * R * T


def scratch_bases(sorted_lengths: np.ndarray, per_group: int) -> tuple[np.ndarray, int]:
    """Per group (``per_group`` consecutive sequences, longest first) the start of its
    pass-to-pass scratch in rows of its longest sequence's length, and the total rows."""
    longest = np.asarray(sorted_lengths[::per_group], dtype=np.int64)
    base = np.zeros(longest.size, dtype=np.int64)
    np.cumsum(longest[:-1], out=base[1:])
    return base, int(longest.sum())


def scan_classes(db: Database) -> list[tuple[int, np.ndarray]]:
    """sw-scan launches: (block width, sequences) with the narrowest width that covers the
    sequence (the paper's block is as wide as the row, at most 512 columns per slice)."""
    lengths = db.lengths
    width = np.select([lengths <= w for w in SCAN_WIDTHS[:-1]], SCAN_WIDTHS[:-1], SCAN_WIDTHS[-1])
    return [(w, np.flatnonzero((width == w) & (lengths > 0)).astype(np.int32)) for w in SCAN_WIDTHS
            if np.any((width == w) & (lengths > 0))]
