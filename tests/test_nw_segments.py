"""The segmented certificate (segments.py) on the CPU: whenever the pieces certify, their score is
the reference's optimum and the joined alignment re-scores to it; seams that disagree are merged,
bands widened, and what cannot be certified is given up (None), never answered wrong."""

from __future__ import annotations

import numpy as np
from helpers import fresh_rng
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from splicedalign.workloads.nw import Costs, Pair, cigar_cost
from splicedalign.workloads.nw import segments as seg
from splicedalign.workloads.nw.cigar import cigar_string, runs_cigar
from splicedalign.workloads.nw.gpu import band as bands
from splicedalign.workloads.nw.records import parse_cigar
from splicedalign.workloads.nw.reference import ReferenceSolver
from splicedalign.workloads.nw.wfa import wfa_align

REFERENCE = ReferenceSolver()


def mutated(rng: np.random.Generator, a: np.ndarray, rate: float) -> np.ndarray:
    """a with substitutions, deletions and insertions, each at about ``rate`` a letter."""
    out = []
    for x in a.tolist():
        roll = rng.random()
        if roll < rate:
            continue
        out.append(int(rng.integers(0, 4)) if roll < 2 * rate else x)
        if roll > 1 - rate:
            out.append(int(rng.integers(0, 4)))
    return np.array(out or [0], np.uint8)


def wfa_costs(rng: np.random.Generator) -> Costs:
    """Linear or gap-affine costs the WFA takes (half each)."""
    gap_open = int(rng.integers(1, 7)) if rng.random() < 0.5 else 0
    return Costs(0, int(rng.integers(1, 5)), int(rng.integers(1, 5)), gap_open)


def check(pair: Pair, costs: Costs, mode: str, width: int, rows: int, rounds: int = seg.ROUNDS,
          trace: seg.Trace | None = None, speculate: bool = False) -> bool:
    """Segments' answer against the reference when it certifies one; whether it did."""
    got = seg.cpu_segmented(pair, costs, mode, width, rows, rounds, trace, speculate)
    if got is None:
        return False
    score, end2, runs = got
    want = REFERENCE.solve(pair, costs, False, mode)
    assert score == want.score, (score, want.score)
    assert cigar_cost(runs_cigar(runs), pair.a, pair.b, costs, 0, end2) == score
    assert end2 == want.end2  # (global: m; prefix: the first end column of an optimal alignment, as docs/nw.md says)
    return True


def test_certified_pieces_are_optimal():
    """The certificate's claim over random similar and unrelated pairs, widths, piece sizes and modes."""
    rng = fresh_rng()
    certified = 0
    for _ in range(300):
        n = int(rng.integers(1, 300))
        a = rng.integers(0, 4, n).astype(np.uint8)
        b = mutated(rng, a, float(rng.choice([0.01, 0.03, 0.08]))) if rng.random() < 0.85 else \
            rng.integers(0, 4, int(rng.integers(1, 300))).astype(np.uint8)
        costs = wfa_costs(rng)
        mode = str(rng.choice(seg.MODES))
        certified += check(Pair("r", "a", "b", a, b), costs, mode, int(rng.integers(0, 40)), int(rng.integers(1, 80)),
                           speculate=bool(rng.random() < 0.5))
    print("certified", certified)
    assert certified >= 100  # (most similar pairs certify: the test checks something)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 3), min_size=1, max_size=40), st.lists(st.integers(0, 3), min_size=1, max_size=40),
       st.integers(1, 4), st.integers(1, 4), st.integers(0, 6), st.sampled_from(seg.MODES), st.integers(0, 12),
       st.integers(1, 8), st.booleans())
def test_certificate_on_tiny_pairs(a, b, mismatch, indel, gap_open, mode, width, rows, speculate):
    """Tiny pairs (n or m of 1 included), pieces of 1..8 rows, linear and gap-affine, with and without the
    speculative merged pieces: a certified answer is the optimum."""
    check(Pair("t", "a", "b", np.array(a, np.uint8), np.array(b, np.uint8)), Costs(0, mismatch, indel, gap_open),
          mode, width, rows, speculate=speculate)


def test_narrow_bands_the_optimum_leaves():
    """Similar tiny pairs (a few indels) in bands of w = 0..2, where the optimum often leaves the band while
    the pieces agree on a dearer path inside it: only the escape bound keeps those from being certified (a
    check of sum <= escape loosened by 3 certifies ~1% of these wrong)."""
    rng = fresh_rng()
    certified = 0
    for _ in range(1000):
        a = rng.integers(0, 4, int(rng.integers(2, 40))).astype(np.uint8)
        b = list(a.tolist())
        for _ in range(int(rng.integers(1, 4))):
            at, length = int(rng.integers(0, len(b) + 1)), int(rng.integers(1, 6))
            if rng.random() < 0.5:
                del b[at:at + length]
            else:
                b[at:at] = rng.integers(0, 4, length).tolist()
        costs = Costs(0, int(rng.integers(1, 5)), int(rng.integers(1, 3)), int(rng.integers(0, 3)))
        certified += check(Pair("t", "a", "b", a, np.array(b or [0], np.uint8)), costs, str(rng.choice(seg.MODES)),
                           int(rng.integers(0, 3)), int(rng.integers(1, 8)))
    print("certified", certified)
    assert certified >= 300


def test_pieces_agreeing_inside_a_band_the_optimum_leaves():
    """Golden: w = 0 (prefix, one-row pieces): the pieces meet at every cut on a path of cost 5 inside the band,
    the optimum (4) leaves it; 5 is above the band's escape bound, so it is not certified at w = 0 (widened)."""
    a = np.array([2, 2, 1, 0, 2, 1, 0, 1, 0, 3, 0, 2, 0, 0, 1], np.uint8)
    b = np.array([2, 2, 1, 0, 2, 1, 0, 1, 0, 1, 3, 0, 0, 1, 3, 1, 2, 0, 0, 1], np.uint8)
    trace = seg.Trace()
    check(Pair("e", "a", "b", a, b), Costs(0, 1, 2), "prefix", 0, 1, trace=trace)
    assert trace.widened == 1


def test_a_prefix_tie_outside_the_band_is_not_certified():
    """Golden (a fresh seed's failure, 2249044741): prefix, w = 0, one-row pieces. The band's path (10 matches and 2
    mismatches: cost 2, ending at column 12) ties with an optimum outside the band (10=1D1=: cost 2, ending at
    11). The first end column is the answer (docs/nw.md), so a sum equal to the band's least escape cost must
    not certify (band.escape_between is one less in the ends-free modes)."""
    a = np.array([2, 2, 3, 3, 2, 0, 2, 1, 1, 2, 3, 2], np.uint8)
    b = np.array([2, 2, 3, 3, 2, 0, 2, 1, 1, 2, 2, 3, 2], np.uint8)
    check(Pair("tie", "a", "b", a, b), Costs(0, 1, 2), "prefix", 0, 1)


def test_indels_at_the_cuts_are_merged():
    """A deletion and an insertion placed at the cuts: the seams there disagree or not, but every piece is
    solved, merged where needed, and the answer exact; over many such pairs some seams merge."""
    rng = fresh_rng()
    merges = certified = 0
    for _ in range(40):
        rows = int(rng.integers(1, 40))
        a = rng.integers(0, 4, int(rng.integers(3 * rows, 12 * rows + 3))).astype(np.uint8)
        cuts = seg.first_cuts(a.size, rows)
        b = list(a.tolist())
        for c in sorted(rng.choice(cuts[1:-1], min(3, cuts.size - 2), replace=False).tolist() if cuts.size > 2 else [],
                        reverse=True):
            if rng.random() < 0.5:
                del b[c]
            else:
                b[c:c] = [int(rng.integers(0, 4))] * int(rng.integers(1, 3))
        trace = seg.Trace()
        costs = wfa_costs(rng)
        mode = str(rng.choice(seg.MODES))
        certified += check(Pair("c", "a", "b", a, np.array(b or [0], np.uint8)), costs, mode, 8, rows, trace=trace,
                           speculate=bool(rng.random() < 0.5))
        merges += trace.merges
    print("merges", merges, "certified", certified)
    assert merges > 0 and certified > 20


def test_tandem_repeats():
    """A repeat unit copied many times, one copy deleted in b: the deletion may sit in any copy (ties), so the
    pieces' choices disagree; certified answers are still the optimum."""
    rng = fresh_rng()
    for _ in range(20):
        unit = rng.integers(0, 4, int(rng.integers(1, 5))).astype(np.uint8)
        a = np.concatenate([rng.integers(0, 4, 20), np.tile(unit, int(rng.integers(10, 40))),
                            rng.integers(0, 4, 20)]).astype(np.uint8)
        at = 20 + unit.size * int(rng.integers(0, 8))
        b = np.concatenate([a[:at], a[at + unit.size:]])
        for mode in seg.MODES:
            check(Pair("t", "a", "b", a, b), Costs(0, 1, 3), mode, 6, int(rng.integers(1, 12)))


def test_lengths_apart():
    """d = m - n far from 0 (either sign): the band follows it."""
    rng = fresh_rng()
    certified = 0
    for _ in range(30):
        a = rng.integers(0, 4, int(rng.integers(50, 200))).astype(np.uint8)
        b = mutated(rng, a, 0.02)
        extra = rng.integers(0, 4, int(rng.integers(1, 30))).astype(np.uint8)
        b = np.concatenate([b[:b.size // 2], extra, b[b.size // 2:]]) if rng.random() < 0.5 else b[:-extra.size or None]
        for mode in seg.MODES:
            certified += check(Pair("d", "a", "b", a, b), Costs(0, 1, 2), mode, 10, 16)
    assert certified > 0


def test_gives_up_where_it_cannot_certify():
    """The fallbacks: the ends do not meet (b starts with a letter a lacks, so piece 0's best start is
    column 1), seams still disagreeing after the last round, and a band too narrow after its widening."""
    a = np.array([0, 1, 2, 3] * 10, np.uint8)
    trace = seg.Trace()
    shifted = Pair("s", "a", "b", a, np.concatenate([[3], a]).astype(np.uint8))
    assert seg.cpu_segmented(shifted, Costs(0, 1, 3), "global", 4, 8, trace=trace) is None
    assert trace.why == "the ends do not meet the pair's"
    # an insertion at the cut: piece 0 ends at column 8, piece 1 starts at 9 (or the other way)
    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, 32).astype(np.uint8)
    b = np.concatenate([a[:16], [int(a[15]) ^ 1, int(a[16]) ^ 2], a[16:]]).astype(np.uint8)
    pair = Pair("i", "a", "b", a, b)
    trace = seg.Trace()
    once = seg.cpu_segmented(pair, Costs(0, 1, 3), "global", 6, 16, rounds=1, trace=trace)
    if once is None:
        assert trace.why == "seams disagree after 1 rounds"
    trace = seg.Trace()
    assert check(pair, Costs(0, 1, 3), "global", 6, 16, trace=trace)
    assert trace.merges == (0 if once is not None else 1)
    # width 0 for an unrelated pair: widened once (its pieces' sum is far past the escape bound), then
    # certified exact or given up with a reason
    far = Pair("u", "a", "b", rng.integers(0, 4, 60).astype(np.uint8), rng.integers(0, 4, 60).astype(np.uint8))
    trace = seg.Trace()
    if not check(far, Costs(0, 1, 1), "global", 0, 10, trace=trace):
        assert trace.why
    assert trace.widened == 1


def test_widening_certifies():
    """A band too narrow for the pair's indels: its pieces' sum exceeds the escape bound, the band is widened
    to the width that sum needs, and the answer is exact."""
    rng = np.random.default_rng(11)
    a = rng.integers(0, 4, 200).astype(np.uint8)
    b = np.concatenate([a[:50], a[70:150], rng.integers(0, 4, 20), a[150:]]).astype(np.uint8)
    trace = seg.Trace()
    assert check(Pair("w", "a", "b", a, b), Costs(0, 1, 1), "global", 0, 25, trace=trace)
    assert trace.widened == 1


def test_solved_pieces_and_settle():
    """Solved keeps a piece by its two cuts (a merged piece solved before, e.g. by speculation, is found; a new
    one is not; a piece that gave up is not kept and is reported where it was asked for); settle names the
    missing pieces, then certifies the cuts whose seams agree."""
    cuts = np.array([0, 10, 20, 30, 40, 50])
    solved = seg.Solved(50)
    verdict, total, missing = seg.settle(cuts, solved.table, 50, 14, True, bands.NO_ESCAPE)
    assert (verdict, total, missing.tolist()) == (seg.MISSING, 0, [0, 1, 2, 3, 4])
    r0, r1 = np.array([0, 10, 20, 10]), np.array([10, 20, 30, 30])
    got = seg.Pieces(np.array([1, 2, 3, -1]), np.array([0, 5, 9, 5]), np.array([5, 9, 14, 14]),
                     np.array([4, 8, 12], np.uint32), np.array([0, 1, 2, 3]), np.array([1, 1, 1, 0]))
    assert not solved.add(r0, r1, got, False, 3)  # (the piece that gave up was speculative)
    assert solved.table[:, seg.SCORE].tolist() == [1, 2, 3] and len(solved.solve_runs) == 1
    assert seg.Solved(50).add(r0, r1, got, False, 4)
    verdict, total, missing = seg.settle(np.array([0, 10, 30, 40]), solved.table, 50, 14, True, bands.NO_ESCAPE)
    assert (verdict, missing.tolist()) == (seg.MISSING, [1, 2])
    verdict, total, rows = seg.settle(np.array([0, 10, 20, 30]), solved.table, 50, 14, True, bands.NO_ESCAPE)
    assert (verdict, total, solved.table[rows, seg.KEY].tolist()) == (seg.CERTIFIED, 6, [10, 51 * 10 + 20,
                                                                                          51 * 20 + 30])
    assert seg.settle(np.array([0, 10, 20, 30]), solved.table, 50, 14, True, 5)[:2] == (seg.WIDEN, 6)
    assert seg.settle(np.array([0, 10, 20, 30]), solved.table, 50, 15, True, 6)[0] == seg.ENDS
    assert seg.settle(np.array([0, 10, 20, 30]), solved.table, 50, 15, False, 6)[0] == seg.CERTIFIED


def plain_settle(cuts: list[int], pieces: dict[tuple[int, int], tuple[int, int, int, bool, bool]], m: int,
                 whole: bool, bound: int | None) -> tuple[int, int, list[int]]:
    """settle re-stated plainly (the module docstring's certificate, one piece at a time): (verdict, the
    pieces' sum, the missing pieces, the pieces' keys (r0, r1) or the cuts kept)."""
    missing = [k for k in range(len(cuts) - 1) if (cuts[k], cuts[k + 1]) not in pieces]
    if missing:
        return seg.MISSING, 0, missing
    got = [pieces[(cuts[k], cuts[k + 1])] for k in range(len(cuts) - 1)]
    total = sum(score for score, *_ in got)
    if bound is not None and total > bound:
        return seg.WIDEN, total, []
    score, start, end, opens, closes = got[0]
    if start != 0 or opens or (whole and got[-1][2] != m):
        return seg.ENDS, total, []
    seams = [k for k in range(len(got) - 1) if got[k][2] != got[k + 1][1] or (got[k + 1][3] and not got[k][4])]
    if not seams:
        return seg.CERTIFIED, total, [0]
    return seg.MERGE, total, [c for i, c in enumerate(cuts) if i - 1 not in seams]


def test_settle_equals_its_plain_statement():
    """The compiled round (Solved.add: the pieces' table; settle: lookup, sum, escape bound, ends, seams,
    merges) against plain_settle on random seam layouts: pieces of every cut pair solved or not (some gave
    up), seams agreeing or not (paths, and gap-affine D runs at their ends), neighbouring seams disagreeing
    (three pieces merged into one), global and prefix ends, every escape bound."""
    rng = fresh_rng()
    verdicts = set()
    for _ in range(400):
        n = int(rng.integers(1, 400))
        m = int(rng.integers(1, 400))
        first = seg.first_cuts(n, int(rng.integers(1, 60)))
        columns = np.sort(rng.integers(0, m + 1, first.size))
        columns[0] = 0 if rng.random() < 0.9 else columns[0]
        columns[-1] = m if rng.random() < 0.9 else columns[-1]
        affine = bool(rng.random() < 0.5)
        solved, pieces, shown = seg.Solved(n), {}, {}
        for _ in range(int(rng.integers(1, 4))):  # solves
            i = rng.integers(0, first.size - 1, int(rng.integers(1, 2 * first.size)))
            j = np.minimum(first.size - 1, i + rng.integers(1, 4, i.size))
            keys = {(int(first[x]), int(first[y])): (int(x), int(y)) for x, y in zip(i, j)}
            keys = {k: v for k, v in keys.items() if k not in shown}
            if not keys:
                continue
            r0, r1 = np.array([k[0] for k in keys], np.int64), np.array([k[1] for k in keys], np.int64)
            score = np.where(rng.random(r0.size) < 0.1, -1, rng.integers(0, 20, r0.size))
            ends = [v for v in keys.values()]
            start = np.array([columns[x] if rng.random() < 0.85 else rng.integers(0, m + 1) for x, _ in ends])
            end = np.array([columns[y] if rng.random() < 0.85 else rng.integers(0, m + 1) for _, y in ends])
            ops = [rng.integers(0, 4, int(rng.integers(0, 4))) for _ in range(r0.size)]
            runs = [seg.ops_runs(o.astype(np.int8)) for o in ops]
            used = np.array([r.size for r in runs], np.int64)
            got = seg.Pieces(score, start, end, np.concatenate(runs).astype(np.uint32), np.cumsum(used) - used, used)
            wanted = int(rng.integers(0, r0.size + 1))
            assert solved.add(r0, r1, got, affine, wanted) == bool((score[:wanted] < 0).any())
            for k, key in enumerate(keys):
                shown[key] = True
                if score[k] >= 0:
                    opens = affine and ops[k].size > 0 and ops[k][0] == seg.OP_DEL
                    closes = affine and ops[k].size > 0 and ops[k][-1] == seg.OP_DEL
                    pieces[key] = (int(score[k]), int(start[k]), int(end[k]), bool(opens), bool(closes))
        for _ in range(5):
            cuts = first[np.concatenate([[True], rng.random(first.size - 2) < 0.8, [True]])] if first.size > 2 \
                else first
            whole = bool(rng.random() < 0.5)
            bound = None if rng.random() < 0.3 else int(rng.integers(0, 20 * cuts.size))
            verdict, total, out = seg.settle(cuts, solved.table, n, m, whole, bands.NO_ESCAPE if bound is None
                                             else bound)
            want, want_total, want_out = plain_settle(cuts.tolist(), pieces, m, whole, bound)
            assert (verdict, total) == (want, want_total)
            verdicts.add(verdict)
            if verdict in (seg.MISSING, seg.MERGE):
                assert out.tolist() == want_out
            if verdict == seg.CERTIFIED:
                table = solved.table[out]
                assert table[:, seg.KEY].tolist() == (cuts[:-1] * (n + 1) + cuts[1:]).tolist()
                assert [tuple(int(v) for v in row) for row in table[:, [seg.SCORE, seg.START, seg.END, seg.OPENS,
                                                                     seg.CLOSES]]] \
                    == [pieces[(int(a), int(b))] for a, b in zip(cuts[:-1], cuts[1:])]
    assert verdicts == {seg.MISSING, seg.WIDEN, seg.ENDS, seg.CERTIFIED, seg.MERGE}


def test_windows_hold_the_band():
    """Each piece's window holds every band cell of its rows (the lower bound's premise)."""
    rng = fresh_rng()
    for _ in range(50):
        n, m = int(rng.integers(1, 500)), int(rng.integers(1, 500))
        mode = str(rng.choice(seg.MODES))
        lo, hi = seg.limits(n, m, mode, int(rng.integers(0, 50)))
        cuts = seg.first_cuts(n, int(rng.integers(1, 100)))
        c0, c1 = seg.windows(cuts[:-1], cuts[1:], lo, hi, m)
        assert cuts[0] == 0 and cuts[-1] == n and (np.diff(cuts) > 0).all()
        for k in range(cuts.size - 1):
            rows = np.arange(cuts[k], cuts[k + 1] + 1)
            assert (np.maximum(0, rows + lo) >= c0[k]).all() and (np.minimum(m, rows + hi) <= c1[k]).all()
        band = bands.band_for(n, m, mode, 0)
        assert lo <= band.lo and hi >= band.hi


def test_first_shape_is_the_first_asks_sizes():
    """first_shape (a round the device plans: gpu/wfa.py's queue_round) gives first_asks' pieces by their sizes: the
    first cuts' pieces, the asks, the longest ask's rows, its widest window, the asks' rows + columns + 1 summed, on
    random pairs and bands, with and without speculation."""
    rng = np.random.default_rng(2731)
    print("seed 2731")
    for _ in range(400):
        n, m = (int(v) for v in rng.integers(1, 20_000, 2))
        rows = int(rng.choice([7, 64, 384]))
        w = int(rng.integers(0, 500))
        lo, hi = min(0, m - n) - w, max(0, m - n) + w
        speculate = bool(rng.integers(2))
        cuts, r0, r1, c0, c1 = seg.first_asks(n, m, lo, hi, rows, speculate)
        want = (cuts.size - 1, r0.size, int((r1 - r0).max()), int((c1 - c0).max()),
                int((r1 - r0 + c1 - c0 + 1).sum()))
        assert seg.first_shape(n, m, lo, hi, rows, speculate) == want, (n, m, lo, hi, rows, speculate)


def test_first_round_is_the_band_and_its_shape():
    """first_round (a guessed round's plan in one compiled call: GpuSolver.queue_first) and band.band_bound give
    band_for's diagonals and escape_between's bound (NO_ESCAPE where none), and first_round first_shape's sizes
    at that band and piece_caps' caps of its longest piece (as Python computes them), on random pairs, widths,
    costs and rates, both modes the band takes, with and without speculation."""
    rng = np.random.default_rng(2790)
    print("seed 2790")
    for _ in range(300):
        n, m = (int(v) for v in rng.integers(1, 20_000, 2))
        costs = [Costs(0, 1, 3), Costs(0, 4, 2, 6), Costs(0, 3, 2, 5), Costs(1, 2, 3, 4)][int(rng.integers(4))]
        mode = str(rng.choice(bands.BAND_MODES))
        width = int(rng.choice([0, int(rng.integers(1, 500)), 30_000]))  # (the widest: no cell outside)
        rows, speculate = int(rng.choice([7, 64, 384])), bool(rng.integers(2))
        band = bands.band_for(n, m, mode, width)
        escape = bands.escape_between(costs, mode, n, m, band.lo, band.hi)
        want = (band.lo, band.hi, bands.NO_ESCAPE if escape is None else escape)
        assert bands.band_bound(costs, mode, n, m, width) == want, (n, m, costs, mode, width)
        rate, g = float(rng.uniform(0.001, 0.5)), int(rng.integers(1, 4))
        got = seg.first_round(costs, mode, n, m, width, rate, g, rows, speculate)
        shape = seg.first_shape(n, m, band.lo, band.hi, rows, speculate)
        assert got == (*want, shape, seg.piece_caps.py_func(rate, shape[2], g)), (n, m, costs, mode, width)


def test_fill_pieces_writes_the_upload():
    """The GPU's piece upload (gpu/wfa.py fill_pieces, piece_layout), each field against its definition."""
    from splicedalign.workloads.nw.gpu import wfa as gpu_wfa

    rng = fresh_rng()
    cuts = seg.first_cuts(1000, int(rng.integers(1, 200)))
    c0, c1 = seg.windows(cuts[:-1], cuts[1:], -30, 40, 1010)
    count, steps = cuts.size - 1, int(rng.integers(1, 100))
    at = gpu_wfa.piece_layout(count)
    host = np.full(at["end"], -7, np.int64)
    pool, words, widest, longest, seqs = gpu_wfa.fill_pieces(host, cuts[:-1], cuts[1:], c0, c1, 1000, steps, 5, 3,
                                                             9, *(at[k] for k in gpu_wfa.PIECE_PARTS))
    n, m = np.diff(cuts), c1 - c0
    sizes = np.stack([n, m], axis=1).reshape(-1)
    w = gpu_wfa.packed_words(sizes)
    to = np.cumsum(w) - w
    desc = host[at["desc"]:at["desc"] + 7 * count].reshape(count, 7)
    caps, shares = 3 * (steps + 1) * (n + m + 1), 3 * 6 * (n + m + 1)  # (3 wavefronts: gap-affine)
    assert (desc.T == [to[0::2], to[1::2], n, m, caps, np.maximum(1, shares // gpu_wfa.POOL_CHUNKS),
                       np.arange(count) * 9]).all()
    assert host[at["pool_top"]] == 0
    assert host[at["from"]:at["from"] + 2 * count].tolist() == np.stack([cuts[:-1], 1000 + c0], 1).reshape(-1).tolist()
    assert (host[at["size"]:at["size"] + 2 * count] == sizes).all()
    assert (host[at["to"]:at["to"] + 2 * count] == to).all()
    assert (host[at["words"]:at["words"] + 2 * count] == w).all()
    assert host[at["pad"]:].view(np.uint8)[:2 * count].tolist() == [gpu_wfa.PAD_A, gpu_wfa.PAD_B] * count
    assert (pool, words, widest, longest) == (shares.sum(), w.sum(), m.max(), n.max())
    assert seqs == int(gpu_wfa.seq_bytes(n, m).max())


def test_ops_runs_and_gather():
    """ops_runs spells the operations' CIGAR; gather_runs joins pieces' runs from their solves, the last
    piece's first; Segmented.cigar spells the joined pieces' CIGAR from one solve's runs in place or from several
    solves' (equal operations across a seam one run)."""
    rng = fresh_rng()
    pieces = [rng.integers(0, 4, int(rng.integers(1 if k < 2 else 0, 30))).astype(np.int8) for k in range(6)]
    pieces[1][0] = pieces[0][-1]  # (a seam inside a run)
    runs = [seg.ops_runs(p) for p in pieces]
    for p, r in zip(pieces, runs):
        # (a copy: ops_runs gives a reversed view, where the solvers hand runs_cigar arrays of their own)
        assert runs_cigar(r.copy()) == cigar_string(p)
    solve = rng.integers(0, 2, len(runs))  # (each piece's runs from one of two solves)
    first, used = np.zeros(len(runs), np.int64), np.array([r.size for r in runs])
    joined = np.full(used.sum(), 7, np.uint32)
    for k in (0, 1):
        mine = [r for r, s in zip(runs, solve) if s == k]
        first[solve == k] = np.cumsum(used[solve == k]) - used[solve == k]
        seg.gather_runs(joined, np.concatenate(mine or [np.zeros(0, np.uint32)]).astype(np.uint32), solve, k, first,
                        used)
    assert runs_cigar(joined) == cigar_string(np.concatenate(pieces))
    # Segmented.cigar: the same text read in place, from one solve's runs (each piece in its own room, as the GPU
    # lays them out, a piece's order apart from its room's) and from two solves' (gathered)
    want = cigar_string(np.concatenate(pieces))
    room, order = 40, rng.permutation(len(runs))
    one = np.full(room * len(runs), 7, np.uint32)
    for k, r in enumerate(runs):
        one[room * order[k]:room * order[k] + r.size] = r
    single = seg.Segmented(0, 0, [one], np.zeros(len(runs), np.int64), room * order, used, 1)
    two = seg.Segmented(0, 0, [np.concatenate(mine or [np.zeros(0, np.uint32)]).astype(np.uint32)
                               for mine in ([r for r, s in zip(runs, solve) if s == k] for k in (0, 1))],
                        solve, first, used, 2)
    assert single.cigar() == two.cigar() == want, (single.cigar(), two.cigar(), want)


def test_gap_affine_gaps_across_cuts():
    """Gap-affine costs with long deletions (a's letters against a gap) placed across the cuts: a piece
    starts inside the gap (its gap start, no open cost) where the piece before ends in it, and a seam where a
    piece starts in a gap the piece before does not end in is merged; every certified answer the optimum."""
    rng = fresh_rng()
    certified = 0
    for _ in range(30):
        rows = int(rng.integers(4, 30))
        a = rng.integers(0, 4, int(rng.integers(6 * rows, 14 * rows))).astype(np.uint8)
        cuts = seg.first_cuts(a.size, rows)
        keep = np.ones(a.size, bool)
        for c in rng.choice(cuts[1:-1], min(2, cuts.size - 2), replace=False).tolist() if cuts.size > 2 else []:
            keep[max(0, c - int(rng.integers(1, 6))):c + int(rng.integers(1, 6))] = False
        b = a[keep] if keep.any() else a[:1]
        costs = Costs(0, int(rng.integers(1, 5)), int(rng.integers(1, 3)), int(rng.integers(2, 9)))
        trace = seg.Trace()
        got = seg.cpu_segmented(Pair("g", "a", "b", a, b), costs, "global", 12, rows, trace=trace)
        if got is None:
            continue
        certified += 1
        assert got[0] == REFERENCE.solve(Pair("g", "a", "b", a, b), costs, False, "global").score
        assert cigar_cost(runs_cigar(got[2]), a, b, costs) == got[0]
    print("certified", certified)
    assert certified >= 10


def test_a_gap_across_a_seam_is_certified_as_one():
    """Gap-affine, one round (no merges): a deletion of 4-8 letters of a across the cut at row 40 (pieces of
    10 rows). Piece 3 ends in the gap, piece 4 starts inside it (the gap start: e a letter, no o): the seam
    agrees and the joined CIGAR has one D run across row 40, its o paid once (re-scored: the pieces' sum).
    Without the gap start piece 4 would pay o again and its best start lies elsewhere: nothing certifies."""
    rng = fresh_rng()
    costs = Costs(0, 4, 1, 3)
    across = 0
    for _ in range(20):
        a = rng.integers(0, 4, 120).astype(np.uint8)
        lo, hi = 36 + int(rng.integers(0, 3)), 42 + int(rng.integers(0, 3))
        pair = Pair("g", "a", "b", a, np.concatenate([a[:lo], a[hi:]]))
        for mode in seg.MODES:
            if not check(pair, costs, mode, 2, 10, rounds=1):
                continue
            i = 0
            for length, letter in parse_cigar(runs_cigar(seg.cpu_segmented(pair, costs, mode, 2, 10, rounds=1)[2])):
                across += letter == "D" and i < 40 < i + length
                i += length if letter != "I" else 0
    print("certified with a D run across the seam", across)
    assert across >= 4


def test_ends_that_do_not_meet_give_up_though_a_merge_could_move_them():
    """segments.py's docstring: piece 0 starting past column 0 gives up at once, though merging it with piece 1
    can move its start (a tie broken otherwise): a = 0130, b = 300 (linear 0/3/1, pieces of 2 rows)."""
    pair, costs = Pair("e", "a", "b", np.array([0, 1, 3, 0], np.uint8), np.array([3, 0, 0], np.uint8)), Costs(0, 3, 1)
    lo, hi = seg.limits(pair.n, pair.m, "global", 6)
    solve = seg.cpu_pieces(pair, costs)
    for cuts, start in (([0, 2, 4], 1), ([0, 4], 0)):
        c0, c1 = seg.windows(np.array(cuts[:-1]), np.array(cuts[1:]), lo, hi, pair.m)
        assert solve(np.array(cuts[:-1]), np.array(cuts[1:]), c0, c1).start[0] == start
    trace = seg.Trace()
    assert seg.cpu_segmented(pair, costs, "global", 6, 2, trace=trace) is None
    assert trace.why == "the ends do not meet the pair's" and trace.rounds == 1


def test_speculation_saves_the_second_round():
    """A ~1% pair of 20,000 rows (indels near some cuts): without speculation a second round solves the merged
    pieces; with it the first round's merged pieces are found and the second check solves nothing; both the
    optimum."""
    rng = np.random.default_rng(2612)
    print("seed 2612")
    a = rng.integers(0, 4, 20_000).astype(np.uint8)
    cuts = seg.first_cuts(a.size, 384)
    b = mutated(rng, np.delete(a, cuts[[5, 20, 40]] + 1), 0.004)  # (deletions by 3 cuts, far apart)
    pair, costs = Pair("s", "a", "b", a, b), Costs(0, 1, 3)
    want = wfa_align(a, b, costs, "global", False, 1 << 62).score
    answers = {}
    for speculate in (False, True):
        trace = seg.Trace()
        width = bands.width_needed(want + 1, costs, "global", a.size, b.size)
        got = seg.cpu_segmented(pair, costs, "global", width, 384, trace=trace, speculate=speculate)
        assert got is not None and got[0] == want
        assert cigar_cost(runs_cigar(got[2]), a, b, costs) == want
        answers[speculate] = trace
    print(answers)
    assert answers[False].merges > 0 and answers[False].rounds == 2
    assert answers[True].merges == answers[False].merges and answers[True].rounds == 1
