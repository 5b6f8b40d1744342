"""sw: every CPU solver and peer against the paper's worked example, an independent plain DP and
a brute force over all pairs of substrings (hypothesis), and each other on seeded random data."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from splicedalign.core.errors import SolverUnavailable
from splicedalign.workloads.sw import synthetic
from splicedalign.workloads.sw.matrices import encode, matrix
from splicedalign.workloads.sw.records import Database, Query, Scoring, fits_int16
from splicedalign.workloads.sw.solvers import SOLVERS, search

CPU = ("reference", "sequential", "multicore")
LETTERS = matrix("blosum62")[0]


def solver_or_skip(name):
    try:
        return SOLVERS.get(name)
    except SolverUnavailable as exc:
        pytest.skip(str(exc))


def sbt(a: str, b: str) -> int:
    letters, table = matrix("blosum62")
    return int(table[letters.index(a), letters.index(b)])


def plain_sw(q: str, d: str, gap: int) -> int:
    """The SPEC's recurrence, cell by cell, on strings (independent of the package's code)."""
    H = [[0] * (len(d) + 1) for _ in range(len(q) + 1)]
    for i in range(1, len(q) + 1):
        for j in range(1, len(d) + 1):
            H[i][j] = max(0, H[i - 1][j - 1] + sbt(q[i - 1], d[j - 1]), H[i - 1][j] - gap, H[i][j - 1] - gap)
    return max(max(row) for row in H)


@functools.lru_cache(maxsize=None)
def global_score(a: str, b: str, gap: int) -> int:
    """Best global alignment score of a and b (Needleman-Wunsch, linear gap)."""
    prev = [-gap * j for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        cur = [-gap * i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = max(prev[j - 1] + sbt(a[i - 1], b[j - 1]), prev[j] - gap, cur[j - 1] - gap)
        prev = cur
    return prev[-1]


def brute_force(q: str, d: str, gap: int) -> int:
    """A local alignment is a global alignment of a substring pair; the empty one scores 0."""
    subs = lambda s: {s[a:b] for a in range(len(s)) for b in range(a + 1, len(s) + 1)}
    return max([0] + [global_score(a, b, gap) for a in subs(q) for b in subs(d)])


def scores(name, q: str, ds: list[str], gap: int) -> list[int]:
    db = Database.from_codes([f"d{k}" for k in range(len(ds))], [encode(d) for d in ds])
    return solver_or_skip(name).scores(Query("q", encode(q)), db, Scoring(gap=gap)).tolist()


@pytest.mark.parametrize("name", CPU + ("pyopal", "parasail"))
def test_paper_figure_2(name):
    assert scores(name, "GCAGGGTTAG", ["CCACCGGGGC"], 4) == [27]


def test_plain_dp_and_brute_force_agree_on_figure_2():
    assert plain_sw("GCAGGGTTAG", "CCACCGGGGC", 4) == 27 == brute_force("GCAGGGTTAG", "CCACCGGGGC", 4)


protein = st.text(alphabet=LETTERS, min_size=1, max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(q=protein, ds=st.lists(protein, min_size=1, max_size=4), gap=st.integers(1, 6))
def test_solvers_match_brute_force_on_tiny_inputs(q, ds, gap):
    want = [brute_force(q, d, gap) for d in ds]
    assert want == [plain_sw(q, d, gap) for d in ds]
    for name in CPU:
        assert scores(name, q, ds, gap) == want, name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(q=st.text(alphabet=LETTERS[:20], min_size=1, max_size=40),
       ds=st.lists(st.text(alphabet=LETTERS[:20], min_size=1, max_size=90), min_size=1, max_size=70),
       gap=st.integers(1, 12))
def test_solvers_match_plain_dp(q, ds, gap):
    """Up to 70 sequences: several SIMD batches of multicore, ragged lengths, padding."""
    want = [plain_sw(q, d, gap) for d in ds]
    for name in CPU + ("pyopal", "parasail"):
        try:
            got = SOLVERS.get(name).scores(Query("q", encode(q)), Database.from_codes(
                [str(k) for k in range(len(ds))], [encode(d) for d in ds]), Scoring(gap=gap)).tolist()
        except SolverUnavailable:
            continue
        assert got == want, name


@pytest.mark.parametrize("seed", [11, 12])
def test_solvers_agree_on_random_database(seed):
    rng = np.random.default_rng(seed)
    print("seed", seed)
    q = synthetic.query(int(rng.integers(50, 300)), seed)
    db = synthetic.database(rng.integers(1, 700, 150), seed, q, homologs=10)
    want = SOLVERS.get("sequential").scores(q, db, Scoring())
    assert want.max() > 100  # the homologs are found
    small = db.subset(0, 12)
    assert np.array_equal(SOLVERS.get("reference").scores(q, small, Scoring()), want[:12])
    for name in ("multicore", "pyopal", "parasail"):
        try:
            got = SOLVERS.get(name).scores(q, db, Scoring())
        except SolverUnavailable:
            continue
        assert np.array_equal(got, want), name


def test_scores_beyond_16_bits():
    """A pair whose score exceeds 32767 goes to multicore's 32-bit lanes; its neighbours
    in the database stay on 16 bits."""
    rng = np.random.default_rng(5)
    q = np.concatenate([synthetic.residues(rng, 300), encode("W" * 3000), synthetic.residues(rng, 300)])
    db = Database.from_codes(["same", "short", "mut"], [q, synthetic.residues(rng, 50), synthetic.mutate(rng, q, 0.05)])
    assert not fits_int16(Scoring(), q.size, db.lengths).all()
    want = SOLVERS.get("sequential").scores(Query("q", q), db, Scoring())
    assert want[0] > 32767
    assert SOLVERS.get("multicore").scores(Query("q", q), db, Scoring()).tolist() == want.tolist()
    assert SOLVERS.get("reference").scores(Query("q", q), db.subset(0, 1), Scoring()).tolist() == want[:1].tolist()


def test_pyopal_refuses_stop_letters():
    try:
        solver = SOLVERS.get("pyopal")
    except SolverUnavailable as exc:
        pytest.skip(str(exc))
    with pytest.raises(SolverUnavailable, match=r"\*"):
        solver.scores(Query("q", encode("AC*")), Database.from_codes(["a"], [encode("ACW")]), Scoring())


def test_search_chunks_and_ranks():
    q = synthetic.query(60, 1)
    db = synthetic.database(np.arange(10, 40), 1, q, homologs=3)
    whole = search(q, db, Scoring(), "sequential")
    chunked = search(q, db, Scoring(), "sequential", chunk_cells=60 * 50)
    assert [h.score for h in chunked.hits] == [h.score for h in whole.hits]
    assert whole.cells == 60 * db.residues
    ranked = whole.ranked(5)
    assert len(ranked) == 5 and [h.score for h in ranked] == sorted((h.score for h in whole.hits), reverse=True)[:5]
