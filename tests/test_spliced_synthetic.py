"""Synthetic data: deterministic, shaped like the paper's data (SPEC §6), round-trips to disk."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.workloads.spliced import estimate as model
from splicedalign.workloads.spliced import synthetic
from splicedalign.workloads.spliced.datasets import read_manifest, write_dataset
from splicedalign.workloads.spliced.solvers import solve


@pytest.fixture(scope="module")
def paper():
    return synthetic.paper_set()


def test_deterministic():
    a, b = synthetic.tiny_set(seed=3), synthetic.tiny_set(seed=3)
    assert [(c.base, c.target, c.exons) for c in a] == [(c.base, c.target, c.exons) for c in b]
    assert synthetic.tiny_set(seed=4)[0].base != a[0].base


def near(value, expected, rel):
    return abs(value - expected) <= rel * expected


def test_paper_set_shape(paper):
    assert len(paper) == synthetic.PAPER_CASES
    bases = {c.base_id: c for c in paper}
    assert len(bases) == synthetic.PAPER_BASES
    targets_per_base = np.bincount(np.unique([c.base_id for c in paper], return_inverse=True)[1])
    assert targets_per_base.min() >= 1 and targets_per_base.max() <= synthetic.PAPER_MAX_TARGETS
    m = [c.m for c in bases.values()]
    K = [c.K for c in bases.values()]
    sums = [c.exon_length_sum for c in bases.values()]
    n = [c.n for c in paper]
    lengths = np.concatenate([c.last_sorted - c.first_sorted + 1 for c in bases.values()])
    # Tables I-II: (min, avg, max)
    assert (min(m), max(m)) == (2_848, 575_746) and near(np.mean(m), 42_181, 0.1)
    assert (min(K), max(K)) == (2, 622) and near(np.mean(K), 55.08, 0.1)
    assert lengths.min() == 1 and lengths.max() <= 4_778 and near(lengths.mean(), 149.35, 0.1)
    assert near(np.mean(sums), 7_711.73, 0.1)
    assert near(np.mean(n), 1_460.48, 0.1) and max(n) <= 8_652 * 1.02


def test_true_exons_form_a_chain_that_explains_the_target(paper):
    case = paper[5]
    true = case.meta["true_exons"]
    assert all(a[1] < b[0] for a, b in zip(true, true[1:]))
    result = solve(case, solver="sequential")
    # The target is a mutated copy of the true exons: the best chain scores well above zero.
    assert result.score > 0.5 * case.n


def test_il1rapl1_shape():
    case = synthetic.il1rapl1_case()
    assert case.m == 2_168_787 and case.K == 1_878
    assert near(case.n, 2_355, 0.02)
    assert near(case.exon_length_sum, 253_000, 0.05)
    assert near(case.cells, 596_182_380, 0.05)
    grp = model.groups(case.first_sorted, case.last_sorted)
    assert near(case.K / len(grp), 1.7, 0.1)


def test_dataset_round_trip(tmp_path):
    cases = synthetic.tiny_set(bases=2)
    entries = read_manifest(write_dataset(cases, tmp_path))
    loaded = [e.load() for e in entries]
    assert [c.name for c in loaded] == [c.name for c in cases]
    for a, b in zip(cases, loaded):
        assert (a.base, a.target) == (b.base, b.target)
        assert [(e.first, e.last, e.attrs["true"]) for e in a.exons] == \
               [(e.first, e.last, int(e.attrs["true"])) for e in b.exons]
        assert a.meta["true_exons"] == b.meta["true_exons"]
