"""The bundled data set: valid, solvable by every CPU solver, reproducible byte for byte;
the synthetic data-set writer; gene-prediction accuracy."""

from __future__ import annotations

import csv
import gzip
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced.accuracy import accuracy_table, compare, record
from splicedalign.workloads.spliced.datasets import bundled_manifest, read_manifest, write_synthetic
from splicedalign.workloads.spliced.oracle import alignment_problems
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import solve
from splicedalign.workloads.spliced.synthetic import tiny_set

BUNDLED = REPO / "resources" / "bundled"
SCORING = Scoring()
# The pure-Python reference solver only on the five smallest cases (0.3-1.9 M cells, 7-24 exons):
# the nine up to 3 M took ~8 of the suite's CPU s, the five ~2.6; the reference's mutants
# (a gap, the chain-start term, the first row changed) each gave a wrong score on 1-2 of the five
# (2-5 of the nine), and it is checked against golden, brute-force and random cases elsewhere.
REFERENCE_MAX_CELLS = 2_000_000


@pytest.fixture(scope="module")
def cases():
    return [e.load() for e in read_manifest(bundled_manifest())]


@pytest.fixture(scope="module")
def bases():
    with open(BUNDLED / "bases.tsv") as handle:
        return {r["base"]: r for r in csv.DictReader(handle, delimiter="\t")}


def test_bundled_set_is_valid(cases, bases):
    assert bundled_manifest() == BUNDLED / "cases.tsv"
    assert len(cases) == 16 and len(bases) == 14
    for c in cases:
        b = bases[c.base_id]
        assert c.m == int(b["m"]) and c.K == int(b["augustus_exons_used"])
        assert all(e.attrs["strand"] == "+" and e.attrs["source"] == "AUGUSTUS" for e in c.exons)
        assert len(c.meta.get("true_exons", ())) == int(b["true_exons"])
    with_truth = {c.name for c in cases if c.meta.get("true_exons")}
    assert len(with_truth) == 5  # 3 rhodopsin targets, FAU, chr17 BED12 transcript


@pytest.mark.slow
def test_every_case_solves_with_cpu_solvers(cases):
    for c in cases:
        seq = solve(c, SCORING, solver="sequential")
        assert alignment_problems(c, seq, SCORING) == []
        assert solve(c, SCORING, solver="multicore").score == seq.score
        if c.cells <= REFERENCE_MAX_CELLS:
            assert solve(c, SCORING, solver="reference").score == seq.score, c.name


def test_annotated_genes_are_found(cases):
    """Real-data sanity: on the annotated genes the chain recovers most true exons exactly."""
    table = accuracy_table(record(c, solve(c, SCORING, solver="sequential")) for c in cases)
    pooled = table[table.scope == "dataset"].iloc[0]
    assert pooled.cases == 5 and pooled.cases_without_truth == 11
    assert pooled.exon_sensitivity >= 0.7 and pooled.nt_sensitivity >= 0.95


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
            and p.name != "README.md"}


def test_rebuild_reproduces_committed_files(tmp_path):
    out = tmp_path / "bundled"
    run = subprocess.run([sys.executable, str(REPO / "scripts" / "build_bundled.py"), "--no-augustus",
                          "--out", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "AUGUSTUS step is skipped" in run.stderr
    built, committed = _files(out), _files(BUNDLED)
    assert built.keys() == committed.keys()
    assert [k for k in built if built[k] != committed[k]] == []


@pytest.mark.skipif(shutil.which("augustus") is None, reason="augustus not installed: AUGUSTUS step not checked")
@pytest.mark.parametrize("base", ["mm_Srm", "hs_FAU"])
def test_augustus_reproduces_committed_output(tmp_path, base):
    (tmp_path / "bases").mkdir()
    shutil.copy(BUNDLED / "bases" / f"{base}.fa", tmp_path / "bases")
    sys.path.insert(0, str(REPO / "scripts"))
    import build_bundled

    cmd = ["augustus", "--species=human", *build_bundled.AUGUSTUS_FLAGS, f"bases/{base}.fa"]
    gff = subprocess.run(cmd, cwd=tmp_path, capture_output=True, check=True).stdout
    assert gff == gzip.decompress((BUNDLED / "augustus" / f"{base}.gff.gz").read_bytes())


def test_write_synthetic_round_trip(tmp_path):
    manifest = write_synthetic("tiny", tmp_path)
    loaded = [e.load() for e in read_manifest(manifest)]
    expected = tiny_set()
    assert [(c.name, c.base, c.target, [(e.first, e.last) for e in c.exons]) for c in loaded] == \
        [(c.name, c.base, c.target, [(e.first, e.last) for e in c.exons]) for c in expected]
    assert all(c.meta["true_exons"] == e.meta["true_exons"] for c, e in zip(loaded, expected))
    with pytest.raises(InputError, match="unknown synthetic set 'huge'"):
        write_synthetic("huge", tmp_path)


def test_accuracy_by_hand():
    counts = compare([(1, 10), (20, 30)], [(1, 10), (21, 30), (50, 59)])
    assert (counts.exact_exons, counts.true_nt, counts.predicted_nt, counts.shared_nt) == (1, 30, 21, 20)
    table = accuracy_table([
        {"case": "a", "solver": "s", "predicted": [(1, 10), (20, 30)], "true": [(1, 10), (21, 30), (50, 59)]},
        {"case": "b", "solver": "s", "predicted": [(5, 8)], "true": [(5, 8)]},
        {"case": "c", "solver": "s", "predicted": [(5, 8)], "true": None},
        {"case": "d", "solver": "s", "predicted": [], "true": [(1, 4)]},
    ])
    a, b, d, pooled = (table.iloc[i] for i in range(4))
    assert (a.exon_sensitivity, a.exon_specificity) == (1 / 3, 1 / 2)
    assert (a.nt_sensitivity, a.nt_specificity) == (20 / 30, 20 / 21)
    assert (b.exon_sensitivity, b.nt_specificity) == (1.0, 1.0)
    assert d.exon_sensitivity == 0 and math.isnan(d.exon_specificity)
    assert (pooled.scope, pooled.cases, pooled.cases_without_truth) == ("dataset", 3, 1)
    assert pooled.exon_sensitivity == 2 / 5 and pooled.nt_sensitivity == 24 / 38
