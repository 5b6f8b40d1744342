"""sw: every CPU solver and peer against the paper's worked example, an independent plain DP and
a brute force over all pairs of substrings (hypothesis), linear and affine gaps and every
matrix, and each other on seeded random data; reported hits (ranking, E-values, alignments that
re-score to the hit's score)."""

from __future__ import annotations

import functools
import math

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from splicedalign.core import simd
from splicedalign.core.errors import SolverUnavailable
from splicedalign.workloads.sw import cpu_kernels, synthetic
from splicedalign.workloads.sw.cpu import dealt, lane_table
from splicedalign.workloads.sw.matrices import encode, matrix
from splicedalign.workloads.sw.records import Database, Query, Scoring, fits_int16, ranked
from splicedalign.workloads.sw.solvers import SOLVERS, search, search_many
from splicedalign.workloads.sw.traceback import align, rescore

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


def plain_sw(q: str, d: str, gap: int, gap_open: int = 0, name: str = "blosum62") -> int:
    """The SPEC's recurrence (C2, Gotoh; C when open is 0), cell by cell, on strings
    (independent of the package's code)."""
    letters, table = matrix(name)
    o, e = gap_open, gap
    NEG = -10**9
    H = [[0] * (len(d) + 1) for _ in range(len(q) + 1)]
    E = [[NEG] * (len(d) + 1) for _ in range(len(q) + 1)]
    F = [[NEG] * (len(d) + 1) for _ in range(len(q) + 1)]
    for i in range(1, len(q) + 1):
        for j in range(1, len(d) + 1):
            E[i][j] = max(H[i][j - 1] - o - e, E[i][j - 1] - e)
            F[i][j] = max(H[i - 1][j] - o - e, F[i - 1][j] - e)
            s = int(table[letters.index(q[i - 1]), letters.index(d[j - 1])])
            H[i][j] = max(0, H[i - 1][j - 1] + s, E[i][j], F[i][j])
    return max(max(row) for row in H)


@functools.cache
def global_score(a: str, b: str, gap: int, gap_open: int = 0) -> int:
    """Best global alignment score of a and b: over every alignment, enumerated recursively
    (a gap run of length L costs open + L * extend)."""
    @functools.cache
    def best(i: int, j: int) -> int:  # a[i:] against b[j:]
        if i == len(a) and j == len(b):
            return 0
        options = []
        if i < len(a) and j < len(b):
            options.append(sbt(a[i], b[j]) + best(i + 1, j + 1))
        options += [-gap_open - L * gap + best(i + L, j) for L in range(1, len(a) - i + 1)]
        options += [-gap_open - L * gap + best(i, j + L) for L in range(1, len(b) - j + 1)]
        return max(options)
    return best(0, 0)


def brute_force(q: str, d: str, gap: int, gap_open: int = 0) -> int:
    """A local alignment is a global alignment of a substring pair; the empty one scores 0."""
    def subs(s):
        return {s[a:b] for a in range(len(s)) for b in range(a + 1, len(s) + 1)}

    return max([0] + [global_score(a, b, gap, gap_open) for a in subs(q) for b in subs(d)])


def scores(name, q: str, ds: list[str], gap: int, gap_open: int = 0) -> list[int]:
    db = Database.from_codes([f"d{k}" for k in range(len(ds))], [encode(d) for d in ds])
    return solver_or_skip(name).scores(Query("q", encode(q)), db, Scoring("blosum62", gap_open, gap)).tolist()


@pytest.mark.parametrize("name", CPU + ("pyopal", "parasail"))
def test_blast_gap_convention(name):
    """A gap of length L costs o + L e: a query with a 2-letter insertion against the copy
    without it scores 10 * 11 - (11 + 2 * 1) = 97 at BLOSUM62 11/1 (the ungapped best is 82;
    parasail's o + (L-1) e convention would give 98)."""
    assert plain_sw("WWWWWAAWWWWW", "WWWWWWWWWW", 1, 11) == 97
    assert scores(name, "WWWWWAAWWWWW", ["WWWWWWWWWW"], 1, 11) == [97]


@pytest.mark.parametrize("name", CPU + ("pyopal", "parasail"))
def test_paper_figure_2(name):
    assert scores(name, "GCAGGGTTAG", ["CCACCGGGGC"], 4) == [27]


def test_plain_dp_and_brute_force_agree_on_figure_2():
    assert plain_sw("GCAGGGTTAG", "CCACCGGGGC", 4) == 27 == brute_force("GCAGGGTTAG", "CCACCGGGGC", 4)


protein = st.text(alphabet=LETTERS, min_size=1, max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(q=protein, ds=st.lists(protein, min_size=1, max_size=4), gap=st.integers(1, 6), gap_open=st.integers(0, 12))
def test_solvers_match_brute_force_on_tiny_inputs(q, ds, gap, gap_open):
    want = [brute_force(q, d, gap, gap_open) for d in ds]
    assert want == [plain_sw(q, d, gap, gap_open) for d in ds]
    for name in CPU:
        assert scores(name, q, ds, gap, gap_open) == want, name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(q=st.text(alphabet=LETTERS[:20], min_size=1, max_size=40),
       ds=st.lists(st.text(alphabet=LETTERS[:20], min_size=1, max_size=90), min_size=1, max_size=70),
       gap=st.integers(1, 12), gap_open=st.sampled_from([0, 0, 3, 11]),
       name=st.sampled_from(["blosum45", "blosum50", "blosum62", "blosum80", "pam30", "pam70", "pam250"]))
def test_solvers_match_plain_dp(q, ds, gap, gap_open, name):
    """Up to 70 sequences: several SIMD batches of multicore, ragged lengths, padding; every
    matrix, linear and affine gaps."""
    want = [plain_sw(q, d, gap, gap_open, name) for d in ds]
    for solver in CPU + ("pyopal", "parasail"):
        try:
            got = SOLVERS.get(solver).scores(Query("q", encode(q)), Database.from_codes(
                [str(k) for k in range(len(ds))], [encode(d) for d in ds]), Scoring(name, gap_open, gap)).tolist()
        except SolverUnavailable:
            continue
        assert got == want, solver


@pytest.mark.parametrize("seed,scoring", [(11, Scoring()), (12, Scoring.blast()), (13, Scoring.blast("pam30")),
                                          (14, Scoring.blast("blosum45"))])
def test_solvers_agree_on_random_database(seed, scoring):
    rng = np.random.default_rng(seed)
    print("seed", seed)
    q = synthetic.query(int(rng.integers(50, 300)), seed)
    db = synthetic.database(rng.integers(1, 700, 150), seed, q, homologs=10)
    want = SOLVERS.get("sequential").scores(q, db, scoring)
    assert want.max() > 100  # the homologs are found
    small = db.subset(0, 12)
    assert np.array_equal(SOLVERS.get("reference").scores(q, small, scoring), want[:12])
    for name in ("multicore", "pyopal", "parasail"):
        try:
            got = SOLVERS.get(name).scores(q, db, scoring)
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


SCORINGS = [Scoring(name, o, e) for name in ("blosum45", "blosum50", "blosum62", "blosum80", "pam30", "pam70",
                                              "pam250") for o, e in ((0, 4), (11, 1), (10, 3))]
WIDE_GAPS = [Scoring("blosum62", 140, 2), Scoring("pam30", 0, 130)]  # o + e > 127: no 8-bit pass


@pytest.mark.parametrize("scoring", SCORINGS + WIDE_GAPS, ids=lambda s: f"{s.matrix}-{s.gap_open}-{s.gap_extend}")
def test_multicore_equals_sequential_every_matrix(scoring):
    """Several full and partial SIMD batches, lengths from 1 to 600, homologs whose scores
    overflow the 8-bit first pass (re-run on 16 bits), every matrix, linear and affine gaps."""
    seed = 31 + SCORINGS.index(scoring) if scoring in SCORINGS else 29
    print("seed", seed)
    rng = np.random.default_rng(seed)
    q = synthetic.query(int(rng.integers(40, 400)), seed)
    db = synthetic.database(rng.integers(1, 600, 300), seed, q, homologs=12)
    want = SOLVERS.get("sequential").scores(q, db, scoring)
    assert (want >= 127).any() and (want < 127).any()
    assert np.array_equal(SOLVERS.get("multicore").scores(q, db, scoring), want)


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_saturating_pass_exact_below_its_maximum(dtype):
    """One saturating pass: a lane below the type's maximum holds the exact score, a lane
    whose score reaches it holds the maximum (never a wrapped value)."""
    seed = 41
    print("seed", seed)
    rng = np.random.default_rng(seed)
    q = np.concatenate([synthetic.residues(rng, 200), encode("W" * (3000 if dtype == np.int16 else 20))])
    db = Database.from_codes([str(k) for k in range(40)], [q if k % 7 == 0 else synthetic.residues(rng, int(n))
                                                           for k, n in enumerate(rng.integers(1, 400, 40))])
    scoring = Scoring.blast()
    want = SOLVERS.get("sequential").scores(Query("q", q), db, scoring)
    top = np.iinfo(dtype).max
    assert (want > top).any() and (want < top).any()
    out = np.zeros(len(db), dtype=np.int32)
    order = np.argsort(db.lengths, kind="stable").astype(np.int64)
    cpu_kernels.search_saturating(q, db.codes, db.offsets, order, dealt(order.size, simd.lanes(dtype), 2),
                                  lane_table(scoring, dtype), dtype(scoring.first_gap), dtype(scoring.gap_extend), out)
    assert np.array_equal(out, np.minimum(want, top))


@pytest.mark.parametrize("features", [("avx512vbmi", "avx512bw", "ssse3"), ("ssse3",), ()],
                         ids=["permutes", "byte-shuffles", "per-lane"])
def test_lane_lookup_every_instruction_choice(features, monkeypatch):
    """simd.lookup gives table[index] per lane whether it compiles to vpermb/vpermw, to
    pshufb on two 16-entry halves, or to one extract and insert per lane."""
    if features and not simd._target_has(features[0]):
        pytest.skip(f"this CPU has no {features[0]}")
    monkeypatch.setattr(simd, "_target_has", lambda feature: feature in features)

    @numba.njit  # compiled here, after the patch, without the cache
    def looked_up(table, index, out):
        simd.store(out, 0, simd.lookup(simd.load(table, 0), simd.load(index, 0)))

    seed = 43
    print("seed", seed)
    rng = np.random.default_rng(seed)
    for dtype in (np.int8, np.int16):
        n = simd.lanes(dtype)
        table = rng.integers(-100, 100, n).astype(dtype)
        index = rng.integers(0, simd.LOOKUP_ENTRIES, n).astype(dtype)
        out = np.zeros(n, dtype=dtype)
        looked_up(table, index, out)
        assert np.array_equal(out, table[index])


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
    whole = search(q, db, Scoring(), "sequential", top=None, evalue=1e9)
    chunked = search(q, db, Scoring(), "sequential", chunk_cells=60 * 50, top=None, evalue=1e9)
    assert np.array_equal(chunked.scores, whole.scores) and whole.scores.size == len(db)
    assert whole.cells == 60 * db.residues
    top5 = search(q, db, Scoring(), "sequential", top=5, evalue=1e9).hits
    assert len(top5) == 5 and [h.score for h in top5] == sorted(whole.scores.tolist(), reverse=True)[:5]


def test_ranked_ties_in_database_order():
    s = np.array([5, 9, 9, 1, 9, 3])
    assert ranked(s, 2).tolist() == [1, 2] and ranked(s, 4).tolist() == [1, 2, 4, 0]
    assert ranked(s).tolist() == [1, 2, 4, 0, 5, 3]


def test_dealt_batches_alternate():
    assert dealt(10 * 4, 4, 2).tolist() == [0, 8, 16, 24, 32, 4, 12, 20, 28, 36]
    assert sorted(dealt(13, 4, 3).tolist()) == [0, 4, 8, 12]


@pytest.mark.parametrize("seed,scoring", [(21, Scoring()), (22, Scoring.blast()), (23, Scoring.blast("pam70")),
                                          (24, Scoring("blosum62", 2, 3))])
def test_reported_hits_rescore_and_follow_c2(seed, scoring):
    """Every reported alignment re-scores to its hit's score from its ranges and CIGAR; the
    E-value and bit score follow C2's formulas; hits best first, E-values within the cut."""
    print("seed", seed)
    rng = np.random.default_rng(seed)
    queries = [synthetic.query(int(n), seed) for n in rng.integers(20, 200, 3)]
    db = synthetic.database(rng.integers(5, 400, 120), seed, queries[0], homologs=15)
    results = search_many(queries, db, scoring, "multicore", top=20, evalue=100.0)
    assert results[0].hits, "the homologs are reported"
    lam, K = scoring.karlin.lam, scoring.karlin.K
    for q, r in zip(queries, results):
        assert [h.score for h in r.hits] == sorted((h.score for h in r.hits), reverse=True)
        for h in r.hits:
            a = h.alignment
            assert h.score == r.scores[h.index] == a.score == rescore(a, q.codes, db.seq(h.index), scoring)
            assert 1 <= a.qstart <= a.qend <= q.length and 1 <= a.sstart <= a.send <= h.length
            assert a.count("=") + a.count("X") + a.count("D") == a.qend - a.qstart + 1
            assert h.evalue == pytest.approx(K * q.length * db.residues * math.exp(-lam * h.score)) and h.evalue <= 100
            assert h.bitscore == pytest.approx((lam * h.score - math.log(K)) / math.log(2))


@settings(max_examples=40, deadline=None)
@given(q=st.text(alphabet=LETTERS[:20], min_size=1, max_size=30),
       d=st.text(alphabet=LETTERS[:20], min_size=1, max_size=30), gap=st.integers(1, 5), gap_open=st.integers(0, 8))
def test_alignment_is_optimal_on_tiny_pairs(q, d, gap, gap_open):
    sc = Scoring("blosum62", gap_open, gap)
    a = align(encode(q), encode(d), sc)
    assert a.score == plain_sw(q, d, gap, gap_open)
    if a.score:
        assert rescore(a, encode(q), encode(d), sc) == a.score
