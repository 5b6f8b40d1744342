"""Build the bundled sw data set from the shared real data (run once; needs Biopython):
    python resources/sw/build.py ../shared/data resources/sw
Every CDS of the EMBOSS GenBank records is translated with Biopython from its join() location
(the record's transl_table, to the first stop) and checked against the record's /translation;
identical proteins are kept once. Added as they are: the wise-data and miniprot proteins and
the GENSCAN-predicted peptides. Queries: octopus rhodopsin (X07797; its vertebrate orthologs
and a prostanoid receptor, another GPCR, are in the database) and Drosophila hnRNP A1 (road.pep;
human and Xenopus A1 are in the database). Writes db.fa, query.fa, cases.tsv."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from Bio import SeqIO

QUERIES = ("X07797.1", "roa1_drome")


def cds_proteins(path: Path):
    for rec in SeqIO.parse(path, "genbank"):
        for ft in rec.features:
            if ft.type != "CDS":
                continue
            table = int(ft.qualifiers.get("transl_table", ["1"])[0])
            protein = str(ft.extract(rec.seq).translate(table=table, to_stop=True))
            given = ft.qualifiers.get("translation", [None])[0]
            if given is not None and given != protein:
                raise SystemExit(f"{path.name} {rec.id}: translation differs from /translation")
            name = ft.qualifiers.get("gene", ft.qualifiers.get("product", ["cds"]))[0].replace(" ", "_")
            yield rec.id, f"{rec.id} {name} [translated CDS, {path.name}; {rec.description}]", protein


def fasta_proteins(path: Path, only_peptides: bool = False):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:
        text = handle.read()
    if only_peptides:  # GENSCAN report: the FASTA blocks after its header lines
        text = text[text.index(">"):]
    for rec in SeqIO.parse(__import__("io").StringIO(text), "fasta"):
        if only_peptides and "peptide" not in rec.id:
            continue
        # a report of a temporary file names it by its path: name it by the report instead
        rid = f"{path.stem}|{rec.id.split('|', 1)[1]}" if "/" in rec.id else rec.id
        yield rid, f"{rid} [{path.parent.name}/{path.name}] {rec.description}", str(rec.seq).rstrip("*")


def main(data: Path, out: Path) -> None:
    found = []
    for gb in sorted((data / "emboss-genbank").glob("*.gb")) + sorted((data / "emboss-genbank").glob("*.seq")):
        found += cds_proteins(gb)
    found += fasta_proteins(data / "wise-data" / "pep.fa")
    found += fasta_proteins(data / "wise-data" / "road.pep")
    found += fasta_proteins(data / "miniprot-test" / "DPP3-mm.pep.fa.gz")
    for report in ("genomic-seq.genscan", "sample.report", "test.genscan"):
        found += fasta_proteins(data / "genscan" / report, only_peptides=True)
    seen, db, queries = set(), [], []
    for rid, desc, protein in found:
        if protein in seen:
            continue
        seen.add(protein)
        (queries if rid in QUERIES else db).append((desc, protein))
    for name, records in (("db.fa", db), ("query.fa", queries)):
        with open(out / name, "w") as handle:
            for desc, protein in records:
                handle.write(f">{desc}\n" + "".join(protein[k:k + 60] + "\n" for k in range(0, len(protein), 60)))
    (out / "cases.tsv").write_text("case\tquery\tdb\nbundled\tquery.fa\tdb.fa\n")
    print(f"{len(db)} database proteins ({sum(len(p) for _, p in db)} residues), {len(queries)} queries")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
