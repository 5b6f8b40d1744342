"""Randomized checks: solvers vs the brute-force chain enumerator on tiny inputs, and
traceback validity on gene-like cases."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_cpu_solvers_match_oracle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from splicedalign.workloads.spliced import synthetic
from splicedalign.workloads.spliced.oracle import alignment_problems, brute_force
from splicedalign.workloads.spliced.records import TARGET_ENDS, Exon, Scoring, TestCase
from splicedalign.workloads.spliced.solvers import solve

DNA = st.text(alphabet="ACGTN", min_size=1, max_size=12)


@st.composite
def tiny_cases(draw):
    base = draw(st.text(alphabet="ACGTacgtN", min_size=1, max_size=14))
    target = draw(st.text(alphabet="ACGTN", min_size=1, max_size=7))
    m = len(base)
    exons = []
    for _ in range(draw(st.integers(1, 5))):
        first = draw(st.integers(1, m))
        last = draw(st.integers(first, min(m, first + 6)))
        exons.append(Exon(first, last))
    scoring = Scoring(draw(st.integers(0, 3)), draw(st.integers(-3, 0)), draw(st.integers(0, 3)),
                      draw(st.sampled_from(TARGET_ENDS)))
    return TestCase("tiny", base, target, tuple(exons)), scoring


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_cases())
def test_solvers_match_brute_force(data):
    assert_cpu_solvers_match_oracle(*data)


@pytest.mark.parametrize("target_ends", TARGET_ENDS)
@pytest.mark.parametrize("seed", range(12))
def test_traceback_on_gene_like_cases(seed, target_ends):
    rng = np.random.default_rng(seed)
    shape = synthetic.Shape(m=int(rng.integers(500, 4000)), K=int(rng.integers(1, 40)),
                            n=int(rng.integers(1, 600)), exon_mean=float(rng.integers(5, 200)))
    scoring = Scoring(int(rng.integers(1, 4)), -int(rng.integers(0, 4)), int(rng.integers(1, 4)), target_ends)
    (case,) = synthetic.gene_like(rng, shape, f"g{seed}")
    results = {name: solve(case, scoring, name) for name in ("sequential", "multicore")}
    assert results["sequential"].score == results["multicore"].score
    assert (results["sequential"].last_row_scores == results["multicore"].last_row_scores).all()
    for result in results.values():
        assert alignment_problems(case, result, scoring) == []


def test_reference_agrees_on_gene_like_case():
    (case,) = synthetic.gene_like(np.random.default_rng(3), synthetic.Shape(900, 12, 80, 40), "r")
    ref, seq = solve(case, Scoring(), "reference"), solve(case, Scoring(), "sequential")
    assert ref.score == seq.score
    assert ref.last_row_scores.tolist() == seq.last_row_scores.tolist()


@pytest.mark.slow
def test_int64_scores_when_int32_could_overflow():
    """Huge unit scores switch the solvers to int64 cells; scores stay exact."""
    scoring = Scoring(10**8, -(10**8), 3 * 10**8)
    case = TestCase("big", "ACGTACGTAC", "ACGTTCGTAC", (Exon(1, 4), Exon(5, 10)))
    result = solve(case, scoring, "sequential")
    assert result.score == 8 * 10**8
    assert result.score == brute_force(case, scoring)[0]


def test_wildcards_never_match():
    case = TestCase("n", "NNNN", "NNNN", (Exon(1, 4),))
    assert solve(case, Scoring(), "sequential").score == -4
    lower = TestCase("l", "acgt", "ACGT", (Exon(1, 4),))
    assert solve(lower, Scoring(), "sequential").score == 4
