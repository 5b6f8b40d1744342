"""Paper-shaped synthetic pairs: stable by (n, kind, seed), mutation rates as documented."""

from __future__ import annotations

import numpy as np

from splicedalign.core.seqio import iter_fasta
from splicedalign.workloads.nw import Costs, solve
from splicedalign.workloads.nw.synthetic import make_pair, to_fasta


def test_stable_and_distinct():
    a, b = make_pair(9_024, "mutated"), make_pair(9_024, "mutated")
    assert (a.a == b.a).all() and (a.b == b.b).all()
    assert not np.array_equal(make_pair(9_024, "unrelated").b[:100], a.b[:100])
    assert a.n == 9_024 and abs(a.m - 9_024) < 100


def test_mutated_pair_costs_about_ten_percent():
    pair = make_pair(3_000, "mutated")
    score = solve(pair, Costs(), "sequential", traceback=False).score
    # 8% substitutions cost 1 each, 1% + 1% indels cost 3 each: about 0.08 + 0.06 per letter
    assert 0.08 * pair.n < score < 0.16 * pair.n


def test_fasta_round_trip():
    pair = make_pair(48, "unrelated")
    records = list(iter_fasta(iter(to_fasta(pair).splitlines()), "<mem>"))
    assert [len(r.seq) for r in records] == [pair.n, pair.m]
