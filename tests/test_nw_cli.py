"""`splicedalign nw`: formats, input modes and one-line errors with exit 2 (bad input) or 3."""

from __future__ import annotations

import json

import pytest
from helpers import run_cli

from splicedalign.gpu.device import unavailable_reason
from splicedalign.workloads.nw import Costs, Pair, cigar_cost

A, B = "ACGTACGTTTGA", "ACGTCGTTAGA"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.fa").write_text(f">h1 human\n{A[:6]}\n{A[6:]}\n")
    (tmp_path / "b.fa").write_text(f">m1\n{B}\n")
    (tmp_path / "p.fa").write_text(f">h1\n{A}\n>m1\n{B}\n")
    return tmp_path


def test_json_with_alignment(files):
    code, out, err = run_cli("nw", "--seq1", str(files / "a.fa"), "--seq2", str(files / "b.fa"))
    assert code == 0, err
    record = json.loads(out)
    assert {"score", "cells", "solver", "seconds", "alignment"} <= set(record)
    assert (record["score"], record["cells"], record["solver"]) == (4, 132, "sequential")
    pair = Pair.from_strings(A, B)
    assert cigar_cost(record["alignment"]["cigar"], pair.a, pair.b, Costs()) == 4
    assert 0 < record["alignment"]["identity"] <= 1


def test_pair_file_score_only_and_costs(files):
    code, out, _ = run_cli("nw", "--pair", str(files / "p.fa"), "--score-only", "--solver", "multicore",
                           "--match", "0", "--mismatch", "7", "--indel", "3")
    record = json.loads(out)
    assert code == 0 and "alignment" not in record and record["score"] == 6 + 3  # 2 gaps beat X, + 1 D


@pytest.mark.parametrize("fmt, check", [
    ("tsv", lambda out: out.splitlines()[1].split("\t")[5] == "4"),
    ("sam", lambda out: "\t4=1D4=1X2=\t" in out and "XC:i:4" in out),
    ("paf", lambda out: "cg:Z:4=1D4=1X2=" in out),
])
def test_formats(files, fmt, check, tmp_path):
    target = tmp_path / f"out.{fmt}"
    code, _, err = run_cli("nw", "--pair", str(files / "p.fa"), "--format", fmt, "-o", str(target))
    assert code == 0, err
    assert check(target.read_text())


@pytest.mark.parametrize("argv, message", [
    (["--pair", "p.fa", "--format", "sam", "--score-only"], "sam needs the alignment"),
    (["--pair", "a.fa"], "expected exactly two"),
    (["--seq1", "a.fa"], "--seq1 needs --seq2"),
    (["--seq1", "p.fa", "--seq2", "b.fa"], "expected exactly one"),
    (["--seq1", "bad.fa", "--seq2", "b.fa"], "non-nucleotide letter 'Q' at position 3"),
    (["--seq1", "missing.fa", "--seq2", "b.fa"], "cannot read file"),
    (["--pair", "p.fa", "--solver", "nope"], "unknown nw solver 'nope'"),
    (["--pair", "p.fa", "--mismatch", "2000000"], "outside"),
])
def test_bad_input_exits_2_with_one_line(files, monkeypatch, argv, message):
    (files / "bad.fa").write_text(">x\nACQT\n")
    monkeypatch.chdir(files)
    code, out, err = run_cli("nw", *argv)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.skipif(unavailable_reason() is None, reason="a GPU is usable here")
def test_gpu_solver_without_gpu_exits_3(files):
    code, _, err = run_cli("nw", "--pair", str(files / "p.fa"), "--solver", "gpu")
    assert code == 3 and "GPU" in err


def test_infix_affine_json_sam_paf(tmp_path):
    (tmp_path / "p.fa").write_text(">read\nACGTTGCA\n>contig\nTTTTTACGTTGCATTT\n")
    common = ["--pair", str(tmp_path / "p.fa"), "--mode", "infix", "--mismatch", "4", "--gap-open", "6",
              "--gap-extend", "2"]
    code, out, err = run_cli("nw", *common)
    assert code == 0, err
    record = json.loads(out)
    assert record["score"] == 0 and record["mode"] == "infix"
    assert record["costs"] == {"match": 0, "mismatch": 4, "gap_open": 6, "gap_extend": 2}
    assert {k: record["alignment"][k] for k in ("start1", "end1", "start2", "end2", "cigar")} == {
        "start1": 1, "end1": 8, "start2": 6, "end2": 13, "cigar": "8="}
    _, sam, _ = run_cli("nw", *common, "--format", "sam")
    assert "\t5S8=3S\t" in sam
    _, paf, _ = run_cli("nw", *common, "--format", "paf")
    assert paf.split("\t")[:4] == ["contig", "16", "5", "13"]


def test_pairs_fasta_and_tsv_in_input_order(tmp_path):
    seqs = [("a1", "ACGTACGT", "b1", "ACGTACGT"), ("a2", "AAAA", "b2", "AAAAC"), ("a3", "GGG", "b3", "CCC")]
    (tmp_path / "p.fa").write_text("".join(f">{i}\n{s}\n>{j}\n{t}\n" for i, s, j, t in seqs))
    (tmp_path / "p.tsv").write_text("# id1 seq1 id2 seq2\n" + "".join("\t".join(r) + "\n" for r in seqs))
    for name in ("p.fa", "p.tsv"):
        for solver in ("sequential", "multicore"):
            code, out, err = run_cli("nw", "--pairs", str(tmp_path / name), "--solver", solver)
            assert code == 0, err
            records = json.loads(out)
            assert [(r["seq1"], r["score"]) for r in records] == [("a1", 0), ("a2", 3), ("a3", 3)]
        code, out, _ = run_cli("nw", "--pairs", str(tmp_path / name), "--format", "tsv", "--score-only")
        assert [line.split("\t")[0] for line in out.splitlines()[1:]] == ["a1", "a2", "a3"]


@pytest.mark.parametrize("content, message", [
    (">a\nACGT\n>b\nACGT\n>c\nACGT\n", "the last, 'c', has no partner"),
    ("ACGT\tACGT\nACGT\n", "line 2: 1 tab-separated fields"),
    ("ACGT\tACQT\n", "line 1: non-nucleotide letter"),
])
def test_bad_pairs_file_exits_2(tmp_path, content, message):
    (tmp_path / "bad.txt").write_text(content)
    code, out, err = run_cli("nw", "--pairs", str(tmp_path / "bad.txt"))
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1, err


def test_bad_mode_and_gap_open(files):
    code, _, err = run_cli("nw", "--pair", str(files / "p.fa"), "--gap-open", "-2")
    assert code == 2 and "gap-open" in err
    code, _, err = run_cli("nw", "--pair", str(files / "p.fa"), "--mode", "local")
    assert code == 2 and "invalid choice" in err


def test_op_counts_are_the_cigar_counts_and_refuse_what_is_no_cigar():
    """The output formats' compiled counter (nw/cigar.op_counts, op_counts_many) against records.cigar_counts."""
    import numpy as np

    from splicedalign.workloads.nw.cigar import op_counts, op_counts_many
    from splicedalign.workloads.nw.records import cigar_counts

    seed = 2680
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    cigars = []
    for _ in range(200):
        cigar = "".join(f"{int(rng.integers(0, 3000))}{'=XDI'[int(rng.integers(0, 4))]}"
                        for _ in range(int(rng.integers(0, 30))))
        assert op_counts(cigar) == cigar_counts(cigar), cigar
        cigars.append(cigar)
    # all at once (the formats' one call), row by row the same
    assert op_counts_many(cigars).tolist() == [list(cigar_counts(c).values()) for c in cigars]
    for bad in ("3=4", "=", "3=2Y", "3M", "12", "4=\u0394"):
        with pytest.raises(ValueError, match="CIGAR"):
            op_counts(bad)
        with pytest.raises(ValueError, match="CIGAR"):  # among good ones, on either side
            op_counts_many([cigars[1], bad, cigars[2]])
    # a row's last number is not carried into the next row
    assert op_counts_many(["3=", "2X"]).tolist() == [[3, 0, 0, 0], [0, 2, 0, 0]]
    with pytest.raises(ValueError, match="CIGAR"):
        op_counts_many(["3=4", "X"])
