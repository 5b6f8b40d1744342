"""HomoloGene data file (``homologene.data``, build 68): groups of homologous genes.

Tab-separated, no header: HID, taxonomy ID, Gene ID, gene symbol, protein gi, protein
accession. A human gene's homologs are the other taxa's genes of its group.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import open_text

HUMAN_TAXON = 9606


@dataclass(frozen=True)
class Member:
    hid: int
    taxon: int
    gene_id: str
    symbol: str
    protein: str


def read_homologene(path: str | Path) -> list[Member]:
    source = str(path)
    members = []
    with open_text(path) as handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            cols = line.rstrip("\n\r").split("\t")
            if len(cols) != 6:
                raise InputError(source, f"{len(cols)} columns, homologene.data has 6", where=f"line {lineno}")
            try:
                hid, taxon = int(cols[0]), int(cols[1])
            except ValueError:
                raise InputError(source, "HID and taxonomy ID must be integers", where=f"line {lineno}") from None
            members.append(Member(hid, taxon, cols[2], cols[3], cols[5]))
    return members


def homologs(members: list[Member], gene: str, taxon: int = HUMAN_TAXON, limit: int = 5,
             source: str = "homologene.data") -> tuple[Member, list[Member]]:
    """The gene's entry (by Gene ID or symbol, in ``taxon``) and up to ``limit`` homologs of
    other taxa, one per taxon, in file order."""
    own = [m for m in members if m.taxon == taxon and gene in (m.gene_id, m.symbol)]
    if len(own) != 1:
        raise InputError(source, f"gene {gene!r} of taxon {taxon}: {len(own)} entries, expected 1")
    seen, out = {taxon}, list[Member]()
    for m in members:
        if m.hid == own[0].hid and m.taxon not in seen and len(out) < limit:
            seen.add(m.taxon)
            out.append(m)
    return own[0], out
