"""Free target ends (``Scoring.target_ends``, ``--target-ends free``): leading and trailing
target letters may stay unaligned at no cost (SPEC §2). Checked against the brute-force chain
enumerator (oracle), across the CPU solvers, and on a hand-made case with untranslated ends."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_cpu_solvers_match_oracle

from splicedalign.cli import main
from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced import synthetic
from splicedalign.workloads.spliced.base import refuse_free_ends
from splicedalign.workloads.spliced.oracle import alignment_problems
from splicedalign.workloads.spliced.records import Exon, Scoring, TestCase
from splicedalign.workloads.spliced.solvers import get_solver, solve

FREE = Scoring(target_ends="free")

# Two exons of a gene; the target is their spliced sequence between untranslated ends that
# match nothing in the base.
EXON1, EXON2 = "ATGGCCATTGTAATGGGCCGC", "TGAAAGGGTGCCCGATAG"
BASE = "CCCC" + EXON1 + "GTAAGTTTTTTTTTTTTTTTCAG" + EXON2 + "GGGG"
UTR5, UTR3 = "TTTTTTTTTT", "CCCCCCCCCCCCCC"
TARGET = UTR5 + EXON1 + EXON2 + UTR3
E1 = Exon(5, 4 + len(EXON1))
E2 = Exon(E1.last + 24, E1.last + 23 + len(EXON2))


def utr_case() -> TestCase:
    decoys = (Exon(1, 4), Exon(E1.last + 1, E1.last + 23), Exon(len(BASE) - 3, len(BASE)))
    return TestCase("utr", BASE, TARGET, (E1, E2) + decoys)


def test_free_ends_leave_the_untranslated_ends_unaligned():
    case = utr_case()
    assert BASE[E2.first - 1:E2.last] == EXON2
    result = solve(case, FREE, "sequential")
    assert result.chain == (0, 1)
    assert result.score == len(EXON1) + len(EXON2)  # every coding letter matches, the ends cost nothing
    first, last = result.alignment[0], result.alignment[-1]
    assert (first.target_start, last.target_end) == (len(UTR5) + 1, len(UTR5) + len(EXON1) + len(EXON2))
    assert [a.cigar for a in result.alignment] == [f"{len(EXON1)}=", f"{len(EXON2)}="]
    assert alignment_problems(case, result, FREE) == []
    # the global objective pays for the ends (and may take decoys to absorb them)
    glob = solve(case, Scoring(), "sequential")
    assert glob.score < result.score
    assert alignment_problems(case, glob, Scoring()) == []
    assert glob.alignment[0].target_start == 1 and glob.alignment[-1].target_end == case.n


@pytest.mark.parametrize("seed", range(40))
def test_every_cpu_solver_equals_the_brute_force_enumerator(seed):
    rng = np.random.default_rng(seed)
    print("seed", seed)
    m, n = int(rng.integers(3, 16)), int(rng.integers(1, 9))
    base = "".join(rng.choice(list("ACGTN"), m))
    target = "".join(rng.choice(list("ACGT"), n))
    exons = []
    for _ in range(int(rng.integers(1, 6))):
        f = int(rng.integers(1, m + 1))
        exons.append(Exon(f, int(rng.integers(f, min(m, f + 6) + 1))))
    case = TestCase("r", base, target, tuple(exons))
    assert_cpu_solvers_match_oracle(case, Scoring(int(rng.integers(0, 4)), -int(rng.integers(0, 4)),
                                                  int(rng.integers(0, 4)), "free"))


@pytest.mark.parametrize("seed", range(4))
def test_sequential_and_multicore_agree_with_free_ends(seed):
    rng = np.random.default_rng(100 + seed)
    print("seed", 100 + seed)
    (case,) = synthetic.gene_like(rng, synthetic.Shape(3000, 30, 400, 80), f"g{seed}")
    got = {name: solve(case, FREE, name) for name in ("sequential", "multicore")}
    assert got["sequential"].score == got["multicore"].score
    assert (got["sequential"].last_row_scores == got["multicore"].last_row_scores).all()
    assert got["sequential"].chain == got["multicore"].chain
    glob = solve(case, Scoring(), "sequential")
    assert got["sequential"].score >= glob.score  # free ends can only help


def test_scoring_target_ends_is_checked_and_round_trips():
    with pytest.raises(InputError, match="target_ends must be one of global, free"):
        Scoring(target_ends="local")
    assert Scoring.from_mapping({"gap": 3, "target_ends": "free"}) == Scoring(1, -1, 3, "free")
    assert Scoring.from_mapping({}).target_ends == "global"
    assert Scoring(target_ends="free").as_dict()["target_ends"] == "free"
    assert (Scoring().lead, FREE.lead) == (2, 0)


def global_only(monkeypatch, names=frozenset({"gpu"})):
    """The switch solvers.GLOBAL_ENDS_ONLY naming ``names`` (every solver carries free ends now)."""
    from splicedalign.workloads.spliced import solvers

    monkeypatch.setattr(solvers, "GLOBAL_ENDS_ONLY", names)


def test_solvers_without_free_ends_refuse_in_one_line(monkeypatch):
    refuse_free_ends(FREE, "gpu")  # as shipped: every solver carries free ends
    global_only(monkeypatch)
    refuse_free_ends(Scoring(), "gpu")  # global: nothing to refuse
    with pytest.raises(InputError) as exc:
        refuse_free_ends(FREE, "gpu")
    assert "\n" not in str(exc.value) and "gpu" in str(exc.value)


def test_cli_target_ends(tmp_path, capsys):
    (tmp_path / "b.fa").write_text(f">b\n{BASE}\n")
    (tmp_path / "t.fa").write_text(f">t\n{TARGET}\n")
    (tmp_path / "e.tsv").write_text("first\tlast\n" + "".join(f"{e.first}\t{e.last}\n" for e in utr_case().exons))
    args = ["align", "--base", str(tmp_path / "b.fa"), "--exons", str(tmp_path / "e.tsv"),
            "--target", str(tmp_path / "t.fa"), "--strand", "plus"]
    assert main(args + ["--target-ends", "free"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"] == len(EXON1) + len(EXON2)
    assert out["scoring"]["target_ends"] == "free"
    assert out["alignment"][0]["target_start"] == len(UTR5) + 1
    assert main(args + ["--format", "gff3", "--target-ends", "free"]) == 0
    gff = capsys.readouterr().out
    assert f"Target=t {len(UTR5) + 1} {len(UTR5) + len(EXON1) + len(EXON2)} +" in gff.split("\tmRNA\t")[1]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["scoring"]["target_ends"] == "global"


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["accel1", "accel2", "gpu"])
def test_gpu_solvers_free_ends(name):
    """accel1/accel2 carry free ends (their chain-start term; the host's final maximum and
    traceback), gpu its FREE kernels (the traceback on the device), and equal sequential; a
    solver switched off (solvers.GLOBAL_ENDS_ONLY) refuses them in one line (device machine only)."""
    from test_spliced_gpu_solvers import REASON

    from splicedalign.workloads.spliced.solvers import GLOBAL_ENDS_ONLY

    if REASON is not None:
        pytest.skip(REASON)
    case = utr_case()
    solver = get_solver(name)
    if name in GLOBAL_ENDS_ONLY:
        with pytest.raises(InputError, match="free target ends are not implemented in solver gpu"):
            solver.solve(case, FREE)
        return
    got, want = solver.solve(case, FREE), solve(case, FREE, "sequential")
    assert (got.score, got.chain, got.last_row_scores.tolist()) == (want.score, want.chain,
                                                                     want.last_row_scores.tolist())
    assert alignment_problems(case, got, FREE) == []


def test_pipeline_solvers_for_free_ends(monkeypatch):
    from splicedalign.workloads.spliced.solvers import for_target_ends

    names = ["reference", "sequential", "multicore", "accel1", "accel2", "gpu"]
    assert for_target_ends(names, {}, "free", False) == (names, {})  # as shipped: all carry them
    global_only(monkeypatch)  # a solver switched off
    assert for_target_ends(names, {}, "global", True) == (names, {})
    kept, why = for_target_ends(names, {}, "free", True)
    assert kept == names[:-1] and why == {"gpu": "free target ends not implemented"}
    with pytest.raises(InputError, match="spliced.solvers: gpu computes global target ends only"):
        for_target_ends(["sequential", "gpu"], {}, "free", False)
