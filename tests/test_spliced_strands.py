"""Both strands (SPEC §1): candidate exons keep their strand, each strand is solved on its own
orientation, outputs carry the strand and forward-strand coordinates. Checked on the real
GENSCAN report of HSBA536C5 (34 of its 37 exons on the minus strand) and on a bundled case
reverse-complemented (the mirrored gene model with the same score)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli

from splicedalign.core.seqio import read_single_fasta
from splicedalign.workloads.spliced.accuracy import chain_intervals
from splicedalign.workloads.spliced.datasets import bundled_manifest, read_manifest
from splicedalign.workloads.spliced.exons.strand import best_per_strand_set, reverse_complement
from splicedalign.workloads.spliced.load import load_cases
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import get_solver

GENSCAN = Path(__file__).parent / "data" / "genscan"
BASE_GZ = GENSCAN / "genomic-seq.fasta.gz"
REPORT = GENSCAN / "genomic-seq.genscan"
# GENSCAN's genes on HSBA536C5, exons in transcript order, forward-strand coordinates
GENE2_MINUS = [(13650, 14499), (10815, 11044), (10463, 10642)]
GENE3_PLUS = [(18680, 18726), (23250, 23284), (26615, 26664)]


class Ran:
    def __init__(self, code: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = code, stdout, stderr


def splicedalign(*args: str, check: bool = True) -> Ran:
    """In process (the console script's start-up costs a second; test_spliced_errors runs it)."""
    ran = Ran(*run_cli("-q", *args))
    assert ran.returncode == 0 or not check, ran.stderr
    return ran


def transcript(seq: str, exons, strand: str) -> str:
    parts = [seq[f - 1:l] for f, l in exons]
    return "".join(reverse_complement(p) if strand == "-" else p for p in parts)


@pytest.fixture(scope="module")
def hsba(tmp_path_factory) -> Path:
    """Targets spliced from GENSCAN's gene 2 (minus) and gene 3 (plus) of the real report."""
    tmp = tmp_path_factory.mktemp("hsba")
    seq = read_single_fasta(BASE_GZ).seq
    (tmp / "gene2.fa").write_text(f">gene2\n{transcript(seq, GENE2_MINUS, '-')}\n")
    (tmp / "gene3.fa").write_text(f">gene3\n{transcript(seq, GENE3_PLUS, '+')}\n")
    (tmp / "both.fa").write_text((tmp / "gene2.fa").read_text() + (tmp / "gene3.fa").read_text())
    return tmp


def genscan_align(target: Path, *extra: str) -> dict | list:
    proc = splicedalign("align", "--base", str(BASE_GZ), "--exons", str(REPORT), "--exon-format", "genscan",
                        "--target", str(target), *extra)
    return json.loads(proc.stdout)


def test_genscan_minus_strand_gene_found_on_its_strand(hsba):
    rec = genscan_align(hsba / "gene2.fa")
    assert rec["strand"] == "-"
    assert rec["chain"] == [list(e) for e in GENE2_MINUS]  # transcript order, forward coordinates
    assert rec["score"] == rec["n"]  # every letter of the target matches
    assert set(rec["strand_scores"]) == {"+", "-"} and rec["strand_scores"]["+"] < rec["score"]
    # each exon's target span tiles the target in transcript order
    assert [a["target_start"] for a in rec["alignment"]] == [1, 851, 1081]
    # chain_index names rows of the GENSCAN report's exon list (2.01, 2.02, 2.03 are rows 2, 1, 0)
    assert rec["chain_index"] == [2, 1, 0]


def test_genscan_plus_strand_gene_and_strand_choice(hsba):
    rec = genscan_align(hsba / "gene3.fa")
    assert rec["strand"] == "+" and rec["chain"] == [list(e) for e in GENE3_PLUS]
    assert rec["score"] == rec["n"]
    only_minus = genscan_align(hsba / "gene3.fa", "--strand", "minus")
    assert only_minus["strand"] == "-" and only_minus["score"] < rec["score"]
    assert set(only_minus["strand_scores"]) == {"-"}


def test_many_targets_one_batch(hsba):
    recs = genscan_align(hsba / "both.fa", "--name", "hsba")
    assert [(r["case"], r["strand"]) for r in recs] == [("hsba~gene2", "-"), ("hsba~gene3", "+")]
    tsv = splicedalign("align", "--base", str(BASE_GZ), "--exons", str(REPORT), "--exon-format", "genscan",
                       "--target", str(hsba / "both.fa"), "--format", "tsv").stdout.splitlines()
    rows = [line.split("\t") for line in tsv[1:]]
    assert [(r[0], r[3], int(r[6]), int(r[7])) for r in rows] == (
        [("HSBA536C5~gene2", "-", f, l) for f, l in GENE2_MINUS]
        + [("HSBA536C5~gene3", "+", f, l) for f, l in GENE3_PLUS])


def test_both_strands_go_through_one_solve_many(hsba, monkeypatch):
    """align hands every (target, strand) case to the solver in one batch (the GPU path)."""
    from splicedalign.cli import main
    from splicedalign.workloads.spliced import cpu

    calls = []
    original = cpu.SequentialSolver.solve_many

    def spy(self, cases, scoring, traceback=True):
        calls.append([(c.name, c.strand) for c in cases])
        return original(self, cases, scoring, traceback)

    monkeypatch.setattr(cpu.SequentialSolver, "solve_many", spy)
    assert main(["-q", "align", "--base", str(BASE_GZ), "--exons", str(REPORT), "--exon-format", "genscan",
                 "--target", str(hsba / "both.fa"), "--score-only", "-o", "/dev/null"]) == 0
    assert calls == [[("HSBA536C5~gene2", "+"), ("HSBA536C5~gene2", "-"),
                      ("HSBA536C5~gene3", "+"), ("HSBA536C5~gene3", "-")]]


def test_reverse_complemented_bundled_case_gives_mirrored_model(tmp_path):
    entry = next(e for e in read_manifest(bundled_manifest()) if e.case == "hs_FAU-hs_X65923.1")
    case = entry.load()
    m = case.m
    (tmp_path / "rc.fa").write_text(f">rc\n{reverse_complement(case.base)}\n")
    rows = "".join(f"{m - e.last + 1}\t{m - e.first + 1}\t-\n" for e in case.exons)
    (tmp_path / "rc.tsv").write_text("first\tlast\tstrand\n" + rows)
    plain = json.loads(splicedalign("align", "--base", str(entry.base), "--exons", str(entry.exons),
                                    "--target", str(entry.target)).stdout)
    mirrored = json.loads(splicedalign("align", "--base", str(tmp_path / "rc.fa"), "--exons", str(tmp_path / "rc.tsv"),
                                       "--target", str(entry.target)).stdout)
    assert plain["strand"] == "+" and mirrored["strand"] == "-"
    assert mirrored["score"] == plain["score"]
    assert mirrored["chain"] == [[m - l + 1, m - f + 1] for f, l in plain["chain"]]
    assert [a["cigar"] for a in mirrored["alignment"]] == [a["cigar"] for a in plain["alignment"]]
    gff = splicedalign("align", "--base", str(tmp_path / "rc.fa"), "--exons", str(tmp_path / "rc.tsv"),
                       "--target", str(entry.target), "--format", "gff3").stdout
    exons = [line.split("\t") for line in gff.splitlines() if "\texon\t" in line]
    assert [(int(x[3]), int(x[4]), x[6]) for x in exons] == [(f, l, "-") for f, l in mirrored["chain"]]
    # asking for the plus strand only: no candidate exon there, one clear line
    bad = splicedalign("align", "--base", str(tmp_path / "rc.fa"), "--exons", str(tmp_path / "rc.tsv"),
                       "--target", str(entry.target), "--strand", "plus", check=False)
    assert bad.returncode == 2
    assert bad.stderr.strip().endswith("no candidate exon on the '+' strand (of 7 exons); see --strand")


def test_accuracy_uses_forward_coordinates(hsba):
    cases = load_cases(BASE_GZ, REPORT, hsba / "gene2.fa", "genscan", "g2")
    results = get_solver("sequential").solve_many(cases, Scoring())
    ((case, result, scores),) = best_per_strand_set(cases, results)
    assert case.strand == "-" and chain_intervals(case, result) == GENE2_MINUS
    assert scores["-"] == result.score > scores["+"]


def test_tsv_strand_column_checked(tmp_path):
    (tmp_path / "b.fa").write_text(">b\nACGTACGTAC\n")
    (tmp_path / "t.fa").write_text(">t\nACGT\n")
    (tmp_path / "e.tsv").write_text("first\tlast\tstrand\n1\t4\t+\n2\t5\tx\n")
    proc = splicedalign("align", "--base", str(tmp_path / "b.fa"), "--exons", str(tmp_path / "e.tsv"),
                        "--target", str(tmp_path / "t.fa"), check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"splicedalign: error: {tmp_path / 'e.tsv'}:line 3: strand must be +, - or ."
                                   " (or empty), got 'x'")


def test_minus_strand_equals_forward_on_random_cases():
    """Seeded random cases: the exons marked '-' on the reverse-complemented base give the same
    score, and the reported chain maps back to a chain of the original scoring it."""
    import numpy as np
    from helpers import random_spliced_case

    from splicedalign.workloads.spliced.exons.strand import strand_cases
    from splicedalign.workloads.spliced.oracle import chain_score
    from splicedalign.workloads.spliced.records import Exon

    seed = 20261122
    rng = np.random.default_rng(seed)
    solver = get_solver("sequential")
    for i in range(30):
        case = random_spliced_case(rng, f"r{i}")
        m = case.m
        flipped = [Exon(m - e.last + 1, m - e.first + 1, {"strand": "-"}) for e in case.exons]
        (minus,) = strand_cases(case.name, reverse_complement(case.base), flipped, case.target, ("+", "-"))
        plain, mirrored = solver.solve_many([case, minus], Scoring())
        assert mirrored.score == plain.score, f"seed {seed}, case {i}"
        # the minus chain, mapped to forward coordinates, names exons of the original case
        spans = [minus.forward_interval(minus.exons[k].first, minus.exons[k].last) for k in mirrored.chain]
        original = [next(j for j, e in enumerate(case.exons) if (e.first, e.last) == (m - l + 1, m - f + 1))
                    for f, l in spans]
        assert chain_score(case, original, Scoring()) == plain.score, f"seed {seed}, case {i}"
