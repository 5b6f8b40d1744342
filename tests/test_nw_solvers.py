"""nw solvers against hand-worked cases, a brute-force enumeration of all alignments on tiny
inputs (hypothesis), each other and the peers; every CIGAR is re-scored."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from splicedalign.core.errors import InputError
from splicedalign.workloads.nw import Costs, Pair, cigar_cost, solve
from splicedalign.workloads.nw.backtrack import first_row, hirschberg, sequential_forward, trace_checkpoints
from splicedalign.workloads.nw.cigar import cigar_string, runs_cigar
from splicedalign.workloads.nw.cpu_kernels import advance, advance_parallel
from splicedalign.workloads.nw.records import ops_cost
from splicedalign.workloads.nw.reference import cost_table

CPU = ("reference", "sequential", "multicore")


def brute_force(a: str, b: str, costs: Costs) -> int:
    """Least cost over every alignment (each step: pair, gap in b, gap in a), enumerated."""
    @functools.cache
    def best(i: int, j: int) -> int:
        if i == len(a) and j == len(b):
            return 0
        options = []
        if i < len(a) and j < len(b):
            same = a[i] == b[j] and a[i] in "ACGT"
            options.append((costs.match if same else costs.mismatch) + best(i + 1, j + 1))
        if i < len(a):
            options.append(costs.indel + best(i + 1, j))
        if j < len(b):
            options.append(costs.indel + best(i, j + 1))
        return min(options)
    return best(0, 0)


@pytest.mark.parametrize("solver", CPU)
@pytest.mark.parametrize("a, b, costs, score", [
    ("ACGTACGTTTGA", "ACGTCGTTAGA", Costs(), 4),  # one deletion (3) + one substitution (1)
    ("A", "A", Costs(), 0),
    ("A", "C", Costs(), 1),
    ("A", "C", Costs(0, 7, 3), 6),  # two gaps beat a mismatch of 7
    ("N", "N", Costs(), 1),  # an ambiguity code matches nothing, itself included
    ("GATTACA", "GATTACA", Costs(), 0),
    ("AAAA", "A", Costs(), 9),
    ("ACGT", "TGCA", Costs(0, 1, 1), 4),
])
def test_hand_worked(solver, a, b, costs, score):
    pair = Pair.from_strings(a, b)
    result = solve(pair, costs, solver)
    assert result.score == score
    assert cigar_cost(result.cigar, pair.a, pair.b, costs) == score
    assert solve(pair, costs, solver, traceback=False).score == score


def test_hand_worked_cigar():
    result = solve(Pair.from_strings("ACGTACGTTTGA", "ACGTCGTTAGA"), Costs(), "sequential")
    assert result.cigar == "4=1D4=1X2="
    assert result.identity == pytest.approx(10 / 12)


def test_runs_cigar_is_the_ops_cigar():
    """A walk's runs (length << 2 | op, the last run first, as the GPU's walks write them) make
    the CIGAR of the operations they spell."""
    rng = np.random.default_rng(2611)
    print("seed 2611")
    for size in (0, 1, 7, 300):
        for steps in ((1, 4), (0, 4)):  # (0: runs of one operation in a row too, as joined pieces' walks have)
            ops = np.cumsum(rng.integers(*steps, size)) % 4
            lengths = rng.choice([1, 2, 9, 10, 11, 99, 100, 12345, 1 << 20], size)
            runs = ((lengths << 2) | ops).astype(np.uint32)[::-1].copy()
            assert runs_cigar(runs) == cigar_string(np.repeat(ops, lengths))


def test_empty_sequence():
    pair = Pair("e", "a", "b", np.zeros(0, np.uint8), Pair.from_strings("ACG", "A").a)
    for solver in CPU:
        result = solve(pair, Costs(), solver)
        assert (result.score, result.cigar) == (9, "3I")


letters = st.text(alphabet="ACGTN", min_size=1, max_size=6)
costs_st = st.builds(Costs, st.integers(-2, 1), st.integers(0, 5), st.integers(0, 6))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=letters, b=letters, costs=costs_st)
def test_brute_force(a, b, costs):
    pair = Pair.from_strings(a, b)
    want = brute_force(a, b, costs)
    for solver in CPU:
        result = solve(pair, costs, solver)
        assert result.score == want, solver
        assert cigar_cost(result.cigar, pair.a, pair.b, costs) == want, solver
        assert ops_cost(np.zeros(0, np.int8), costs) == 0


def random_pair(rng: np.random.Generator, most: int) -> Pair:
    n, m = int(rng.integers(1, most)), int(rng.integers(1, most))
    a = rng.integers(0, 4, n).astype(np.uint8)
    b = a[:m].copy() if rng.random() < 0.5 and m <= n else rng.integers(0, 4, m).astype(np.uint8)
    b[rng.random(b.size) < 0.1] = 2
    return Pair("r", "a", "b", a, b)


def test_hirschberg_recursion_and_parallel_blocks():
    """Tiny base cases force deep Hirschberg recursion; tiny blocks force many wavefront steps."""
    rng = np.random.default_rng(11)
    print("seed 11")
    for _ in range(30):
        pair = random_pair(rng, 60)
        costs = Costs(int(rng.integers(-1, 1)), int(rng.integers(1, 4)), int(rng.integers(1, 5)))
        table = cost_table(pair.a, pair.b, costs)
        ops = hirschberg(pair.a, pair.b, costs, sequential_forward(costs), base_cells=4)
        assert cigar_cost(cigar_string(ops), pair.a, pair.b, costs) == table[-1, -1]
        row = first_row(pair.m, costs)
        advance_parallel(pair.a, pair.b, row, 0, *costs.as_tuple(), 3, 5)
        assert (row == table[-1]).all()
        row = first_row(pair.m, costs)
        advance(pair.a[:7], pair.b, row, 0, *costs.as_tuple())
        advance(pair.a[7:], pair.b, row, 7, *costs.as_tuple())
        assert (row == table[-1]).all()


def test_trace_checkpoints_from_table():
    """The GPU solvers' traceback, fed with rows every S and columns every C of the full table."""
    rng = np.random.default_rng(12)
    print("seed 12")
    for _ in range(30):
        pair = random_pair(rng, 90)
        costs = Costs()
        table = cost_table(pair.a, pair.b, costs)
        s, c = int(rng.integers(1, 20)), int(rng.integers(1, 20))
        # (a column as the solvers give it: an array of its own, C-contiguous, not a strided view of the table)
        ops = trace_checkpoints(pair.a, pair.b, costs, s, lambda k, c0, c1, table=table, s=s: table[k * s, c0:c1 + 1],
                                c, lambda q, r0, r1, table=table, c=c: table[r0:r1 + 1, q * c].copy())
        assert cigar_cost(cigar_string(ops), pair.a, pair.b, costs) == table[-1, -1]


def test_solvers_agree_on_longer_pairs():
    rng = np.random.default_rng(13)
    print("seed 13")
    for _ in range(3):
        pair = random_pair(rng, 2500)
        scores = {s: solve(pair, Costs(), s).score for s in CPU}
        assert len(set(scores.values())) == 1, scores


def test_pywfa_oracle():
    pytest.importorskip("pywfa")
    rng = np.random.default_rng(14)
    print("seed 14")
    for _ in range(40):
        pair = random_pair(rng, 400)
        costs = Costs(0, int(rng.integers(1, 5)), int(rng.integers(1, 6)))
        peer = solve(pair, costs, "pywfa")
        assert peer.score == solve(pair, costs, "sequential", traceback=False).score
        assert cigar_cost(peer.cigar, pair.a, pair.b, costs) == peer.score
    with pytest.raises(Exception, match="match cost 0"):
        solve(pair, Costs(-1, 1, 3), "pywfa")


def test_benchmark_pywfa_peer():
    """The benchmarks' pywfa peer: the batch rows' pywfa_score and the single-pair timing
    (peers.time_pywfa: fresh processes, the aligner kept or new) give sequential's score, with
    and without the CIGAR (re-scored); each process times at least MIN_REPEATS calls, and a row's
    time is the median of the processes' medians."""
    pytest.importorskip("pywfa")
    from splicedalign.workloads.nw.peers import (
        A_LETTERS,
        B_LETTERS,
        MIN_REPEATS,
        PywfaJob,
        letters,
        pywfa_model,
        pywfa_score,
        time_pywfa,
    )
    from splicedalign.workloads.nw.synthetic import ISSUE26_COSTS

    rng = np.random.default_rng(16)
    print("seed 16")
    jobs, wants = [], []
    for k, costs in enumerate(ISSUE26_COSTS.values()):
        for traceback in (False, True):
            pair = random_pair(rng, 300)
            wants.append((pair, costs, solve(pair, costs, "sequential", traceback=False).score))
            jobs.append(PywfaJob(pair.a, pair.b, costs, traceback, reuse=k == 0))
            job = (letters(pair.a, A_LETTERS), letters(pair.b, B_LETTERS), pywfa_model(costs), traceback)
            assert pywfa_score(job) == wants[-1][2]
    for job, timing, (pair, costs, want) in zip(jobs, time_pywfa(jobs, processes=2), wants):
        assert timing.score == want
        assert (timing.cigar is not None) == job.traceback
        if job.traceback:
            assert cigar_cost(timing.cigar, pair.a, pair.b, costs) == want
        assert len(timing.wall.runs) == 2 and min(timing.repeats) >= MIN_REPEATS
        assert timing.wall.median == sum(timing.wall.runs) / 2 and len(timing.cpu.runs) == 2


def test_time_pywfa_rescores_its_cigar(monkeypatch):
    """peers.time_pywfa re-scores each CIGAR row (cigar_cost) and raises when it does not cost the
    score the processes agreed on: the benchmarks' and device scripts' one check of pywfa's CIGAR."""
    pytest.importorskip("pywfa")
    from splicedalign.workloads.nw import peers

    rng = np.random.default_rng(17)
    print("seed 17")
    pair = random_pair(rng, 200)
    jobs = [peers.PywfaJob(pair.a, pair.b, Costs(), traceback) for traceback in (False, True)]
    monkeypatch.setattr(peers, "cigar_cost", lambda cigar, a, b, costs: -1)
    with pytest.raises(RuntimeError, match="re-scores to -1, not its score"):
        peers.time_pywfa(jobs, processes=1, min_repeats=1, min_seconds=0.0)
    monkeypatch.setattr(peers, "cigar_cost", cigar_cost)
    score, cigar = peers.time_pywfa(jobs, processes=1, min_repeats=1, min_seconds=0.0)
    assert score.cigar is None and cigar_cost(cigar.cigar, pair.a, pair.b, Costs()) == cigar.score == score.score


def test_edlib_oracle_unit_costs():
    edlib = pytest.importorskip("edlib")
    rng = np.random.default_rng(15)
    print("seed 15")
    for _ in range(40):
        pair = random_pair(rng, 400)
        a, b = ("ACGT"[c] for c in pair.a), ("ACGT"[c] for c in pair.b)
        want = edlib.align("".join(a), "".join(b), mode="NW", task="distance")["editDistance"]
        assert solve(pair, Costs(0, 1, 1), "sequential").score == want


def test_costs_are_validated():
    with pytest.raises(InputError, match="integer"):
        Costs(0, 1.5, 3)
    with pytest.raises(InputError, match="outside"):
        Costs(0, 1, 10**9)
