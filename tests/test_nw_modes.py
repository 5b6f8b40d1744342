"""nw gap-affine costs and modes (SPEC-workloads B2) in every CPU solver: a brute-force search
over all alignments on tiny inputs (hypothesis), seeded random pairs of every mode and cost
model against the reference (every CIGAR re-scored over its region), the wavefront algorithm
on its own, and the peers pywfa and edlib where installed."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from splicedalign.core.errors import InputError
from splicedalign.workloads.nw import Costs, Pair, backtrack, cigar_cost, cpu, solve
from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.records import MODES, ops_cost
from splicedalign.workloads.nw.reference import end_column, gotoh_tables, trace_tables
from splicedalign.workloads.nw.wfa import wfa_align

CPU = ("reference", "sequential", "multicore")


def brute_force(a: str, b: str, costs: Costs, mode: str, gap_start: bool = False) -> int:
    """Least cost over every alignment path (pair, gap in b, gap in a), a gap opened whenever
    the previous step was not the same kind of gap; infix starts anywhere in b, prefix and infix
    end anywhere in b; with ``gap_start`` a start may also come as if after a D step (a leading
    D run then opens no gap)."""
    @functools.cache
    def best(i: int, j: int, last: str) -> int:
        options = [0] if i == len(a) and (j == len(b) or mode != "global") else []
        if i < len(a) and j < len(b):
            same = a[i] == b[j] and a[i] in "ACGT"
            options.append((costs.match if same else costs.mismatch) + best(i + 1, j + 1, "M"))
        if i < len(a):
            options.append(costs.indel + (0 if last == "D" else costs.gap_open) + best(i + 1, j, "D"))
        if j < len(b):
            options.append(costs.indel + (0 if last == "I" else costs.gap_open) + best(i, j + 1, "I"))
        return min(options)
    starts = range(len(b) + 1) if mode == "infix" else [0]
    return min(best(0, j, state) for j in starts for state in ("MD" if gap_start else "M"))


def check(pair: Pair, costs: Costs, mode: str, want: int, solvers=CPU) -> None:
    for solver in solvers:
        result = solve(pair, costs, solver, mode=mode)
        assert result.score == want, (solver, mode, costs)
        assert cigar_cost(result.cigar, pair.a, pair.b, costs, result.start2, result.end2) == want, (solver, mode)
        assert solve(pair, costs, solver, traceback=False, mode=mode).score == want, (solver, mode)


letters = st.text(alphabet="ACGTN", min_size=1, max_size=6)
affine_costs = st.builds(Costs, st.integers(-2, 1), st.integers(0, 6), st.integers(0, 4), st.integers(0, 7))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=letters, b=letters, costs=affine_costs, mode=st.sampled_from(MODES))
def test_brute_force_affine_modes(a, b, costs, mode):
    check(Pair.from_strings(a, b), costs, mode, brute_force(a, b, costs, mode))


@pytest.mark.parametrize("mode, a, b, costs, score, region", [
    ("infix", "ACGT", "TTTACGTTTT", Costs(), 0, (3, 7)),
    ("prefix", "ACGT", "ACGTTTTT", Costs(), 0, (0, 4)),
    ("prefix", "ACGT", "TTACGT", Costs(0, 1, 3), 4, (0, 4)),  # 4 mismatches beat 2 leading gap letters + ...
    ("global", "ACGTTTTACGT", "ACGTACGT", Costs(0, 4, 2, 6), 12, (0, 8)),  # one gap of 3: 6 + 3*2
    ("global", "ACGTTTTACGT", "ACGTACGT", Costs(0, 4, 2), 6, (0, 8)),  # linear: 3*2
    ("infix", "AAAA", "CCCC", Costs(0, 1, 3), 4, None),
])
def test_hand_worked(mode, a, b, costs, score, region):
    pair = Pair.from_strings(a, b)
    for solver in CPU:
        result = solve(pair, costs, solver, mode=mode)
        assert result.score == score, solver
        if region:
            assert (result.start2, result.end2) == region, solver


def random_pair(rng: np.random.Generator, most: int) -> Pair:
    """Tiny to middling lengths (1 up to ``most``), related or not, with wildcards."""
    n, m = int(rng.integers(1, most)), int(rng.integers(1, most))
    a = rng.integers(0, 4, n).astype(np.uint8)
    b = rng.integers(0, 4, m).astype(np.uint8)
    if rng.random() < 0.6:
        lead = int(rng.integers(0, max(1, m // 3)))
        part = a[:max(0, m - lead)]
        b[lead:lead + part.size] = part
        b[rng.random(m) < 0.08] = int(rng.integers(0, 4))
    a[rng.random(n) < 0.03] = 4  # N in a never matches
    return Pair("r", "a", "b", a, b)


def random_costs(rng: np.random.Generator) -> Costs:
    kind = rng.integers(0, 3)
    if kind == 0:
        return Costs(0, int(rng.integers(1, 5)), int(rng.integers(1, 5)))  # linear, WFA's
    if kind == 1:
        return Costs(0, int(rng.integers(1, 7)), int(rng.integers(1, 4)), int(rng.integers(1, 9)))  # affine
    return Costs(int(rng.integers(-2, 1)), int(rng.integers(0, 5)), int(rng.integers(0, 4)), int(rng.integers(0, 5)))


def test_random_pairs_every_mode_and_cost_model():
    rng = np.random.default_rng(2601)
    print("seed 2601")
    for k in range(90):
        pair = random_pair(rng, 120 if k % 10 else 3)
        costs = random_costs(rng)
        mode = MODES[k % 3]
        check(pair, costs, mode, solve(pair, costs, "reference", mode=mode).score, CPU[1:])


def test_empty_sequences_every_mode():
    empty, three = np.zeros(0, np.uint8), Pair.from_strings("ACG", "A").a
    costs = Costs(0, 4, 2, 6)
    for a, b, want in ((empty, three, {"global": 12, "prefix": 0, "infix": 0}),
                       (three, empty, {"global": 12, "prefix": 12, "infix": 12})):
        pair = Pair("e", "a", "b", a, b)
        for mode in MODES:
            check(pair, costs, mode, want[mode])


def test_wfa_against_reference_and_its_caps():
    rng = np.random.default_rng(2602)
    print("seed 2602")
    for k in range(150):
        pair = random_pair(rng, 70)
        costs = random_costs(rng) if k % 2 else Costs(0, 4, 2, 6)
        if costs.match != 0 or costs.mismatch <= 0 or costs.indel <= 0:
            continue
        mode = MODES[k % 3]
        want = solve(pair, costs, "reference", mode=mode)
        got = wfa_align(pair.a, pair.b, costs, mode, True, 1 << 40)
        assert got.score == want.score
        assert cigar_cost(cigar_string(got.ops), pair.a, pair.b, costs, got.start2, got.end2) == want.score
    pair = random_pair(rng, 400)
    assert wfa_align(pair.a, pair.b, Costs(0, 4, 2, 6), "global", True, 10) is None  # over the work cap
    assert wfa_align(pair.a, pair.b, Costs(0, 4, 2, 6), "global", True, 1 << 40, kept_bytes=50) is None


def gap_start_reference(pair: Pair, costs: Costs) -> tuple[int, str, int, int]:
    """(score, CIGAR, start2, end2) of infix mode with the gap start, by the reference's tables."""
    h, d, ins = gotoh_tables(pair.a, pair.b, costs, "infix", gap_start=True)
    end2 = end_column(h, "infix")
    ops, start2 = trace_tables(h, d, ins, pair.a, pair.b, costs, "infix", end2)
    return int(h[-1, end2]), cigar_string(ops), start2, end2


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=letters, b=letters, costs=affine_costs)
def test_brute_force_infix_gap_start(a, b, costs):
    """Infix mode's gap start (a start on row 0 inside a gap of a's letters): the reference's
    tables and the WFA (where it applies) against every path, each CIGAR re-scored under the
    rule (a leading D run costs no gap-open)."""
    pair = Pair.from_strings(a, b)
    want = brute_force(a, b, costs, "infix", gap_start=True)
    score, cigar, start2, end2 = gap_start_reference(pair, costs)
    assert score == want == cigar_cost(cigar, pair.a, pair.b, costs, start2, end2, gap_start=True)
    if costs.match == 0 and costs.mismatch > 0 and costs.indel > 0:
        got = wfa_align(pair.a, pair.b, costs, "infix", True, 1 << 40, gap_start=True)
        assert got.score == want
        assert cigar_cost(cigar_string(got.ops), pair.a, pair.b, costs, got.start2, got.end2, gap_start=True) == want


def late_start_pair(rng: np.random.Generator, most: int) -> Pair:
    """a against b holding a copy of a with its first letters cut off (a leading D run pays
    there), substitutions, gaps inside, flanks; sometimes unrelated or tiny."""
    n = int(rng.integers(1, most))
    a = rng.integers(0, 4, n).astype(np.uint8)
    if rng.random() < 0.15:
        return Pair("u", "a", "b", a, rng.integers(0, 4, int(rng.integers(1, most))).astype(np.uint8))
    body = a[int(rng.integers(0, n // 2 + 1)):].copy()
    body[rng.random(body.size) < 0.05] = int(rng.integers(0, 4))
    if body.size > 2 and rng.random() < 0.5:
        at = int(rng.integers(1, body.size))
        body = np.delete(body, range(at, min(body.size, at + int(rng.integers(1, 20)))))
    flanks = [rng.integers(0, 4, int(rng.integers(0, 40))).astype(np.uint8) for _ in range(2)]
    b = np.concatenate([flanks[0], body, flanks[1]])
    return Pair("l", "a", "b", a, b if b.size else np.array([1], np.uint8))


def test_wfa_gap_start_against_the_reference():
    """The WFA's gap start on seeded random pairs up to 300 letters, long leading D runs (a's head
    cut off in b), every WFA cost model: the reference's score, the CIGAR re-scored under the rule,
    never above the plain infix optimum; with linear costs (no D state) the flag changes nothing."""
    seed = 2608
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    below = 0
    for k in range(120):
        pair = late_start_pair(rng, 300 if k % 4 else 12)
        costs = Costs(0, 4, 2, 6) if k % 3 == 0 else random_costs(rng)
        if costs.match != 0 or costs.mismatch <= 0 or costs.indel <= 0:
            costs = Costs(0, 3, 2, 5)
        want, _, _, _ = gap_start_reference(pair, costs)
        plain = wfa_align(pair.a, pair.b, costs, "infix", True, 1 << 40)
        got = wfa_align(pair.a, pair.b, costs, "infix", True, 1 << 40, gap_start=True)
        assert got.score == want <= plain.score, (k, costs)
        assert cigar_cost(cigar_string(got.ops), pair.a, pair.b, costs, got.start2, got.end2, gap_start=True) == want
        assert wfa_align(pair.a, pair.b, costs, "infix", False, 1 << 40, gap_start=True).score == want
        if costs.gap_open == 0:
            assert want == plain.score and got.end2 == plain.end2, (k, costs)
        below += want < plain.score
    assert below > 10  # the leading D runs paid: a test that can see the rule
    with pytest.raises(ValueError, match="infix"):
        wfa_align(pair.a, pair.b, Costs(0, 4, 2, 6), "global", False, 1 << 40, gap_start=True)


def gapped_pair(rng: np.random.Generator) -> Pair:
    """A random sequence against a copy with long insertions and deletions (up to 300 letters),
    substitutions and wildcards on both sides; sometimes a very short or empty side."""
    n = int(rng.integers(0, 3)) if rng.random() < 0.1 else int(rng.integers(50, 500))
    a = rng.integers(0, 4, n).astype(np.uint8)
    b = a.copy()
    for _ in range(int(rng.integers(0, 4))):
        at = int(rng.integers(0, b.size + 1))
        if rng.random() < 0.5:
            b = np.concatenate([b[:at], rng.integers(0, 4, int(rng.integers(1, 300))).astype(np.uint8), b[at:]])
        else:
            b = np.concatenate([b[:at], b[at + int(rng.integers(1, 300)):]])
    b[rng.random(b.size) < 0.05] = int(rng.integers(0, 4))
    a[rng.random(n) < 0.01] = 4  # N in a and R in b never match
    b[rng.random(b.size) < 0.01] = 5
    if rng.random() < 0.1:
        b = b[:int(rng.integers(0, 3))]
    return Pair("g", "a", "b", a, b)


def test_wfa_long_gaps_every_mode_against_the_dp():
    """The WFA's traceback walks gaps back through the kept I/D "opened" bits and replays the
    offsets forward: long gaps (hundreds of letters), both ends, empty sides, every mode."""
    seed = 2605
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    for k in range(60):
        pair = gapped_pair(rng)
        costs = Costs(0, 4, 2, 6) if k % 3 == 0 else (
            Costs(0, int(rng.integers(1, 6)), int(rng.integers(1, 4)), int(rng.integers(0, 12))))
        mode = MODES[k % 3]
        want = solve(pair, costs, "sequential", traceback=False, mode=mode).score
        got = wfa_align(pair.a, pair.b, costs, mode, True, 1 << 40)
        assert got.score == want, (k, costs, mode)
        assert cigar_cost(cigar_string(got.ops), pair.a, pair.b, costs, got.start2, got.end2) == want, (k, costs, mode)
        assert wfa_align(pair.a, pair.b, costs, mode, False, 1 << 40).score == want, (k, costs, mode)


def test_multicore_reports_the_algorithm():
    pair = Pair.from_strings("ACGTACGTTTGA" * 40, "ACGTACGTTTGA" * 20 + "ACGTCGTTAGA" + "ACGTACGTTTGA" * 19)
    assert solve(pair, Costs(0, 4, 2, 6), "multicore").algorithm == "wfa"
    assert solve(pair, Costs(-1, 4, 2, 6), "multicore").algorithm == "dp"  # a match bonus: no WFA
    assert solve(pair, Costs(0, 4, 2, 6), "sequential").algorithm == "dp"


def test_multicore_gives_the_wfa_up_past_its_share_of_the_dps_time(monkeypatch):
    """An unrelated 1,000 x 1,000 pair: the WFA finishes it within its share of the DP's time
    (~0.15 visits a cell, linear; ~3.8 affine); with a share too small for it, the DP runs.
    Same answers either way."""
    seed = 2607
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    pair = Pair("u", "a", "b", rng.integers(0, 4, 1000).astype(np.uint8), rng.integers(0, 4, 1000).astype(np.uint8))
    one_core = cpu.MulticoreSolver(threads=1)  # the DP's time on one core: the same share everywhere
    for costs in (Costs(0, 1, 3), Costs(0, 4, 2, 6)):
        want = solve(pair, costs, "sequential")
        got = one_core.solve(pair, costs)
        assert (got.algorithm, got.score) == ("wfa", want.score)
        assert cigar_cost(got.cigar, pair.a, pair.b, costs) == want.score
    monkeypatch.setattr(cpu, "WFA_GIVE_UP", 1e-6)
    for costs in (Costs(0, 1, 3), Costs(0, 4, 2, 6)):
        got = one_core.solve(pair, costs)
        assert (got.algorithm, got.score) == ("dp", solve(pair, costs, "sequential").score)


def test_affine_alignment_over_many_checkpoint_blocks(monkeypatch):
    """Blocks of a few rows: the walk crosses many block boundaries, in gaps too."""
    monkeypatch.setattr(backtrack, "BITS_BYTES", 64 * 40)
    rng = np.random.default_rng(2603)
    print("seed 2603")
    for k in range(25):
        pair = random_pair(rng, 300)
        costs = Costs(int(rng.integers(-1, 1)), int(rng.integers(1, 6)), int(rng.integers(1, 4)),
                      int(rng.integers(0, 9)))
        mode = MODES[k % 3]
        check(pair, costs, mode, solve(pair, costs, "reference", mode=mode).score, ("sequential",))


def test_ops_cost_counts_gap_opens():
    ops = np.array([0, 2, 2, 3, 0, 2], dtype=np.int8)  # =, DD, I, =, D: three gaps
    assert ops_cost(ops, Costs(0, 1, 2, 5)) == 4 * 2 + 3 * 5
    with pytest.raises(ValueError, match="two D runs"):
        cigar_cost("1D1D", np.zeros(2, np.uint8), np.zeros(0, np.uint8), Costs())


def test_pywfa_oracle_affine_and_modes():
    pytest.importorskip("pywfa")
    rng = np.random.default_rng(2604)
    print("seed 2604")
    for k in range(60):
        pair = random_pair(rng, 300)
        costs = Costs(0, 4, 2, 6) if k % 2 else Costs(0, int(rng.integers(1, 5)), int(rng.integers(1, 4)),
                                                         int(rng.integers(0, 8)))
        mode = MODES[k % 3]
        want = solve(pair, costs, "multicore", mode=mode)
        peer = solve(pair, costs, "pywfa", mode=mode)
        assert peer.score == want.score == solve(pair, costs, "sequential", traceback=False, mode=mode).score
        assert cigar_cost(peer.cigar, pair.a, pair.b, costs, peer.start2, peer.end2) == peer.score


@pytest.mark.parametrize("mode, edlib_mode", [("global", "NW"), ("prefix", "SHW"), ("infix", "HW")])
def test_edlib_oracle_unit_costs_modes(mode, edlib_mode):
    edlib = pytest.importorskip("edlib")
    rng = np.random.default_rng(2605)
    print("seed 2605")
    for _ in range(30):
        pair = random_pair(rng, 300)
        a, b = ("".join("ACGTN"[c] for c in s) for s in (pair.a, pair.b))
        want = edlib.align(a, b, mode=edlib_mode, task="distance", additionalEqualities=[])["editDistance"]
        assert solve(pair, Costs(0, 1, 1), "multicore", mode=mode).score == want


def test_costs_and_modes_are_validated():
    with pytest.raises(InputError, match="gap-open"):
        Costs(0, 1, 3, -1)
    with pytest.raises(InputError, match="unknown mode"):
        solve(Pair.from_strings("A", "A"), Costs(), "sequential", mode="local")


def test_batches_in_input_order():
    from splicedalign.workloads.nw.solvers import SOLVERS, solve_pairs

    rng = np.random.default_rng(2606)
    print("seed 2606")
    pairs = [random_pair(rng, 200) for _ in range(24)]
    for costs in (Costs(), Costs(0, 4, 2, 6), Costs(-1, 2, 1, 3)):
        for mode in MODES:
            want = [solve(p, costs, "reference", traceback=False, mode=mode).score for p in pairs]
            for name in ("sequential", "multicore"):
                got = solve_pairs(SOLVERS.get(name), pairs, costs, True, mode)
                assert [r.score for r in got] == want
                assert all(r.solver == name for r in got)
                for p, r in zip(pairs, got):
                    assert cigar_cost(r.cigar, p.a, p.b, costs, r.start2, r.end2) == r.score


def test_parallel_affine_blocks_equal_the_serial_rows():
    """Tiny blocks force many anti-diagonal steps; chunks of rows test the corner of a later chunk."""
    from splicedalign.workloads.nw.backtrack import initial_rows
    from splicedalign.workloads.nw.cpu_kernels import advance_affine, advance_parallel_affine

    rng = np.random.default_rng(2607)
    print("seed 2607")
    for k in range(25):
        pair = random_pair(rng, 80)
        costs = Costs(int(rng.integers(-1, 1)), int(rng.integers(1, 6)), int(rng.integers(1, 4)),
                      int(rng.integers(1, 9)))
        mode = MODES[k % 3]
        want = initial_rows(pair.m, costs, mode)
        advance_affine(pair.a, pair.b, want[0], want[1], 0, *costs.as_affine())
        got = initial_rows(pair.m, costs, mode)
        cut = int(rng.integers(0, pair.n + 1))
        advance_parallel_affine(pair.a[:cut], pair.b, got[0], got[1], 0, *costs.as_affine(), 3, 5)
        advance_parallel_affine(pair.a[cut:], pair.b, got[0], got[1], cut, *costs.as_affine(), 2, 4)
        assert (got[0] == want[0]).all() and (got[1] == want[1]).all()


def test_cigar_string_runs_of_every_length():
    seed = 2606
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    for size in (0, 1, 2, 9, 10, 11, 99, 100, 1000, 12345):
        for _ in range(5):
            ops = np.repeat(rng.integers(0, 4, size).astype(np.int8), rng.integers(1, 3, size))[:size]
            ops[:int(rng.integers(0, size + 1))] = 2  # a long run: several digits
            want = "".join(f"{len(list(run))}{'=XDI'[op]}" for op, run in itertools.groupby(ops.tolist()))
            assert cigar_string(ops) == want
