"""Richer candidates (exons.merged): a gene finder's exons plus their splice boundaries moved
to nearby signals, merged and deduplicated; the chain stays the exact optimum over them."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced.datasets import bundled_manifest, read_manifest
from splicedalign.workloads.spliced.exons.merged import ShiftParams, merge, richer_candidates, shifted_exons
from splicedalign.workloads.spliced.exons.strand import flip_exon, reverse_complement
from splicedalign.workloads.spliced.oracle import brute_force
from splicedalign.workloads.spliced.records import Exon, Scoring, TestCase
from splicedalign.workloads.spliced.solvers import solve

#        1234567890123456789012345678901234567890
BASE = "CCCAGAAACAGTTTCTGCAGGGAAAGGTAAGGCCATAAGTC"


def test_only_splice_boundaries_move_to_signals_within_the_window():
    # exon 6..26: starts after AG (4-5), ends before GT (27-28): both boundaries move
    e = Exon(6, 26, {"strand": "+", "source": "AUGUSTUS"})
    wide = ShiftParams(window=5, donors=("GT", "GC", "AT"), acceptors=("AG", "AC"), open_frame=False)
    got = {(x.first, x.last) for x in shifted_exons(BASE, [e], wide)}
    starts = {p for p in range(1, 12) if BASE[p - 3:p - 1] in ("AG", "AC")}
    ends = {q for q in range(21, 32) if BASE[q:q + 2] in ("GT", "GC", "AT")}
    assert len(starts) > 1 and len(ends) > 1
    want = {(f, l) for f in starts | {6} for l in ends | {26}} - {(6, 26)}
    assert got == want and got
    assert all(x.attrs["source"] == "shifted" and x.attrs["from"] == 0 for x in shifted_exons(BASE, [e]))
    canonical = {(x.first, x.last) for x in shifted_exons(BASE, [e], ShiftParams(window=5, open_frame=False))}
    assert canonical < got  # the defaults: GT/GC donors and AG acceptors only


def test_start_codon_and_stop_stay():
    first_exon = Exon(1, 10, {"strand": "+"})  # no acceptor before it: a first exon's start
    last_exon = Exon(22, 38, {"strand": "+"})  # ends with a stop codon, before a GT
    assert BASE[35:38] == "TAA"
    moved = shifted_exons(BASE, [first_exon, last_exon], ShiftParams(window=8, open_frame=False))
    assert all(x.first == 1 for x in moved if x.attrs["from"] == 0)
    assert all(x.last == 38 for x in moved if x.attrs["from"] == 1)


def test_minus_strand_exons_shift_on_the_reverse_complement():
    m = len(BASE)
    plus = Exon(6, 26, {"strand": "+"})
    minus_base = reverse_complement(BASE)
    minus = flip_exon(Exon(6, 26, {"strand": "+"}), m)  # the same exon seen from the other strand
    assert minus.attrs["strand"] == "-"
    want = {(x.first, x.last) for x in shifted_exons(BASE, [plus])}
    got = {(m - x.last + 1, m - x.first + 1) for x in shifted_exons(minus_base, [minus])}
    assert got == want
    assert all(x.attrs["strand"] == "-" for x in shifted_exons(minus_base, [minus]))


def test_merge_deduplicates_and_names_every_source():
    a = [Exon(1, 5, {"strand": "+", "source": "AUGUSTUS", "score": 0.9}),
         Exon(7, 9, {"strand": "+", "source": "AUGUSTUS"})]
    b = [Exon(1, 5, {"strand": "+", "source": "signals"}), Exon(1, 5, {"strand": "-", "source": "signals"})]
    got = merge(a, b)
    assert [(e.first, e.last, e.attrs["strand"]) for e in got] == [(1, 5, "+"), (7, 9, "+"), (1, 5, "-")]
    assert got[0].attrs["sources"] == "AUGUSTUS+signals" and got[0].attrs["score"] == 0.9


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(InputError, match="window must be >= 0"):
        ShiftParams(window=-1)
    with pytest.raises(InputError, match="dinucleotides"):
        ShiftParams(donors=("GTA",))
    with pytest.raises(InputError, match="more than max_exons"):
        shifted_exons(BASE, [Exon(6, 26)], ShiftParams(window=20, open_frame=False, max_exons=1))


@pytest.mark.parametrize("target_ends", ["global", "free"])
def test_chain_over_richer_candidates_is_still_exact(target_ends):
    rng = np.random.default_rng(5)
    print("seed", 5)
    base = "".join(rng.choice(list("ACGT"), 14))
    exons = [Exon(3, 6, {"strand": "+"}), Exon(9, 12, {"strand": "+"})]
    richer = richer_candidates(base, exons, ShiftParams(window=2, open_frame=False))
    case = TestCase("r", base, base[2:6] + base[8:12], tuple(richer))
    scoring = Scoring(target_ends=target_ends)
    assert solve(case, scoring, "sequential").score == brute_force(case, scoring)[0]


def test_bundled_richer_candidates_keep_every_original_exon():
    entry = next(e for e in read_manifest(bundled_manifest()) if e.case == "xl_RHO-rn_Z46957.1")
    case = entry.load()
    shifts = ShiftParams(window=10, donors=("GT", "GC", "AT"), acceptors=("AG", "AC"))
    richer = richer_candidates(case.base, case.exons, shifts)
    assert [(e.first, e.last) for e in richer[:case.K]] == [(e.first, e.last) for e in case.exons]
    assert len({(e.first, e.last) for e in richer}) == len(richer) > case.K


def test_cli_shift_window(capsys):
    import json

    from splicedalign.cli import main

    entry = next(e for e in read_manifest(bundled_manifest()) if e.case == "xl_RHO-rn_Z46957.1")
    args = ["align", "--base", str(entry.base), "--exons", str(entry.exons), "--target", str(entry.target),
            "--strand", "plus", "--target-ends", "free"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(args + ["--shift-window", "10"]) == 0
    richer = json.loads(capsys.readouterr().out)
    assert richer["cells"] > plain["cells"] and richer["score"] >= plain["score"]
    assert main(args + ["--shift-window", "-1"]) == 2
    assert "shift window must be >= 0" in capsys.readouterr().err
