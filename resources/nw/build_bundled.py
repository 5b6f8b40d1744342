"""Rebuild the bundled nw pairs (resources/nw/pairs/*.fa + pairs.tsv) from ../shared/data.

Each pair is one FASTA file of two records (seq1 = rows, seq2 = columns), the shape
`splicedalign nw --pair` reads. Sequences are copied verbatim (upper-cased) from the shared
files named in README.md; run from the repository root:  python resources/nw/build_bundled.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from Bio import SeqIO

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[2] / "shared" / "data"

# case: (seq1 file, seq2 file, description); files are GenBank (.gb) or FASTA
PAIRS = {
    "rho_xl_rn": ("emboss-genbank/XELRHODOP.gb", "emboss-genbank/Z46957.gb",
                  "rhodopsin mRNA: Xenopus laevis L07770 vs rat Z46957 (cross-species)"),
    "rho_rn_octopus": ("emboss-genbank/Z46957.gb", "emboss-genbank/X07797.gb",
                       "rhodopsin mRNA: rat Z46957 vs octopus X07797 (distant homologs)"),
    "fau_hs_mrna_gene": ("emboss-genbank/X65923.gb", "emboss-genbank/X65921.gb",
                         "human FAU mRNA X65923 vs its gene X65921 (introns as gaps)"),
    "srm_mm_mrna_gene": ("bioperl-run/exonerate_cdna.fa", "bioperl-run/exonerate_genomic.fa",
                         "mouse spermidine synthase mRNA MUSSPSYN vs its chr4 slice"),
    "il10_mm_hs": ("peer-outputs/inputs/mm_il10.fa", "peer-outputs/inputs/hs_il10_gene1k.fa",
                   "mouse Il10 mRNA NM_010548.1 vs human IL10 gene +-1 kb (cross-species)"),
    "rho_xl_mrna_gene": ("emboss-genbank/XELRHODOP.gb", "peer-outputs/inputs/xl_rho_gene.fa",
                         "Xenopus rhodopsin mRNA L07770 vs its gene XLU23808"),
}


def read_one(path: Path):
    fmt = "genbank" if path.suffix == ".gb" else "fasta"
    records = list(SeqIO.parse(path, fmt))
    if len(records) != 1:
        sys.exit(f"{path}: {len(records)} records, expected one")
    return records[0]


def main() -> None:
    rows = ["case\tfasta\tlength1\tlength2\tseq1\tseq2\tdescription"]
    for case, (f1, f2, description) in PAIRS.items():
        r1, r2 = read_one(DATA / f1), read_one(DATA / f2)
        s1, s2 = str(r1.seq).upper(), str(r2.seq).upper()
        out = HERE / "pairs" / f"{case}.fa"
        with open(out, "w") as handle:
            for rid, seq in ((r1.id, s1), (r2.id, s2)):
                handle.write(f">{rid}\n" + "\n".join(seq[i:i + 70] for i in range(0, len(seq), 70)) + "\n")
        rows.append(f"{case}\tpairs/{case}.fa\t{len(s1)}\t{len(s2)}\t{f1}\t{f2}\t{description}")
    (HERE / "pairs.tsv").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
