"""Peers beside ours: parsing the tools' real outputs, the accuracy rows (clipped spans,
opposite-strand predictions, tools not installed), and a live run on a bundled annotated case
when spaln/exonerate are installed (Debian packages)."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import pytest

from splicedalign.workloads.spliced import peers
from splicedalign.workloads.spliced.accuracy import compare
from splicedalign.workloads.spliced.datasets import bundled_manifest

PEER_OUTPUTS = Path(__file__).resolve().parents[1] / "tests" / "data" / "peer-outputs"
BUNDLED = bundled_manifest().parent
FAU_TRUE = [(782, 856), (951, 1095), (1557, 1612), (1787, 1912)]
FAU_SPALN = [(457, 504), (774, 856), (951, 1095), (1557, 1612), (1787, 1963)]  # whole cDNA, UTRs too


@pytest.fixture
def fau_manifest(tmp_path) -> Path:
    b = BUNDLED
    (tmp_path / "cases.tsv").write_text(
        "case\tbase\ttarget\texons\texon_format\ttrue_exons\n"
        f"fau\t{b}/bases/hs_FAU.fa\t{b}/targets/hs_X65923.1.fa\t{b}/exons/hs_FAU.tsv\ttsv\t{b}/true/hs_FAU.tsv\n"
        f"srm\t{b}/bases/mm_Srm.fa\t{b}/targets/mm_MUSSPSYN.fa\t{b}/exons/mm_Srm.tsv\ttsv\t\n")
    return tmp_path / "cases.tsv"


def test_parses_the_tools_real_gff():
    spaln = peers._gff_exons((PEER_OUTPUTS / "spaln_rnRho_vs_xlRho.gff3").read_text())
    assert spaln[:2] == [(1, 8, "+"), (5460, 5830, "+")] and len(spaln) == 8
    exonerate = peers._gff_exons((PEER_OUTPUTS / "exonerate_est2genome_rnRho_vs_xlRho.out").read_text())
    assert exonerate == [(5458, 5830, "+"), (6079, 6247, "+"), (6849, 7014, "+"), (7265, 7520, "+")]


def test_clip_and_opposite_strand_counts():
    assert peers.clip(FAU_SPALN, 782, 1912) == [(782, 856), (951, 1095), (1557, 1612), (1787, 1912)]
    c = compare([(1, 10)], [(1, 10)], other_strand=[(20, 29)])
    assert (c.predicted_exons, c.exact_exons, c.predicted_nt, c.shared_nt) == (2, 1, 20, 10)


def test_tool_not_installed_gets_one_row(fau_manifest, monkeypatch):
    missing = replace(peers.PEERS["spaln"], binary="no-such-spaln-binary")
    monkeypatch.setitem(peers.PEERS, "spaln", missing)
    table = peers.peers_table(fau_manifest, peers=["spaln"], sources=["manifest"])
    rows = table[table["tool"] == "spaln"]
    assert list(rows["status"]) == [peers.NOT_INSTALLED] * 2  # one pooled row per span
    assert list(rows["version"]) == [peers.NOT_INSTALLED] * 2
    ours = table[(table["tool"] == "ours:sequential") & (table["scope"] == "dataset") & (table["span"] == "all")]
    assert ours["cases"].item() == 1 and ours["cases_without_truth"].item() == 0  # srm has no annotation
    assert ours["candidates"].item() == "augustus"


def test_no_annotated_case(tmp_path):
    b = BUNDLED
    (tmp_path / "cases.tsv").write_text(
        "case\tbase\ttarget\texons\texon_format\ttrue_exons\n"
        f"srm\t{b}/bases/mm_Srm.fa\t{b}/targets/mm_MUSSPSYN.fa\t{b}/exons/mm_Srm.tsv\ttsv\t\n")
    table = peers.write_peers(tmp_path / "cases.tsv", tmp_path / "t.tsv", tmp_path / "p.png")
    assert table["status"].item().startswith("n/a: no case with annotated exons")
    assert (tmp_path / "p.png").stat().st_size > 0


def test_live_peers_on_fau(fau_manifest, tmp_path):
    installed = {name: p for name, p in peers.PEERS.items() if p.path() is not None}
    if not installed:
        pytest.skip("neither spaln nor exonerate installed (apt-get install spaln exonerate)")
    table = peers.write_peers(fau_manifest, tmp_path / "peers.tsv", tmp_path / "peers.png")
    assert (tmp_path / "peers.png").stat().st_size > 0
    case = table[table["scope"] == "case"]
    if "spaln" in installed:
        assert re.fullmatch(r"\d+\.\d+\S*", peers.PEERS["spaln"].version())  # e.g. 2.4.13f
        spaln = case[(case["tool"] == "spaln") & (case["span"] == "all")].iloc[0]
        assert (spaln.predicted_exons, spaln.exact_exons, spaln.true_exons) == (5, 2, 4)
        clipped = case[(case["tool"] == "spaln") & (case["span"] == "cds")].iloc[0]
        assert (clipped.predicted_exons, clipped.exact_exons, clipped.nt_specificity) == (4, 4, 1.0)
        assert 0 < spaln.seconds < 30
    ours = case[(case["tool"] == "ours:sequential") & (case["candidates"] == "augustus") & (case["span"] == "all")]
    assert ours["nt_sensitivity"].item() == 1.0 and not math.isnan(ours["seconds"].item())
    assert set(case["candidates"]) >= {"augustus", "signals"}


def test_candidate_sources_genscan_shipped_and_signals_na(tmp_path):
    """GENSCAN as a candidate source where the data set ships its report; splice signals on a
    168 kb base exceed their candidate limit and give an n/a row, not a failure."""
    genscan = Path(__file__).parent / "data" / "genscan"
    gene3 = [(18680, 18726), (23250, 23284), (26615, 26664)]
    from splicedalign.core.seqio import read_single_fasta

    seq = read_single_fasta(genscan / "genomic-seq.fasta.gz").seq
    (tmp_path / "t.fa").write_text(">gene3\n" + "".join(seq[f - 1:l] for f, l in gene3) + "\n")
    (tmp_path / "true.tsv").write_text("first\tlast\n" + "".join(f"{f}\t{l}\n" for f, l in gene3))
    (tmp_path / "cases.tsv").write_text(
        "case\tbase\ttarget\texons\texon_format\ttrue_exons\tgenscan\n"
        f"hsba\t{genscan}/genomic-seq.fasta.gz\tt.fa\t{genscan}/genomic-seq.genscan\tgenscan\ttrue.tsv"
        f"\t{genscan}/genomic-seq.genscan\n")
    table = peers.peers_table(tmp_path / "cases.tsv", peers=[], sources=["genscan", "signals"])
    case = table[(table["scope"] == "case") & (table["span"] == "all")]
    ours = case[case["candidates"] == "genscan"].iloc[0]
    assert (ours.exact_exons, ours.true_exons, ours.predicted_exons, ours.status) == (3, 3, 3, "ok")
    signals = table[(table["candidates"] == "signals") & (table["scope"] == "dataset")].iloc[0]
    assert signals.status.startswith("n/a: ") and "more than max_exons" in signals.status
