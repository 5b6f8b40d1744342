"""The band certificate (gpu/band.py) on the CPU: for every band width, a band whose score passes
the certificate has the optimal score; the adaptive schedule (run with the NumPy model of the
banded kernels) equals the reference in every mode and cost model, and the traceback inside the
certified band re-scores to it."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.workloads.nw import Costs, Pair, cigar_cost
from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.gpu import band as bands
from splicedalign.workloads.nw.records import MODES
from splicedalign.workloads.nw.reference import INF, end_column, gotoh_tables, trace_tables

SEED = 2626


def related_pair(rng: np.random.Generator, most: int) -> Pair:
    """Lengths 1..most: half mutated copies (substitutions and indels), half unrelated."""
    n = int(rng.integers(1, most))
    a = rng.integers(0, 4, n).astype(np.uint8)
    if rng.random() < 0.5:
        b = rng.integers(0, 4, int(rng.integers(1, most))).astype(np.uint8)
    else:
        out = []
        for x in a:
            roll = rng.random()
            if roll < 0.05:
                continue
            out.append(int(rng.integers(0, 4)) if roll < 0.12 else int(x))
            if roll > 0.95:
                out.append(int(rng.integers(0, 4)))
        b = np.array(out or [0], dtype=np.uint8)
    return Pair("r", "a", "b", a, b)


def random_costs(rng: np.random.Generator) -> Costs:
    roll = rng.integers(0, 3)
    if roll == 0:
        return Costs(0, int(rng.integers(0, 5)), int(rng.integers(1, 5)))
    if roll == 1:
        return Costs(0, int(rng.integers(0, 7)), int(rng.integers(1, 4)), int(rng.integers(0, 9)))
    return Costs(int(rng.integers(-2, 2)), int(rng.integers(0, 5)), int(rng.integers(0, 4)), int(rng.integers(0, 5)))


def band_score(pair: Pair, costs: Costs, mode: str, band: bands.Band) -> int:
    h = bands.banded_tables(pair.a, pair.b, costs, mode, band)[0]
    return int(h[-1, end_column(h, mode)])


def test_every_certified_band_is_optimal():
    """The certificate's claim itself, over all widths: S_w <= escape(w) implies S_w = optimum, and (prefix) the
    band's first end column is the table's: no path outside the band ties with an earlier end."""
    rng = np.random.default_rng(SEED)
    print(f"seed {SEED}")
    checked = 0
    for k in range(60):
        pair = related_pair(rng, 40)
        costs = random_costs(rng)
        mode = ("global", "prefix")[k % 2]
        if not bands.applies(costs, mode):
            continue
        full = gotoh_tables(pair.a, pair.b, costs, mode)[0]
        best = int(full[-1, end_column(full, mode)])
        for width in range(0, max(pair.n, pair.m) + 2):
            band = bands.band_for(pair.n, pair.m, mode, width)
            h = bands.banded_tables(pair.a, pair.b, costs, mode, band)[0]
            score = int(h[-1, end_column(h, mode)])
            assert score >= best
            if bands.certified(score, costs, mode, band):
                assert score == best, (k, width, band, costs, mode)
                assert end_column(h, mode) == end_column(full, mode), (k, width, band, costs, mode)
                checked += 1
            # the band S_w asks for (at least as wide) certifies itself
            if score < INF // 2:
                need = bands.band_for(pair.n, pair.m, mode,
                                      max(width, bands.width_needed(score, costs, mode, pair.n, pair.m)))
                assert bands.certified(band_score(pair, costs, mode, need), costs, mode, need)
    assert checked > 100


def test_a_prefix_tie_outside_the_band_is_not_certified():
    """Golden: prefix, w = 0. The band's best path (10 matches, 2 mismatches: cost 2, ending at column 12) ties
    with the optimum outside it (10=1D1=: cost 2, ending at 11), which costs exactly the band's least escape
    cost. The first end column is the answer (docs/nw.md), so the band must not certify its score."""
    a = np.array([2, 2, 3, 3, 2, 0, 2, 1, 1, 2, 3, 2], np.uint8)
    b = np.array([2, 2, 3, 3, 2, 0, 2, 1, 1, 2, 2, 3, 2], np.uint8)
    costs = Costs(0, 1, 2)
    band = bands.band_for(a.size, b.size, "prefix", 0)
    h = bands.banded_tables(a, b, costs, "prefix", band)[0]
    full = gotoh_tables(a, b, costs, "prefix")[0]
    assert int(h[-1, end_column(h, "prefix")]) == int(full[-1, end_column(full, "prefix")]) == 2
    assert (end_column(h, "prefix"), end_column(full, "prefix")) == (12, 11)
    assert not bands.certified(2, costs, "prefix", band)
    assert bands.certified(2, costs, "prefix", bands.band_for(a.size, b.size, "prefix", 1))


@pytest.mark.parametrize("mode", MODES)
def test_adaptive_schedule_equals_the_reference(mode):
    rng = np.random.default_rng(SEED + MODES.index(mode))
    print(f"seed {SEED + MODES.index(mode)}")
    for k in range(40):
        pair = related_pair(rng, 150 if k % 8 else 4)
        costs = random_costs(rng)
        h, d, ins = gotoh_tables(pair.a, pair.b, costs, mode)
        want = int(h[-1, end_column(h, mode)])
        score, band, passes = bands.adaptive(lambda b, p=pair, c=costs: band_score(p, c, mode, b), costs, mode,
                                              pair.n, pair.m)
        assert score == want, (k, costs, mode, band)
        assert band.full or bands.applies(costs, mode)
        # the traceback inside the certified band is an optimal alignment
        h, d, ins = bands.banded_tables(pair.a, pair.b, costs, mode, band)
        j_end = end_column(h, mode)
        ops, j_start = trace_tables(h, d, ins, pair.a, pair.b, costs, mode, j_end)
        assert cigar_cost(cigar_string(ops), pair.a, pair.b, costs, j_start, j_end) == want


def test_bounds_and_schedule_by_hand():
    costs = Costs(0, 4, 2, 6)
    band = bands.band_for(1000, 1010, "global", 10)
    assert (band.lo, band.hi) == (-10, 20)
    assert bands.escape(costs, "global", band) == 2 * 6 + 2 * (10 + 22)
    assert bands.width_needed(76, costs, "global", 1000, 1010) == 10
    assert bands.width_needed(77, costs, "global", 1000, 1010) == 11
    prefix = bands.band_for(1000, 900, "prefix", 10)
    assert (prefix.lo, prefix.hi) == (-110, 10)
    # below: 111 deletions (seq1 is 100 letters longer); above: 11 insertions and 111 deletions; one less, so
    # that a certified score is strictly below any path outside (which could tie and end in an earlier column)
    assert bands.escape(costs, "prefix", prefix) == 6 + 2 * 111 - 1
    assert bands.full_band(5, 7).full and bands.escape(costs, "global", bands.full_band(5, 7)) is None
    assert not bands.applies(Costs(-1, 2, 3), "global") and not bands.applies(costs, "infix")
    assert not bands.applies(Costs(0, 1, 0, 2), "global")
    # an uncertified band jumps to the width its score needs, at most doubling
    nxt = bands.next_band(76, costs, "global", bands.band_for(10**6, 10**6, "global", 4))
    assert nxt.width == 8
    nxt = bands.next_band(76, costs, "global", bands.band_for(10**6, 10**6, "global", 8))
    assert nxt.width == bands.width_needed(76, costs, "global", 10**6, 10**6) == 15
    assert bands.first_band(costs, "infix", 100, 100).full
    assert bands.algorithm_name(bands.full_band(3, 3)) == "dp"


def test_optimal_paths_band_holds_every_optimal_path():
    """band.optimal_paths_band (nw_band_codes' diagonals) holds every cell on an optimal path: each
    (i, j) where an optimal alignment of a[:i], b[:j] and one of a[i:], b[j:] (global; prefix: b's end
    free) add up to the optimum. (With gap-affine costs those are some of the optimal paths' cells: a
    gap through (i, j) costs its open once, not twice.) Widths 0 and 1 come from identical and
    one-letter-apart pairs."""
    rng = np.random.default_rng(SEED + 3)
    print(f"seed {SEED + 3}")
    narrowed = thin = 0
    for k in range(90):
        pair = related_pair(rng, 40)
        if k % 10 == 0:  # the optimum 0 or one substitution or indel away: the narrowest bands
            b = pair.a.copy()
            b = b if k % 20 == 0 else np.delete(b, b.size // 2) if b.size > 1 else (b + 1) % 4
            pair = Pair("r", "a", "b", pair.a, b)
        costs = random_costs(rng)
        mode = ("global", "prefix")[k % 2]
        if not bands.applies(costs, mode):
            continue
        ahead = gotoh_tables(pair.a, pair.b, costs, mode)[0]
        behind = gotoh_tables(pair.a[::-1], pair.b[::-1], costs, "global" if mode == "global" else "infix")[0]
        through = ahead + behind[::-1, ::-1]
        best = int(ahead[-1, end_column(ahead, mode)])
        full = bands.full_band(pair.n, pair.m)
        band = bands.optimal_paths_band(best, costs, mode, full)
        i, j = np.nonzero(through == best)
        assert i.size and band.lo <= (j - i).min() and (j - i).max() <= band.hi, (k, costs, mode, band)
        narrowed += band != full
        thin += band != full and band.hi - band.lo <= abs(pair.m - pair.n) + 1
    assert narrowed >= 30 and thin >= 3, (narrowed, thin)
