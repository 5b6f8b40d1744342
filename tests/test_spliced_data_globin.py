"""The globin paralog set (resources/globin): valid, annotated with real CDS exons,
reproducible byte for byte, and its gene models right with free target ends."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO

from splicedalign.workloads.spliced.accuracy import accuracy_table, record
from splicedalign.workloads.spliced.datasets import read_manifest
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import solve

GLOBIN = REPO / "resources" / "globin"
CODONS = {"TAA", "TAG", "TGA"}


@pytest.fixture(scope="module")
def cases():
    return [e.load() for e in read_manifest(GLOBIN / "cases.tsv")]


def test_globin_set_is_valid_and_annotated(cases):
    assert len(cases) == 20 and len({c.base_id for c in cases}) == 5
    for c in cases:
        true = c.meta["true_exons"]
        assert len(true) == 3 and c.K > 0
        cds = "".join(c.base[f - 1:l] for f, l in true).upper()
        codons = [cds[i:i + 3] for i in range(0, len(cds), 3)]
        assert len(cds) % 3 == 0 and cds.startswith("ATG") and codons[-1] in CODONS
        assert not CODONS & set(codons[:-1]), c.name  # no internal stop: a real coding sequence


def test_rebuild_reproduces_committed_files(tmp_path):
    out = tmp_path / "globin"
    run = subprocess.run([sys.executable, str(REPO / "scripts" / "build_globin.py"), "--no-augustus",
                          "--out", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    files = lambda root: {str(p.relative_to(root)): p.read_bytes()  # noqa: E731
                          for p in sorted(root.rglob("*")) if p.is_file() and p.name != "README.md"}
    built, committed = files(out), files(GLOBIN)
    assert built.keys() == committed.keys()
    assert [k for k in built if built[k] != committed[k]] == []


def test_free_ends_find_the_coding_exons(cases):
    """Real-data check of issue 24's objective: with free target ends every annotated coding
    exon is exact (clipped to the coding span: the paralogs' mRNAs carry UTRs), and the paper's
    global objective does worse."""
    from splicedalign.workloads.spliced.peers import clip

    def sensitivity(scoring):
        recs = []
        for c in cases:
            r = record(c, solve(c, scoring, "sequential"))
            lo, hi = min(f for f, _ in r["true"]), max(l for _, l in r["true"])
            recs.append({**r, "predicted": clip(r["predicted"], lo, hi)})
        return accuracy_table(recs).query("scope == 'dataset'").iloc[0]

    free, glob = sensitivity(Scoring(2, -1, 3, "free")), sensitivity(Scoring())
    assert free.exon_sensitivity == 1.0 and free.exon_specificity == 1.0
    assert glob.exon_sensitivity < free.exon_sensitivity
