"""``splicedalign primer``: formats (JSON contract, TSV, BED), stdin, and bad input (exit 2, one
line naming the source)."""

from __future__ import annotations

import json

import pytest
from helpers import run_cli


@pytest.fixture()
def fasta(tmp_path):
    def write(name: str, text: str):
        path = tmp_path / name
        path.write_text(text)
        return str(path)
    return write


def test_json_contract(fasta):
    code, out, err = run_cli("primer", "--alpha", fasta("a.fa", ">pathogen x\nACTG\n"),
                             "--beta", fasta("b.fa", ">host\nagcaag\n"), "-k", "2", "-q")
    assert code == 0, err
    doc = json.loads(out)
    assert set(doc) == {"k", "m", "n", "solutions", "cells", "comparisons", "solver", "seconds"}
    assert (doc["k"], doc["m"], doc["n"], doc["solutions"], doc["cells"]) == (2, 4, 6, [[1, 3], [2, 4]], 48)
    assert doc["solver"] == "sequential"


def test_tsv_bed_and_output_file(fasta, tmp_path):
    a, b = fasta("a.fa", ">pathogen\nACTG\n"), fasta("b.fa", ">host\nAGCAAG\n")
    code, out, _ = run_cli("primer", "--alpha", a, "--beta", b, "-k", "2", "--format", "tsv",
                           "--solver", "conventional")
    assert code == 0
    assert out.splitlines() == ["r\te\tlength\tsubstring", "1\t3\t3\tACT", "2\t4\t3\tCTG"]
    target = tmp_path / "out.bed"
    code, out, _ = run_cli("primer", "--alpha", a, "--beta", b, "-k", "2", "--format", "bed", "-o", str(target))
    assert code == 0 and out == ""
    assert target.read_text().splitlines() == ["pathogen\t0\t3\tprimer_1\t2\t+", "pathogen\t1\t4\tprimer_2\t2\t+"]


@pytest.mark.parametrize("alpha, beta, k, where", [
    ("", ">b\nACGT\n", "1", "no FASTA record"),
    (">a\n", ">b\nACGT\n", "1", "has no sequence"),
    (">a\nACGT\n>a2\nACGT\n", ">b\nACGT\n", "1", "2 FASTA records"),
    (">a\nACJT\n", ">b\nACGT\n", "1", "non-nucleotide letter 'J'"),
    (">a\nACGT\n", ">b\nAC1T\n", "1", "non-nucleotide letter '1'"),
    (">a\nACGT\n", ">b\nACGT\n", "0", "k must be >= 1"),
    (">a\nACGT\n", ">b\nACGT\n", "5", "larger than |alpha|=4"),
])
def test_bad_input_is_one_line_exit_2(fasta, alpha, beta, k, where):
    code, out, err = run_cli("primer", "--alpha", fasta("a.fa", alpha), "--beta", fasta("b.fa", beta), "-k", k)
    assert code == 2 and out == ""
    lines = [line for line in err.splitlines() if "error" in line]
    assert len(lines) == 1 and where in lines[0], err
    assert "Traceback" not in err


def test_unknown_solver_and_two_stdins(fasta):
    a = fasta("a.fa", ">a\nACGT\n")
    code, _, err = run_cli("primer", "--alpha", a, "--beta", a, "-k", "1", "--solver", "nope")
    assert code == 2 and "unknown primer solver" in err
    code, _, err = run_cli("primer", "--alpha", "-", "--beta", "-", "-k", "1")
    assert code == 2 and "can feed only one input" in err


def test_missing_file(tmp_path):
    code, _, err = run_cli("primer", "--alpha", str(tmp_path / "nope.fa"), "--beta", "-", "-k", "1")
    assert code == 2 and "nope.fa" in err and "cannot read" in err
