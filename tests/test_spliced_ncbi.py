"""The NCBI data set without HomoloGene: target accessions listed per gene, and one line
saying what is missing (and how to get it) when neither is there. No test touches NCBI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from snakemake_runs import SNAKEMAKE, snakemake

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import read_single_fasta
from splicedalign.data.entrez import EutilsClient, EutilsConfig
from splicedalign.workloads.spliced.datasets import read_manifest
from splicedalign.workloads.spliced.ncbi_datasets import missing_inputs, parse_targets, write_ncbi_dataset

sys.path.insert(0, str(Path(__file__).parent))
from eutils_server import BUNDLED, EutilsServer  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def test_listed_targets_need_no_homologene(tmp_path):
    with EutilsServer() as server:
        client = EutilsClient(EutilsConfig(base_url=server.url, backoff_s=0.01, timeout_s=5))
        manifest = write_ncbi_dataset(client, ["IL10"], None, tmp_path, flank=500,
                                      targets=parse_targets(["IL10=NM_010548.1"]))
    (entry,) = read_manifest(manifest)
    assert entry.case == "hs_IL10-NM_010548.1"
    case = entry.load()
    assert case.target == read_single_fasta(BUNDLED / "targets" / "mm_NM_010548.1.fa").seq
    assert "IL10\tNM_010548.1\ttarget\tNM_010548.1\t" in (tmp_path / "report.tsv").read_text()


def test_missing_homologene_one_line(tmp_path):
    problem = missing_inputs(["IL10", "RHO"], tmp_path / "homologene.data", {"RHO": ["NM_1"]})
    assert problem.startswith(f"the NCBI data set needs HomoloGene build 68 ({tmp_path / 'homologene.data'} is missing)"
                              " to find targets for IL10: download https://ftp.ncbi.nih.gov/pub/HomoloGene/build68/")
    assert missing_inputs(["RHO"], None, {"RHO": ["NM_1"]}) is None
    with pytest.raises(InputError, match="expected GENE=ACCESSION"):
        parse_targets(["IL10"])
    proc = subprocess.run([sys.executable, "-m", "splicedalign.workloads.spliced.ncbi_datasets", "--genes", "IL10",
                           "--homologene", str(tmp_path / "homologene.data"), str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "needs HomoloGene build 68" in proc.stderr and not (tmp_path / "out").exists()


@pytest.mark.slow
@pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake not installed (pip install .[pipeline])")
def test_pipeline_ncbi_without_homologene_stops_at_planning(tmp_path):
    (tmp_path / "ncbi.yaml").write_text(f"spliced:\n  dataset: ncbi\n  ncbi:\n    genes: [IL10]\n"
                                        f"    homologene: {tmp_path / 'h.data'}\n"
                                        "    base_url: x\n    flank: 10\n    max_targets: 1\n")
    proc = snakemake("-s", str(REPO / "Snakefile"), "-d", str(REPO), "-n", "--configfile",
                     str(REPO / "config" / "config.yaml"), str(tmp_path / "ncbi.yaml"))
    assert proc.returncode != 0
    assert "the NCBI data set needs HomoloGene build 68" in proc.stdout + proc.stderr
    assert "invalid choice" not in proc.stdout + proc.stderr
