"""The NCBI data set: for each configured human gene, its region +-flank (oriented so the gene
is on the forward strand) and the RefSeq mRNAs of up to ``max_targets`` homologs from other
species (HomoloGene), written as a data-set folder (see ``dataset``).

Candidate exons default to the splice-signal source (``exon_format: signals``, which reads
the base FASTA itself); a pipeline rule may replace them with AUGUSTUS or GENSCAN output.
``report.tsv`` lists every gene and homolog with what was fetched or why it was not.

CLI: ``python -m splicedalign.workloads.spliced.ncbi_datasets --genes IL10 RHO --homologene homologene.data OUT``
(``--base-url`` for a mirror; ``NCBI_API_KEY`` from the environment raises the rate limit).
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from pathlib import Path

from splicedalign.core.logs import log_to
from splicedalign.workloads.spliced.datasets import CaseEntry, manifest_row, write_fasta, write_manifest
from splicedalign.core.errors import InputError
from splicedalign.data.homologene import homologs, read_homologene
from splicedalign.data.entrez import DEFAULT_BASE_URL, EutilsClient, EutilsConfig, NcbiError


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def write_ncbi_dataset(client: EutilsClient, genes: list[str], homologene: str | Path, out: str | Path,
                       flank: int = 1000, max_targets: int = 5) -> Path:
    out = Path(out)
    for sub in ("bases", "targets"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    members = read_homologene(homologene)
    rows, report = [], []
    for gene in genes:
        own, others = homologs(members, gene, limit=max_targets, source=str(homologene))
        acc, first, last, strand = client.gene_location(client.gene_id(own.gene_id))
        _, chrom_len = client.sequence_length(acc)
        start, stop = max(1, first - flank), min(chrom_len, last + flank)
        base = client.fasta(acc, stop - start + 1, start, stop, strand)
        base_id = _safe(f"hs_{own.symbol}")
        write_fasta(out / "bases" / f"{base_id}.fa", base_id, base.seq)
        report.append((gene, own.gene_id, "base", f"{acc}:{start}-{stop}({strand})", str(stop - start + 1), "ok"))
        targets = 0
        for h in others:
            uids = client.refseq_mrnas(h.gene_id)
            if not uids:
                report.append((gene, h.gene_id, "target", "", "", f"no RefSeq mRNA (taxon {h.taxon})"))
                continue
            accession, length = client.sequence_length(uids[0])
            record = client.fasta(uids[0], length)
            target_id = _safe(f"{h.taxon}_{accession}")
            write_fasta(out / "targets" / f"{target_id}.fa", target_id, record.seq)
            base_f = out / "bases" / f"{base_id}.fa"
            entry = CaseEntry(f"{base_id}-{target_id}", base_f, out / "targets" / f"{target_id}.fa", base_f, "signals")
            rows.append(manifest_row(entry, out))
            report.append((gene, h.gene_id, "target", accession, str(length), "ok"))
            targets += 1
        if not targets:
            raise NcbiError(f"gene {gene}: no homologous mRNA found in other species")
    manifest = write_manifest(out / "cases.tsv", rows)
    with open(out / "report.tsv", "w") as handle:
        handle.write("gene\tgene_id\trole\tsequence\tlength\tstatus\n")
        handle.writelines("\t".join(r) + "\n" for r in report)
    return manifest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m splicedalign.workloads.spliced.ncbi_datasets", description=__doc__.splitlines()[0])
    p.add_argument("--genes", nargs="+", required=True, help="human gene symbols or Gene IDs")
    p.add_argument("--homologene", required=True, type=Path, help="homologene.data (build 68)")
    p.add_argument("--base-url", default=DEFAULT_BASE_URL)
    p.add_argument("--cache", type=Path, help="cache folder for validated answers")
    p.add_argument("--flank", type=int, default=1000)
    p.add_argument("--max-targets", type=int, default=5)
    p.add_argument("out", type=Path)
    args = p.parse_args(argv)
    log_to(None, logging.INFO, "%(levelname)s %(message)s")
    client = EutilsClient(EutilsConfig.from_env(base_url=args.base_url, cache_dir=args.cache))
    try:
        print(write_ncbi_dataset(client, args.genes, args.homologene, args.out, args.flank, args.max_targets))
    except (InputError, NcbiError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
