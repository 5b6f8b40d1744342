"""sw GPU solvers: the planning on any machine; the kernels against `sequential` where a GPU is
(skipped elsewhere with the reason). The device script checks >= 1,000 fresh pairs per run."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.core.errors import SolverUnavailable
from splicedalign.gpu import device
from splicedalign.workloads.sw import synthetic
from splicedalign.workloads.sw.gpu.plan import (
    CODES,
    LETTERS,
    PAD_ROW,
    SCAN_WIDTHS,
    SHAPES,
    choose_shape,
    inter_profile,
    lane_word,
    overflow_bound,
    padded_rows,
    row_stride,
    scan_classes,
    scan_profile,
    scratch_bases,
    slice_bytes,
)
from splicedalign.workloads.sw.matrices import PAD_SCORE, encode
from splicedalign.workloads.sw.records import Database, Query, Scoring, longest_first
from splicedalign.workloads.sw.solvers import SOLVERS

NO_GPU = device.unavailable_reason()


def test_profiles():
    q = encode("WAC")
    sc = Scoring.linear(4)
    p = scan_profile(q, sc)
    assert p.shape == (3, CODES) and p[0, encode("W")[0]] == 11 and p[2, PAD_ROW] == PAD_SCORE
    ip = inter_profile(q, sc, 8, np.int32)  # linear: sbt + g (the kernel keeps G = H - g)
    assert ip.shape == (CODES, 8) and ip.dtype == np.int32
    assert ip[encode("W")[0], 0] == 11 + 4 and ip[0, 5] == PAD_SCORE + 4 and ip[PAD_ROW, 0] == PAD_SCORE + 4
    assert np.array_equal(ip[:LETTERS, :3], p[:, :LETTERS].T + 4)
    ia = inter_profile(q, Scoring.blast(), 8, np.int32)  # affine: sbt itself
    assert np.array_equal(ia[:LETTERS, :3], p[:, :LETTERS].T) and ia[PAD_ROW, 0] == PAD_SCORE
    # 16-bit lanes: the 16-bit pattern zero-extended; a + b * 2**16 packs two letters' scores
    iz = inter_profile(q, Scoring.blast(), 8, np.uint32)
    assert iz.dtype == np.uint32 and np.all(iz < 1 << 16)
    assert np.array_equal(iz.astype(np.uint16).view(np.int16), ia.astype(np.int16))
    packed = (iz[PAD_ROW] + iz[encode("W")[0]] * (1 << 16)).astype(np.uint32).view(np.int16).reshape(-1, 2)
    assert packed[0].tolist() == [PAD_SCORE, 11]


def test_lane_words():
    assert lane_word(-12, False) == -12 and lane_word(-12, True) == np.array([-12, -12], np.int16).view(np.int32)[0]
    assert lane_word(0, True) == 0 and lane_word(-1, True) == -1


def test_shape_choice():
    assert choose_shape(350) == (24, 8) and choose_shape(128) == (16, 8) and choose_shape(144) == (20, 8)
    assert choose_shape(657) == (28, 8) and choose_shape(850) == (28, 8)  # 672 and 896 rows, not 768 and 1,024
    assert choose_shape(5147) == (28, 8) and choose_shape(5478) == (32, 8)


def test_shapes_cover_the_query():
    for m in (1, 7, 64, 128, 350, 1000, 8000):
        shape = choose_shape(m)
        assert shape in SHAPES and padded_rows(m, shape) >= m
        assert padded_rows(m, shape) % (shape[0] * shape[1]) == 0


def test_longest_first_and_the_16_bit_bound():
    lengths = np.array([100, 3000, 2885, 3000, 70_000])
    assert longest_first(lengths).tolist() == [4, 1, 3, 2, 0]
    assert longest_first(lengths[:4]).tolist() == [1, 3, 2, 0]  # radix path, ties in database order
    assert overflow_bound(Scoring()) == 32767 - 11
    assert overflow_bound(Scoring.blast("pam30")) == 32767 - Scoring.blast("pam30").max_score


def test_profile_slices_avoid_bank_conflicts():
    # a group's threads load 16 bytes each: strides of an odd number of 16-byte units
    for R, itemsize in [(8, 2), (16, 2), (24, 2), (32, 2)] + [(R, 4) for R in range(8, 33, 4)]:
        stride = row_stride(R, itemsize)
        assert stride >= R and stride * itemsize % 16 == 0 and (stride * itemsize // 16) % 2 == 1
        banks = {(t * stride * itemsize // 4 + w) % 32 for t in range(8) for w in range(4)}
        assert len(banks) == 32  # eight threads, four banks each, all different
    assert row_stride(32, 2) == 40 and row_stride(24, 2) == 24
    assert slice_bytes((32, 8), 2) == CODES * 8 * 40 * 2 and row_stride(28, 4) == 28 and row_stride(32, 4) == 36
    for shape in SHAPES:  # row offsets travel as 16-bit byte offsets
        assert slice_bytes(shape, 4) <= 1 << 16


def test_scan_classes():
    db = Database.from_codes(list("abcd"), [np.zeros(n, np.uint8) for n in (5, 128, 129, 9000)])
    classes = {w: s.tolist() for w, s in scan_classes(db)}
    assert classes == {128: [0, 1], 256: [2], 512: [3]} and max(SCAN_WIDTHS) == 512


def test_scratch_bases():
    base, rows = scratch_bases(np.array([9, 7, 7, 5, 2]), 2)
    assert base.tolist() == [0, 9, 16] and rows == 18
    base, rows = scratch_bases(np.array([9, 7]), 1)
    assert base.tolist() == [0, 9] and rows == 16


@pytest.mark.skipif(NO_GPU is not None, reason=f"no GPU: {NO_GPU}")
@pytest.mark.parametrize("name,scoring", [("sw-scan", Scoring()), ("gpu", Scoring()), ("gpu", Scoring.blast()),
                                          ("gpu", Scoring.blast("pam30"))])
def test_gpu_solvers_match_sequential(name, scoring):
    if scoring == Scoring():
        assert SOLVERS.get(name).scores(Query("a", encode("GCAGGGTTAG")),
                                        Database.from_codes(["b"], [encode("CCACCGGGGC")]), scoring).tolist() == [27]
    rng = np.random.default_rng(21)
    for m in (1, 50, 128, 700):
        q = synthetic.query(m, 21)
        db = synthetic.database(rng.integers(1, 1200, 77), 21, q, homologs=6)
        want = SOLVERS.get("sequential").scores(q, db, scoring)
        assert np.array_equal(SOLVERS.get(name).scores(q, db, scoring), want), (name, m)


@pytest.mark.skipif(NO_GPU is not None, reason=f"no GPU: {NO_GPU}")
def test_sw_scan_refuses_affine():
    with pytest.raises(SolverUnavailable, match="linear"):
        SOLVERS.get("sw-scan").scores(Query("a", encode("GCAG")), Database.from_codes(["b"], [encode("CCAC")]),
                                      Scoring.blast())
