"""sw command line: outputs (JSON, TSV, several queries, --top), bad input (one line, exit 2),
unavailable solvers (exit 3), and the synthetic sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from splicedalign.cli import main
from splicedalign.workloads.sw.datasets import cases, read_manifest

REPO = Path(__file__).resolve().parents[1]
BUNDLED = REPO / "resources" / "sw"


def run(capsys, *argv):
    code = main(["-q", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fig2(tmp_path):
    (tmp_path / "q.fa").write_text(">q1\nGCAGGGTTAG\n>q2\nCCACC\n")
    (tmp_path / "db.fa").write_text(">d1 paper fig. 2\nCCACCGGGGC\n>d2\nWWW\n")
    return tmp_path


def test_json_several_queries(capsys, fig2):
    code, out, _ = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa", "--solver", "sequential")
    assert code == 0
    blocks = json.loads(out)
    assert [b["query"] for b in blocks] == ["q1", "q2"]
    assert blocks[0]["hits"][0] == {"id": "d1", "length": 10, "score": 27}
    assert blocks[0]["cells"] == 10 * 13 and blocks[0]["solver"] == "sequential" and blocks[0]["seconds"] >= 0
    assert len(blocks[1]["hits"]) == 2


def test_tsv_sorted_and_top(capsys, fig2):
    code, out, _ = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa", "--format", "tsv", "--top", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "query\tid\tlength\tscore" and lines[1] == "q1\td1\t10\t27" and len(lines) == 3


def test_single_query_is_one_object_and_gap_option(capsys, fig2):
    (fig2 / "one.fa").write_text(">q1\nGCAGGGTTAG\n")
    code, out, _ = run(capsys, "sw", "--query", fig2 / "one.fa", "--db", fig2 / "db.fa", "--gap", "100")
    assert code == 0 and json.loads(out)["hits"][0]["score"] > 0


@pytest.mark.parametrize("content,needle", [
    (">bad\nACDE1F\n", "position 5 of record 'bad'"),
    (">bad\nAC-DE\n", "position 3"),
    ("ACDE\n", "before the first '>'"),
    ("", "no FASTA record"),
])
def test_bad_input_exits_2_with_one_line(capsys, fig2, content, needle):
    (fig2 / "bad.fa").write_text(content)
    code, out, err = run(capsys, "sw", "--query", fig2 / "bad.fa", "--db", fig2 / "db.fa")
    assert code == 2 and out == ""
    assert needle in err and len(err.strip().splitlines()) == 1 and "bad.fa" in err


@pytest.mark.parametrize("argv,needle", [
    (["--solver", "nope"], "unknown sw solver"),
    (["--matrix", "pam1"], "unknown matrix"),
    (["--gap", "0"], "gap must be"),
    (["--top", "0"], "--top"),
])
def test_bad_options_exit_2(capsys, fig2, argv, needle):
    code, _, err = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa", *argv)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_missing_file_exit_2(capsys, fig2):
    code, _, err = run(capsys, "sw", "--query", fig2 / "absent.fa", "--db", fig2 / "db.fa")
    assert code == 2 and "absent.fa" in err


def test_gpu_without_gpu_exits_3(capsys, fig2):
    from splicedalign.gpu.device import unavailable_reason
    if unavailable_reason() is None:
        pytest.skip("a GPU is here")
    code, _, err = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa", "--solver", "gpu")
    assert code == 3 and "GPU" in err


def test_bundled_real_data(capsys):
    entries = read_manifest(BUNDLED / "cases.tsv")
    code, out, _ = run(capsys, "sw", "--query", entries[0].query, "--db", entries[0].db, "--format", "tsv", "--top", "2")
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    # octopus rhodopsin finds the vertebrate rhodopsins; fly hnRNP A1 the human one
    assert {r[1] for r in rows if r[0] == "X07797.1"} == {"L07770.1", "Z46957.1"}
    assert rows[2][:2] == ["roa1_drome", "ROA1_HUMAN"]


def test_synthetic_sets(capsys, tmp_path):
    code, out, _ = run(capsys, "sw-synthetic", "tiny", tmp_path / "t")
    assert code == 0 and Path(out.strip()).name == "cases.tsv"
    entry = read_manifest(tmp_path / "t" / "cases.tsv")[0]
    assert entry.query.exists() and entry.db.read_text().count(">") == 40
    a, b = cases("tiny")[0], cases("tiny")[0]
    assert (a[1].codes == b[1].codes).all() and (a[2].codes == b[2].codes).all()  # seeded
    code, _, err = run(capsys, "sw-synthetic", "tiny", tmp_path / "t", "--seed", "-1")
    assert code == 2
