#!/usr/bin/env python3
"""Rebuild the bundled data set (resources/bundled/) from the real files of resources/sources.

Bases: the 10 human chr1 genes of Debian's sim4 examples cut to gene +-1,000 bp (each with
its mouse RefSeq mRNA: the HomoloGene design), the Xenopus rhodopsin gene with Xenopus, rat
and octopus rhodopsin mRNAs, the human FAU gene with its mRNA, the mouse Srm genomic slice
with its mRNA, and the human chr17 UCSC transcript uc010vpx.1 (BED12) with its spliced
sequence. Every base is oriented so that its gene lies on the forward strand (minus-strand
genes reverse-complemented, coordinates mapped).

Candidate exons: AUGUSTUS 3.5.0 (Debian) with sampled alternatives on each base; the
forward-strand coding exons become the case's exon table. The raw AUGUSTUS GFF files are kept
under augustus/ (gzipped); when the ``augustus`` binary is absent they are reused (and the script says
so), so everything else is still rebuilt and checked byte for byte.

Usage: scripts/build_bundled.py [--source resources/sources] [--out resources/bundled]
"""

from __future__ import annotations

import argparse
import gzip
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from Bio import SeqIO

from splicedalign.core.seqio import read_fasta, read_single_fasta
from splicedalign.workloads.spliced.datasets import CaseEntry, manifest_row, write_fasta, write_manifest
from splicedalign.workloads.spliced.exons.bed12 import read_bed12_transcripts
from splicedalign.workloads.spliced.exons.gff import read_gff
from splicedalign.workloads.spliced.exons.strand import flip_interval, on_strand, reverse_complement
from splicedalign.workloads.spliced.exons.tsv import write_exon_tsv
from splicedalign.workloads.spliced.records import Exon

REPO = Path(__file__).resolve().parents[1]
FLANK = 1_000  # bp kept on each side of a gene (the paper's design)
SIM4_OFFSET = 50_000  # sim4 regions hold the gene at offset 50,001 (SOURCES.md)
KMER = 14  # k-mer size of the strand test (mouse mRNA vs human gene)
AUGUSTUS_FLAGS = ("--alternatives-from-sampling=true", "--sample=100", "--minexonintronprob=0",
                  "--minmeanexonintronprob=0", "--maxtracks=-1")
# Human RefSeq accession of each sim4 region -> gene symbol (from the sim4 examples' README
# and data/SOURCES.md; the headers carry accessions only).
SIM4_GENES = {
    "NM_001010985.1": "MYBPHL", "NM_024066.1": "NM_024066", "NM_000696.3": "ALDH9A1",
    "NM_000572.2": "IL10", "NM_003094.2": "SNRPE", "NM_002403.2": "MFAP2",
    "NM_020699.1": "GATAD2B", "NM_014002.2": "IKBKE", "NM_198149.1": "NM_198149",
    "NM_000969.3": "RPL5",
}
EXTRA_COLUMNS = ("base_species", "target_species", "gene", "strand", "origin")


@dataclass
class Target:
    id: str
    species: str
    seq: str


@dataclass
class Base:
    id: str  # file stem, e.g. hs_IL10
    gene: str
    species: str
    augustus_species: str
    seq: str  # oriented: the gene on the forward strand
    strand: str  # strand of the gene in the source record
    origin: str  # where the sequence came from, in words
    targets: list[Target]
    true_exons: list[tuple[int, int]] = field(default_factory=list)


def _genbank(path: Path):
    return SeqIO.read(path, "genbank")


def _cds_exons(record) -> list[tuple[int, int]]:
    cds = [f for f in record.features if f.type == "CDS"]
    if len(cds) != 1:
        sys.exit(f"{record.id}: expected one CDS feature, found {len(cds)}")
    return [(int(p.start) + 1, int(p.end)) for p in cds[0].location.parts]


def _target_from_genbank(path: Path, species_code: str) -> Target:
    r = _genbank(path)
    return Target(f"{species_code}_{r.id}", r.annotations["organism"], str(r.seq).upper())


def _kmers(seq: str) -> set[str]:
    return {seq[i:i + KMER] for i in range(len(seq) - KMER + 1)}


def gene_strand(gene: str, mrna: str, name: str) -> str:
    """Strand of ``gene`` that the homologous mRNA matches, by shared k-mers (must be clear)."""
    km = _kmers(mrna.upper())
    fwd = sum(gene[i:i + KMER] in km for i in range(len(gene) - KMER + 1))
    rev_gene = reverse_complement(gene)
    rev = sum(rev_gene[i:i + KMER] in km for i in range(len(rev_gene) - KMER + 1))
    if max(fwd, rev) < 20 or max(fwd, rev) < 5 * min(fwd, rev):
        sys.exit(f"{name}: strand unclear ({fwd} forward vs {rev} reverse shared {KMER}-mers)")
    return "+" if fwd > rev else "-"


def sim4_bases(src: Path) -> list[Base]:
    genomic = read_fasta(src / "sim4-examples/sample.gen.fasta")
    cdna = read_fasta(src / "sim4-examples/sample.cdna.fasta")
    bases = []
    for g, c in zip(genomic, cdna, strict=True):
        accession = g.id.rstrip(",")
        start, end = (int(v) for v in re.findall(r"(?:start|end)=(\d+)", g.description))
        length = end - start + 1
        region = g.seq.upper()
        gene = region[SIM4_OFFSET:SIM4_OFFSET + length]
        strand = gene_strand(gene, c.seq, accession)
        cut = region[SIM4_OFFSET - FLANK:SIM4_OFFSET + length + FLANK]
        symbol = SIM4_GENES[accession]
        mouse = c.id.split("|")[3]  # gi|...|ref|NM_026831.1|
        bases.append(Base(
            f"hs_{symbol}", symbol, "Homo sapiens", "human",
            cut if strand == "+" else reverse_complement(cut), strand,
            f"sim4 example {accession} chr1:{start - FLANK}-{end + FLANK}",
            [Target(f"mm_{mouse}", "Mus musculus", c.seq.upper())],
        ))
    return bases


def genbank_bases(src: Path) -> list[Base]:
    gb = src / "emboss-genbank"
    rho, fau = _genbank(gb / "XLU23808.gb"), _genbank(gb / "X65921.gb")
    return [
        Base("xl_RHO", "rho", "Xenopus laevis", "Xenopus_tropicalis", str(rho.seq).upper(), "+",
             f"GenBank {rho.id}",
             [_target_from_genbank(gb / "XELRHODOP.gb", "xl"), _target_from_genbank(gb / "Z46957.gb", "rn"),
              _target_from_genbank(gb / "X07797.gb", "od")],
             _cds_exons(rho)),
        Base("hs_FAU", "FAU", "Homo sapiens", "human", str(fau.seq).upper(), "+", f"GenBank {fau.id}",
             [_target_from_genbank(gb / "X65923.gb", "hs")], _cds_exons(fau)),
    ]


def srm_base(src: Path) -> Base:
    genomic = read_single_fasta(src / "bioperl-run/exonerate_genomic.fa")
    mrna = read_single_fasta(src / "bioperl-run/exonerate_cdna.fa")
    strand = gene_strand(genomic.seq.upper(), mrna.seq, genomic.id)
    seq = genomic.seq.upper()
    return Base("mm_Srm", "Srm", "Mus musculus", "human", seq if strand == "+" else reverse_complement(seq),
                strand, f"bioperl-run slice {genomic.id}",
                [Target(f"mm_{mrna.id}", "Mus musculus", mrna.seq.upper())])


def bed12_base(src: Path) -> Base:
    (t,) = read_bed12_transcripts(src / "pyfaidx-tests/gene.bed12")
    chrom = read_single_fasta(src / "pyfaidx-tests/chr17.hg19.part.fa").seq.upper()
    lo, hi = t.blocks[0][0] - FLANK, t.blocks[-1][1] + FLANK
    cut = chrom[lo - 1:hi]
    coding = [(f - lo + 1, l - lo + 1) for f, l in t.coding_blocks()]
    if t.strand == "-":
        cut = reverse_complement(cut)
        coding = sorted(flip_interval(f, l, len(cut)) for f, l in coding)
    transcript = read_single_fasta(src / "pyfaidx-tests/gene.bed12.fasta")
    return Base(f"hs_{t.name.split('.')[0]}", t.name, "Homo sapiens", "human", cut, t.strand,
                f"hg19 {t.chrom}:{lo}-{hi} (pyfaidx test data)",
                [Target(f"hs_{t.name}_spliced", "Homo sapiens (same gene: spliced genomic sequence)",
                        transcript.seq.upper())], coding)


def augustus_gff(out: Path, base: Base, binary: str | None, precomputed: Path) -> bytes:
    """AUGUSTUS's GFF for the base: run now, or the committed (gzipped, verbatim) output."""
    gz = out / "augustus" / f"{base.id}.gff.gz"
    if binary is None:
        kept = precomputed / gz.name
        if not kept.exists():
            sys.exit(f"AUGUSTUS not run and no precomputed {kept}")
        if kept.resolve() != gz.resolve():
            shutil.copyfile(kept, gz)
        return gzip.decompress(kept.read_bytes())
    # AUGUSTUS echoes its command line into the GFF header: argv[0] "augustus" and a relative
    # input path keep that line independent of where the binary and the repository live
    cmd = ["augustus", f"--species={base.augustus_species}", *AUGUSTUS_FLAGS, f"bases/{base.id}.fa"]
    gff = subprocess.run(cmd, executable=binary, cwd=out, stdout=subprocess.PIPE, check=True).stdout
    gz.write_bytes(gzip.compress(gff, mtime=0))  # mtime=0: same bytes on every run
    return gff


def write_base(out: Path, base: Base) -> None:
    write_fasta(out / "bases" / f"{base.id}.fa", base.id, base.seq)
    for t in base.targets:
        write_fasta(out / "targets" / f"{t.id}.fa", t.id, t.seq)
    if base.true_exons:
        with open(out / "true" / f"{base.id}.tsv", "w") as handle:
            write_exon_tsv([Exon(f, l) for f, l in base.true_exons], handle)


def exon_table(out: Path, base: Base, gff: bytes) -> tuple[int, int]:
    """Write the forward-strand AUGUSTUS exons; (used, other-strand) counts."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{base.id}.gff"
        path.write_bytes(gff)
        every = read_gff(path, len(base.seq))
    _, used = on_strand(base.seq, every, "+")
    if not used:
        sys.exit(f"{base.id}: AUGUSTUS predicted no forward-strand exon; the case would be empty")
    used.sort(key=lambda e: (e.first, e.last))
    with open(out / "exons" / f"{base.id}.tsv", "w") as handle:
        write_exon_tsv(used, handle)
    return len(used), len(every) - len(used)


def build(src: Path, out: Path, augustus: str | None, precomputed: Path) -> None:
    for sub in ("bases", "targets", "exons", "true", "augustus"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    bases = [*sim4_bases(src), *genbank_bases(src), srm_base(src), bed12_base(src)]
    rows, base_rows = [], []
    for b in bases:
        write_base(out, b)
        used, other = exon_table(out, b, augustus_gff(out, b, augustus, precomputed))
        true_f = f"true/{b.id}.tsv" if b.true_exons else ""
        base_rows.append((b.id, b.gene, b.species, b.strand, str(len(b.seq)), str(used), str(other),
                          str(len(b.true_exons)), b.augustus_species, b.origin))
        for t in b.targets:
            entry = CaseEntry(f"{b.id}-{t.id}", out / "bases" / f"{b.id}.fa", out / "targets" / f"{t.id}.fa",
                              out / "exons" / f"{b.id}.tsv", "tsv", out / true_f if true_f else None)
            rows.append(manifest_row(entry, out, **dict(zip(EXTRA_COLUMNS, (
                b.species, t.species, b.gene, b.strand, b.origin)))))
    write_manifest(out / "cases.tsv", rows, EXTRA_COLUMNS)
    with open(out / "bases.tsv", "w") as handle:
        handle.write("base\tgene\tspecies\tsource_strand\tm\taugustus_exons_used\t"
                     "augustus_exons_other_strand\ttrue_exons\taugustus_species\torigin\n")
        handle.writelines("\t".join(r) + "\n" for r in base_rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source", type=Path, default=REPO / "resources" / "sources")
    p.add_argument("--out", type=Path, default=REPO / "resources" / "bundled")
    p.add_argument("--augustus", default=shutil.which("augustus"),
                   help="AUGUSTUS binary (default: from PATH; absent = reuse the GFFs in OUT/augustus)")
    p.add_argument("--no-augustus", action="store_true", help="reuse precomputed AUGUSTUS GFFs")
    p.add_argument("--precomputed", type=Path, default=REPO / "resources" / "bundled" / "augustus",
                   help="where the reused AUGUSTUS GFFs (*.gff.gz) are (default: the committed ones)")
    args = p.parse_args(argv)
    if args.no_augustus or not args.augustus:
        args.augustus = None
        why = "--no-augustus given" if args.no_augustus else "augustus not found on PATH"
        print(f"{why}: the AUGUSTUS step is skipped; reusing the GFFs in {args.precomputed}",
              file=sys.stderr)
    build(args.source, args.out, args.augustus, args.precomputed)
    print(f"wrote {args.out / 'cases.tsv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
