"""GFF3 / GTF (AUGUSTUS included, with sampled alternatives) as candidate exons.

Coding exons are the ``CDS`` features; a file without CDS features falls back to ``exon``
features (transcript models from other tools). AUGUSTUS with ``--alternatives-from-sampling``
lists the same exon once per transcript that uses it: each distinct (first, last, strand) is
one candidate, with its highest score (the posterior probability, for AUGUSTUS) and the
number of transcripts that list it. Both strands are returned (see ``strand.on_strand``).
The file must describe one sequence (the base); everything after ``##FASTA`` is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import open_text
from splicedalign.workloads.spliced.exons.tsv import shown
from splicedalign.workloads.spliced.records import Exon, exon_problem

CODING, FALLBACK = "CDS", "exon"


@dataclass(frozen=True)
class Feature:
    seqid: str
    source: str
    kind: str
    first: int
    last: int
    score: float | None
    strand: str
    line: int


def read_features(path: str | Path) -> list[Feature]:
    """Every feature line of a GFF3/GTF file, checked for layout (9 tab-separated columns)."""
    source = str(path)
    features = []
    with open_text(path) as handle:
        for lineno, line in enumerate(handle, 1):
            line = line.rstrip("\n\r")
            if line.startswith("##FASTA"):
                break
            if not line.strip() or line.startswith("#"):
                continue
            where = f"line {lineno}"
            cols = line.split("\t")
            if len(cols) != 9:
                raise InputError(source, f"{len(cols)} tab-separated columns, GFF/GTF has 9", where=where)
            try:
                first, last = int(cols[3]), int(cols[4])
            except ValueError:
                raise InputError(source, f"start/end must be integers, got {shown(cols[3])}, {shown(cols[4])}",
                                 where=where) from None
            try:
                score = None if cols[5] == "." else float(cols[5])
            except ValueError:
                raise InputError(source, f"score must be a number or '.', got {shown(cols[5])}", where=where) from None
            if cols[6] not in ("+", "-", ".", "?"):
                raise InputError(source, f"strand must be +, -, . or ?, got {shown(cols[6])}", where=where)
            features.append(Feature(cols[0], cols[1], cols[2], first, last, score, cols[6], lineno))
    return features


def read_gff(path: str | Path, m: int) -> list[Exon]:
    """Distinct coding exons of a GFF3/GTF file on a base of length m, in file order."""
    source = str(path)
    features = read_features(path)
    seqids = list(dict.fromkeys(f.seqid for f in features))
    if len(seqids) > 1:
        raise InputError(source, f"features on {len(seqids)} sequences ({', '.join(seqids[:3])}...);"
                         " a base is one sequence: split the file")
    kind = CODING if any(f.kind == CODING for f in features) else FALLBACK
    merged: dict[tuple[int, int, str], dict] = {}
    for f in features:
        if f.kind != kind:
            continue
        problem = exon_problem(f.first, f.last, m)
        if problem:
            raise InputError(source, problem, where=f"line {f.line}")
        key = (f.first, f.last, f.strand)
        if key not in merged:
            merged[key] = {"strand": f.strand, "source": f.source, "score": f.score,
                           "transcripts": 0}
        entry = merged[key]
        entry["transcripts"] += 1
        if f.score is not None and (entry["score"] is None or f.score > entry["score"]):
            entry["score"] = f.score
    return [Exon(first, last, entry) for (first, last, _), entry in merged.items()]
