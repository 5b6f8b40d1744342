"""Candidate exons from GENSCAN for a whole data set: run a GENSCAN binary, or use shipped reports.

GENSCAN itself is licensed software that CI does not have; ``fake_genscan`` stands in for it,
printing the real GENSCAN 1.0 report of HSBA536C5 (tests/data/genscan) for that sequence.
"""

from __future__ import annotations

import gzip
import stat
from pathlib import Path

import pytest
from snakemake_runs import SNAKEMAKE, snakemake

from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced.datasets import read_manifest
from splicedalign.workloads.spliced.exons.strand import reverse_complement
from splicedalign.workloads.spliced.genscan_datasets import genscan_dataset
from splicedalign.workloads.spliced.solvers import solve

DATA = Path(__file__).parent / "data" / "genscan"
GENE3 = [(18680, 18726), (23250, 23284), (26615, 26664)]  # the report's plus-strand gene 3


def _dataset(tmp: Path, shipped: bool) -> Path:
    base = gzip.decompress((DATA / "genomic-seq.fasta.gz").read_bytes()).decode()
    (tmp / "base.fa").write_text(base)
    seq = "".join(base.split("\n", 1)[1].split())
    (tmp / "target.fa").write_text(">gene3\n" + "".join(seq[f - 1 : l] for f, l in GENE3) + "\n")
    (tmp / "old.tsv").write_text("first\tlast\n1\t10\n")
    cols = "case\tbase\ttarget\texons\texon_format\ttrue_exons" + ("\tgenscan" if shipped else "")
    row = "hsba\tbase.fa\ttarget.fa\told.tsv\ttsv\t" + (f"\t{DATA / 'genomic-seq.genscan'}" if shipped else "")
    (tmp / "cases.tsv").write_text(f"{cols}\n{row}\n")
    return tmp / "cases.tsv"


@pytest.fixture
def fake_genscan(tmp_path) -> str:
    script = tmp_path / "genscan"
    script.write_text(f"#!/bin/sh\n# genscan PARAMS SEQ [-subopt C]\n"
                      f"[ -f \"$1\" ] && [ -f \"$2\" ] || exit 3\ncat {DATA / 'genomic-seq.genscan'}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "HumanIso.smat").write_text("parameters\n")
    return str(script)


def _check(manifest: Path):
    plus, minus = read_manifest(manifest)
    assert (plus.case, plus.strand, minus.case, minus.strand) == ("hsba", "+", "hsba.minus", "-")
    case = plus.load()
    assert [(e.first, e.last) for e in case.exons] == GENE3  # the minus-strand exons are another case
    assert all(e.attrs["source"] == "genscan" and e.attrs["strand"] == "+" for e in case.exons)
    result = solve(case, solver="sequential")
    assert result.score == case.n  # the target is gene 3's exons: every letter matches
    assert [case.exons[k].first for k in result.chain] == [f for f, _ in GENE3]
    other = minus.load()  # solved on the reverse-complemented base, coordinates mapped back
    assert other.strand == "-" and other.K == 34 and other.base == reverse_complement(case.base)
    assert sorted(other.forward_interval(e.first, e.last) for e in other.exons)[:2] == [(10463, 10642), (10815, 11044)]
    assert solve(other, solver="sequential").score < result.score


def test_runs_genscan(tmp_path, fake_genscan, caplog):
    (tmp_path / "d").mkdir()
    manifest = _dataset(tmp_path / "d", shipped=False)
    with caplog.at_level("INFO", logger="splicedalign"):
        out = genscan_dataset(manifest, tmp_path / "g", fake_genscan, str(tmp_path / "HumanIso.smat"))
    assert (tmp_path / "g" / "reports" / "base.genscan").exists()
    assert "37 GENSCAN exons, 3 plus-strand, 34 minus-strand (a case of its own)" in caplog.text
    _check(out)


def test_uses_shipped_reports(tmp_path):
    (tmp_path / "d").mkdir()
    _check(genscan_dataset(_dataset(tmp_path / "d", shipped=True), tmp_path / "g"))


def test_neither_binary_nor_report(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(InputError, match="case hsba: no GENSCAN binary configured"):
        genscan_dataset(_dataset(tmp_path / "d", shipped=False), tmp_path / "g")


def test_genscan_failure_is_reported(tmp_path, fake_genscan):
    (tmp_path / "d").mkdir()
    with pytest.raises(InputError, match=r"GENSCAN failed on .*base.fa \(exit 3\)"):
        genscan_dataset(_dataset(tmp_path / "d", shipped=False), tmp_path / "g", fake_genscan,
                        str(tmp_path / "no-such.smat"))


@pytest.mark.slow
@pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake not installed (pip install .[pipeline])")
def test_pipeline_dry_run_with_genscan(tmp_path, fake_genscan):
    yaml = pytest.importorskip("yaml")
    repo = Path(__file__).resolve().parents[1]
    cfg = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    cfg["spliced"].update(candidate_exons="genscan",
                          genscan={"binary": fake_genscan, "parameters": str(tmp_path / "HumanIso.smat"),
                                   "subopt": 0.5})
    cfg["spliced"]["bundled"]["manifest"] = str(repo / cfg["spliced"]["bundled"]["manifest"])
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake("-s", str(repo / "Snakefile"), "--directory", str(tmp_path), "--configfile",
                     str(tmp_path / "config.yaml"), "-n")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "spliced_genscan" in proc.stdout
