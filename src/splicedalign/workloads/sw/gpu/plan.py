"""Pure host-side planning of the GPU launches (testable without a GPU): constants shared with
the kernels, query profiles, the split into 16-bit and 32-bit work, the (R, T) shape."""

from __future__ import annotations

import numpy as np

from splicedalign.workloads.sw.matrices import PAD_SCORE
from splicedalign.workloads.sw.records import Database, Scoring, fits_int16

LETTERS = 24  # codes 0..23: the matrix's letters
CODES = 25  # profile rows: the letters and the padding row
PAD_ROW = 24
BLOCK = 256  # threads per block of `gpu`
SMEM_LIMIT = 48 * 1024  # profile in shared memory up to the default dynamic limit
DEFINES = {"SW_CODES": CODES, "SW_PAD_ROW": PAD_ROW, "SW_BLOCK": BLOCK}
# (R rows per thread, T threads per group) compiled in inter.cu; every one is spill-free.
SHAPES = ((8, 8), (16, 8), (24, 8), (32, 8), (8, 16), (16, 16), (24, 16), (16, 32))
SCAN_WIDTHS = (128, 256, 512)  # sw-scan block widths; 512 is the paper's slice


def scan_profile(query: np.ndarray, scoring: Scoring) -> np.ndarray:
    """m x CODES int32: sbt(q_i, c), the padding code scoring PAD_SCORE."""
    table = scoring.table
    prof = np.full((query.size, CODES), PAD_SCORE, dtype=np.int32)
    prof[:, :LETTERS] = table[query.astype(np.int64)][:, :LETTERS]
    return prof


def inter_profile(query: np.ndarray, scoring: Scoring, mpad: int, dtype) -> np.ndarray:
    """CODES x mpad of sbt + oe (the kernel's G-space; oe = open + extend, the linear gap when
    open is 0), rows past the query and the padding code at PAD_SCORE + oe."""
    oe = scoring.first_gap
    prof = np.full((CODES, mpad), PAD_SCORE + oe, dtype=np.int64)
    prof[:LETTERS, : query.size] = scan_profile(query, scoring)[:, :LETTERS].T + oe
    return np.ascontiguousarray(prof.astype(dtype))


def choose_shape(m: int, mean_n: float, affine: bool = False) -> tuple[int, int]:
    """(R, T). Linear kernel: fewest passes first (device run 1, docs/gpu-sw.md: at 384 rows
    one pass of 24 x 16 beat two of 24 x 8 by 19% in kernel time: a pass re-fills the
    wavefront, and more threads per sequence hide more of the per-row dependency chain), then
    the least padded work (rows rounded up to R*T, columns lengthened by the T-1 steps of the
    fill), then larger R. Affine kernel: groups of 8 threads, the least padded work, then
    larger R (measured on the H100, Swiss-Prot-shaped database: q464 32 x 8 2,830 GCUPS against
    2,678 for the linear rule's 16 x 32 and 1,920-2,506 for the others; q2005 32 x 8 2,952 and
    24 x 8 3,019 against 2,716: its longer per-row work hides the chain with 8 threads, and
    more threads only add fill and shuffles)."""
    def cost(shape):
        R, T = shape
        rows = -(-m // (R * T)) * R * T
        return (0 if affine else rows // (R * T), rows * (mean_n + T - 1), -R)
    return min((s for s in SHAPES if not affine or s[1] == 8), key=cost)


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


def split_point(sorted_lengths: np.ndarray, scoring: Scoring, m: int) -> int:
    """With sequences longest first, the first k need 32-bit lanes (fits_int16 fails: their
    scores could exceed 16 bits) and the rest run on 16-bit lanes; returns k."""
    return int(np.count_nonzero(~fits_int16(scoring, m, sorted_lengths)))


def scan_classes(db: Database) -> list[tuple[int, np.ndarray]]:
    """sw-scan launches: (block width, sequences) with the narrowest width that covers the
    sequence (the paper's block is as wide as the row, at most 512 columns per slice)."""
    lengths = db.lengths
    width = np.select([lengths <= w for w in SCAN_WIDTHS[:-1]], SCAN_WIDTHS[:-1], SCAN_WIDTHS[-1])
    return [(w, np.flatnonzero((width == w) & (lengths > 0)).astype(np.int32)) for w in SCAN_WIDTHS
            if np.any((width == w) & (lengths > 0))]
