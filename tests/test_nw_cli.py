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
    ("tsv", lambda out: out.splitlines()[1].split("\t")[4] == "4"),
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
