"""The NCBI data set: for each configured human gene, its region +-flank (oriented so the gene
is on the forward strand) and the RefSeq mRNAs of up to ``max_targets`` homologs from other
species (HomoloGene), written as a data-set folder (see ``dataset``). Instead of HomoloGene,
a gene's targets may be listed as nucleotide accessions (``targets``, ``--targets``);
HomoloGene build 68 is needed only for the genes without such a list.

Candidate exons default to the splice-signal source (``exon_format: signals``, which reads
the base FASTA itself); a pipeline rule may replace them with AUGUSTUS or GENSCAN output.
``report.tsv`` lists every gene and homolog with what was fetched or why it was not.

CLI: ``python -m splicedalign.workloads.spliced.ncbi_datasets --genes IL10 RHO --homologene homologene.data OUT``
(or ``--targets IL10=NM_010548.1,NM_012854.2 RHO=...`` without ``--homologene``)
(``--base-url`` for a mirror; ``NCBI_API_KEY`` from the environment raises the rate limit).
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from splicedalign.core.errors import InputError
from splicedalign.core.logs import log_to
from splicedalign.data.entrez import DEFAULT_BASE_URL, EutilsClient, EutilsConfig, NcbiError
from splicedalign.data.homologene import homologs, read_homologene
from splicedalign.workloads.spliced.datasets import CaseEntry, manifest_row, write_fasta, write_manifest


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


HOMOLOGENE_URL = "https://ftp.ncbi.nih.gov/pub/HomoloGene/build68/homologene.data"


def missing_inputs(genes: Sequence[str], homologene: str | Path | None,
                   targets: Mapping[str, Sequence[str]] | None = None) -> str | None:
    """One line saying what the NCBI data set lacks and how to get it, or None."""
    without = [g for g in genes if not (targets or {}).get(g)]
    if not without or (homologene is not None and Path(homologene).is_file()):
        return None
    return (f"the NCBI data set needs HomoloGene build 68 ({homologene or 'homologene.data'} is missing)"
            f" to find targets for {', '.join(without)}: download {HOMOLOGENE_URL} there, or list target"
            " accessions per gene (config spliced.ncbi.targets, e.g. {IL10: [NM_010548.1]};"
            " --targets IL10=NM_010548.1)")


def write_ncbi_dataset(client: EutilsClient, genes: list[str], homologene: str | Path | None, out: str | Path,
                       flank: int = 1000, max_targets: int = 5,
                       targets: Mapping[str, Sequence[str]] | None = None) -> Path:
    problem = missing_inputs(genes, homologene, targets)
    if problem:
        raise InputError(str(homologene or "homologene"), problem)
    out = Path(out)
    for sub in ("bases", "targets"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    targets = targets or {}
    members = read_homologene(homologene) if any(not targets.get(g) for g in genes) else []
    rows, report = [], []
    for gene in genes:
        listed = list(targets.get(gene) or ())
        if listed:
            gene_id, symbol, others = client.gene_id(gene), gene, []
        else:
            own, others = homologs(members, gene, limit=max_targets, source=str(homologene))
            gene_id, symbol = client.gene_id(own.gene_id), own.symbol
        acc, first, last, strand = client.gene_location(gene_id)
        _, chrom_len = client.sequence_length(acc)
        start, stop = max(1, first - flank), min(chrom_len, last + flank)
        base = client.fasta(acc, stop - start + 1, start, stop, strand)
        base_id = _safe(f"hs_{symbol}")
        base_f = out / "bases" / f"{base_id}.fa"
        write_fasta(base_f, base_id, base.seq)
        report.append((gene, gene_id, "base", f"{acc}:{start}-{stop}({strand})", str(stop - start + 1), "ok"))
        # (target uid, its id prefix, the Gene ID it stands for): HomoloGene's homologs' first
        # RefSeq mRNA, or the listed accessions
        wanted: list[tuple[str | None, str, str]] = [(a, "", a) for a in listed]
        for h in others:
            uids = client.refseq_mrnas(h.gene_id)
            if not uids:
                report.append((gene, h.gene_id, "target", "", "", f"no RefSeq mRNA (taxon {h.taxon})"))
                continue
            wanted.append((uids[0], f"{h.taxon}_", h.gene_id))
        for uid, prefix, gid in wanted:
            accession, length = client.sequence_length(uid)
            record = client.fasta(uid, length)
            target_id = _safe(f"{prefix}{accession}")
            write_fasta(out / "targets" / f"{target_id}.fa", target_id, record.seq)
            entry = CaseEntry(f"{base_id}-{target_id}", base_f, out / "targets" / f"{target_id}.fa", base_f, "signals")
            rows.append(manifest_row(entry, out))
            report.append((gene, gid, "target", accession, str(length), "ok"))
        if not wanted:
            raise NcbiError(f"gene {gene}: no homologous mRNA found in other species")
    manifest = write_manifest(out / "cases.tsv", rows)
    with open(out / "report.tsv", "w") as handle:
        handle.write("gene\tgene_id\trole\tsequence\tlength\tstatus\n")
        handle.writelines("\t".join(r) + "\n" for r in report)
    return manifest


def parse_targets(items: Sequence[str]) -> dict[str, list[str]]:
    """``GENE=ACC[,ACC...]`` items as {gene: [accessions]}."""
    out = {}
    for item in items:
        gene, sep, accs = item.partition("=")
        if not sep or not gene or not accs.strip(","):
            raise InputError("--targets", f"expected GENE=ACCESSION[,ACCESSION...], got {item!r}")
        out[gene] = [a for a in accs.split(",") if a]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m splicedalign.workloads.spliced.ncbi_datasets",
                                description=__doc__.splitlines()[0])
    p.add_argument("--genes", nargs="+", required=True, help="human gene symbols or Gene IDs")
    p.add_argument("--homologene", type=Path,
                   help=f"homologene.data (build 68, {HOMOLOGENE_URL}); needed for genes without --targets")
    p.add_argument("--targets", nargs="*", default=[], metavar="GENE=ACC[,ACC]",
                   help="target accessions of a gene (instead of its HomoloGene homologs)")
    p.add_argument("--base-url", default=DEFAULT_BASE_URL)
    p.add_argument("--cache", type=Path, help="cache folder for validated answers")
    p.add_argument("--flank", type=int, default=1000)
    p.add_argument("--max-targets", type=int, default=5)
    p.add_argument("out", type=Path)
    args = p.parse_args(argv)
    log_to(None, logging.INFO, "%(levelname)s %(message)s")
    client = EutilsClient(EutilsConfig.from_env(base_url=args.base_url, cache_dir=args.cache))
    try:
        print(write_ncbi_dataset(client, args.genes, args.homologene, args.out, args.flank, args.max_targets,
                                 parse_targets(args.targets)))
    except (InputError, NcbiError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
