#!/usr/bin/env python3
"""Rebuild the globin paralog set (resources/globin/) from the HUMHBB GenBank record.

An annotated set with targets of graded divergence, built offline from one real record:
the human beta-globin cluster U01317.1 (HUMHBB, Debian ``emboss-test``; vendored gzipped in
resources/sources/emboss-genbank/) annotates five genes, HBE1, HBG2, HBG1, HBD and HBB, each
with its mRNA (exons with UTRs) and CDS (3 coding exons) as join() features. Each gene's base
is its mRNA span +-1,000 bp (all five lie on the record's forward strand); its true exons are
its CDS exons; its targets are the four paralogs' spliced mRNAs (a cDNA of a homologous gene,
as in the paper's design, but a paralog of the same species, not an ortholog; HBG1/HBG2 and
HBD/HBB are close pairs, epsilon/gamma vs delta/beta distant ones). 5 bases x 4 targets = 20
cases. Candidate exons: AUGUSTUS 3.5.0 (species human, sampled alternatives) as for the
bundled set (scripts/build_bundled.py, whose steps this reuses); without the binary the
committed GFFs are reused.

Usage: scripts/build_globin.py [--source resources/sources] [--out resources/globin]
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import sys
from pathlib import Path

from Bio import SeqIO
from build_bundled import Base, Target, augustus_gff, exon_table, write_base

from splicedalign.workloads.spliced.datasets import CaseEntry, manifest_row, write_manifest

REPO = Path(__file__).resolve().parents[1]
RECORD = Path("emboss-genbank") / "HUMHBB.gb.gz"
GENES = ("HBE1", "HBG2", "HBG1", "HBD", "HBB")
FLANK = 1_000
EXTRA_COLUMNS = ("base_species", "target_species", "gene", "target_gene", "origin")


def _features(record, kind: str) -> dict[str, object]:
    """The ``kind`` feature (mRNA or CDS) of each gene of GENES, by its gene qualifier."""
    found = {}
    for f in record.features:
        gene = (f.qualifiers.get("gene") or [""])[0]
        if f.type == kind and gene in GENES:
            if gene in found:
                sys.exit(f"{record.id}: two {kind} features of {gene}")
            found[gene] = f
    missing = [g for g in GENES if g not in found]
    if missing:
        sys.exit(f"{record.id}: no {kind} feature of {', '.join(missing)}")
    return found


def globin_bases(src: Path) -> list[Base]:
    with gzip.open(src / RECORD, "rt") as handle:
        record = SeqIO.read(handle, "genbank")
    seq = str(record.seq).upper()
    mrna, cds = _features(record, "mRNA"), _features(record, "CDS")
    spliced = {g: "".join(seq[int(p.start):int(p.end)] for p in mrna[g].location.parts) for g in GENES}
    bases = []
    for g in GENES:
        if mrna[g].location.strand != 1:
            sys.exit(f"{record.id}: {g} is not on the record's forward strand")
        lo, hi = max(0, int(mrna[g].location.start) - FLANK), min(len(seq), int(mrna[g].location.end) + FLANK)
        true = [(int(p.start) - lo + 1, int(p.end) - lo) for p in cds[g].location.parts]
        targets = [Target(f"hs_{p}_mRNA", "Homo sapiens", spliced[p]) for p in GENES if p != g]
        bases.append(Base(f"hs_{g}", g, "Homo sapiens", "human", seq[lo:hi], "+",
                          f"GenBank {record.id} {lo + 1}-{hi}", targets, true))
    return bases


def build(src: Path, out: Path, augustus: str | None, precomputed: Path) -> None:
    for sub in ("bases", "targets", "exons", "true", "augustus"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    rows = []
    for b in globin_bases(src):
        write_base(out, b)
        exon_table(out, b, augustus_gff(out, b, augustus, precomputed))
        for t in b.targets:
            entry = CaseEntry(f"{b.id}-{t.id}", out / "bases" / f"{b.id}.fa", out / "targets" / f"{t.id}.fa",
                              out / "exons" / f"{b.id}.tsv", "tsv", out / "true" / f"{b.id}.tsv")
            target_gene = t.id.split("_")[1]
            rows.append(manifest_row(entry, out, **dict(zip(EXTRA_COLUMNS, (
                b.species, f"{t.species} ({target_gene} paralog)", b.gene, target_gene, b.origin)))))
    write_manifest(out / "cases.tsv", rows, EXTRA_COLUMNS)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source", type=Path, default=REPO / "resources" / "sources")
    p.add_argument("--out", type=Path, default=REPO / "resources" / "globin")
    p.add_argument("--augustus", default=shutil.which("augustus"),
                   help="AUGUSTUS binary (default: from PATH; absent = reuse the GFFs in OUT/augustus)")
    p.add_argument("--precomputed", type=Path, default=REPO / "resources" / "globin" / "augustus",
                   help="where the reused AUGUSTUS GFFs (*.gff.gz) are (default: the committed ones)")
    p.add_argument("--no-augustus", action="store_true", help="reuse precomputed AUGUSTUS GFFs")
    args = p.parse_args(argv)
    if args.no_augustus or not args.augustus:
        args.augustus = None
        why = "--no-augustus given" if args.no_augustus else "augustus not found on PATH"
        print(f"{why}: the AUGUSTUS step is skipped; reusing the GFFs in {args.precomputed}", file=sys.stderr)
    build(args.source, args.out, args.augustus, args.precomputed)
    print(f"wrote {args.out / 'cases.tsv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
