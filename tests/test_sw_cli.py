"""sw command line: outputs (JSON, TSV, BLAST tabular, several queries, --top, --evalue), gap
options, bad input (one line, exit 2: DNA queries, duplicate ids), unavailable solvers (exit 3),
gzip and prepared databases, and the synthetic sets."""

from __future__ import annotations

import gzip
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from splicedalign.cli import main
from splicedalign.workloads.sw.datasets import cases, read_manifest
from splicedalign.workloads.sw.load import looks_nucleotide, nucleotide_like
from splicedalign.workloads.sw.matrices import encode
from splicedalign.workloads.sw.prepared import open_db
from splicedalign.workloads.sw.records import Database

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
    code, out, _ = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa", "--solver", "sequential",
                       "--gap", "4")
    assert code == 0
    blocks = json.loads(out)
    assert [b["query"] for b in blocks] == ["q1", "q2"]
    hit = blocks[0]["hits"][0]
    assert {k: hit[k] for k in ("id", "length", "score")} == {"id": "d1", "length": 10, "score": 27}
    # BLOSUM62 with a linear gap has no gapped BLAST row: its ungapped lambda, K
    assert hit["evalue"] == pytest.approx(0.134 * 10 * 13 * math.exp(-0.3176 * 27))
    assert hit["bitscore"] == pytest.approx((0.3176 * 27 - math.log(0.134)) / math.log(2), abs=0.01)
    assert set(hit) == {"id", "length", "score", "evalue", "bitscore", "qstart", "qend", "sstart", "send", "cigar"}
    assert blocks[0]["cells"] == 10 * 13 and blocks[0]["solver"] == "sequential" and blocks[0]["seconds"] >= 0


def test_tsv_sorted_top_and_evalue(capsys, fig2):
    code, out, _ = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa", "--format", "tsv", "--top", "1",
                       "--gap", "4")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "query\tid\tlength\tscore\tevalue\tbitscore\tqstart\tqend\tsstart\tsend\tcigar"
    assert lines[1].startswith("q1\td1\t10\t27\t") and len(lines) == 3
    code, out, _ = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa", "--format", "tsv",
                       "--evalue", "1e-30")
    assert code == 0 and out.splitlines()[1:] == []


def test_blast_tab_and_affine_default(capsys, fig2):
    """BLOSUM62 11/1 by default; blast-tab's 12 columns (no header) agree with the JSON hit:
    length = CIGAR columns, pident = identities / length, mismatch = X, gapopen = gap runs."""
    (fig2 / "one.fa").write_text(">q1\nGCAGGGTTAGWWKKLLAGGGTTAG\n")
    (fig2 / "db2.fa").write_text(">d1\nGCAGGGTAGWWKKLLAGGGTTAGM\n>d2\nCCACCGGGGC\n")
    code, out, _ = run(capsys, "sw", "--query", fig2 / "one.fa", "--db", fig2 / "db2.fa", "--format", "blast-tab")
    assert code == 0
    cols = out.splitlines()[0].split("\t")
    assert len(cols) == 12 and cols[:2] == ["q1", "d1"]
    code, js, _ = run(capsys, "sw", "--query", fig2 / "one.fa", "--db", fig2 / "db2.fa")
    hit = json.loads(js)["hits"][0]
    ops = [(int(n), op) for n, op in re.findall(r"(\d+)([=XDI])", hit["cigar"])]
    length = sum(n for n, _ in ops)
    same = sum(n for n, op in ops if op == "=")
    assert "D" in hit["cigar"] or "I" in hit["cigar"]  # the query's extra T costs one gap
    assert int(cols[3]) == length and float(cols[2]) == pytest.approx(100 * same / length, abs=1e-3)
    assert int(cols[4]) == sum(n for n, op in ops if op == "X")
    assert int(cols[5]) == sum(1 for _, op in ops if op in "DI")
    assert [int(c) for c in cols[6:10]] == [hit["qstart"], hit["qend"], hit["sstart"], hit["send"]]
    assert hit["evalue"] == pytest.approx(0.041 * 24 * 34 * math.exp(-0.267 * hit["score"]))
    assert float(cols[11]) == pytest.approx(hit["bitscore"], abs=0.05)


@pytest.mark.parametrize("argv,score", [(["--gap", "4"], 27), (["--gap-open", "0", "--gap-extend", "4"], 27),
                                        (["--gap", "100"], None), (["--matrix", "pam30"], None)])
def test_gap_options(capsys, fig2, argv, score):
    (fig2 / "one.fa").write_text(">q1\nGCAGGGTTAG\n")
    code, out, _ = run(capsys, "sw", "--query", fig2 / "one.fa", "--db", fig2 / "db.fa", "--evalue", "1e9", *argv)
    assert code == 0
    got = json.loads(out)["hits"][0]["score"]
    assert got > 0 and (score is None or got == score)


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
    (["--gap", "0"], "gap extension must be"),
    (["--gap-open", "-1"], "gap open must be"),
    (["--gap", "4", "--gap-open", "3"], "not both"),
    (["--top", "0"], "--top"),
    (["--evalue", "0"], "--evalue"),
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
    code, out, _ = run(capsys, "sw", "--query", entries[0].query, "--db", entries[0].db, "--format", "tsv",
                       "--top", "2", "--gap", "4")
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
    code, _, err = run(capsys, "sw-synthetic", "tiny", tmp_path / "t")
    assert code == 2 and "--force" in err and len(err.strip().splitlines()) == 1
    code, _, _ = run(capsys, "sw-synthetic", "tiny", tmp_path / "t", "--force")
    assert code == 0


def test_dna_query_and_duplicate_ids_exit_2(capsys, fig2):
    (fig2 / "dna.fa").write_text(">prot\nMKWVTFISLLFLFSSAYS\n>nt1\n" + "ACGTTGCAAGGCTTACGATCGA" * 3 + "\n")
    code, _, err = run(capsys, "sw", "--query", fig2 / "dna.fa", "--db", fig2 / "db.fa")
    assert code == 2 and "'nt1'" in err and "DNA" in err and "'prot'" not in err
    (fig2 / "dup.fa").write_text(">d1\nCCACCGGGGC\n>d2\nWWW\n>d1 again\nMKW\n")
    code, _, err = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "dup.fa")
    assert code == 2 and "duplicate" in err and "'d1'" in err and len(err.strip().splitlines()) == 1


def test_dna_database_records_warn_once(capsys, fig2, caplog):
    (fig2 / "mixed.fa").write_text(">d1\nCCACCGGGGC\n>nt\n" + "ACGT" * 10 + "\n")
    code = main(["sw", "--query", str(fig2 / "q.fa"), "--db", str(fig2 / "mixed.fa")])
    _, err = capsys.readouterr()
    assert code == 0 and err.count("look like DNA") == 1 and "'nt'" in err


def test_nucleotide_screen_of_a_whole_database():
    """The vectorised screen flags exactly the records looks_nucleotide flags (seeded)."""
    rng = np.random.default_rng(8)
    print("seed", 8)
    seqs = []
    for k in range(200):
        n = int(rng.integers(1, 60))
        alphabet = "ACGTN" if k % 3 == 0 else ("ACGTNM" if k % 3 == 1 else "ACDEFGHIKLMNPQRSTVWY")
        seqs.append("".join(rng.choice(list(alphabet), n)))
    db = Database.from_codes([str(k) for k in range(200)], [encode(x) for x in seqs])
    want = [k for k in range(200) if looks_nucleotide(db.seq(k))]
    assert nucleotide_like(db).tolist() == want and want


def test_gzip_and_prepared_database(capsys, fig2):
    raw = (fig2 / "db.fa").read_bytes()
    (fig2 / "db.fa.gz").write_bytes(gzip.compress(raw))
    code, plain, _ = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa", "--format", "tsv")
    code2, gz, _ = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa.gz", "--format", "tsv")
    code3, out, _ = run(capsys, "sw-makedb", fig2 / "db.fa")
    assert code == code2 == code3 == 0 and Path(out.strip()) == fig2 / "db.fa.swdb"
    assert open_db(fig2 / "db.fa.swdb").codes.flags.writeable  # numba: the FASTA's compiled kernels, no others
    code, prep, _ = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa.swdb", "--format", "tsv")
    code2, beside, _ = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa", "--format", "tsv")
    assert code == code2 == 0 and plain == gz == prep == beside
    # a changed FASTA makes the prepared copy stale: read again
    (fig2 / "db.fa").write_text(">d9\nCCACCGGGGC\n")
    code, fresh, _ = run(capsys, "sw", "--query", fig2 / "q.fa", "--db", fig2 / "db.fa", "--format", "tsv")
    assert code == 0 and "\td9\t" in fresh
