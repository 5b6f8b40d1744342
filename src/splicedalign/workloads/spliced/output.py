"""Result formats: JSON (everything), TSV (one line per chain exon), GFF3 (the gene model).

Every format takes a list of solved cases and writes them into one output (JSON: an object
for one case, an array for several). Coordinates are always on the forward strand of the
base as given, with the strand the model lies on; a minus-strand chain is listed in
transcript order (descending coordinates), its CIGARs read in that order too. Exon numbers
(``chain_index``, TSV ``exon``) are rows of the exon source (0-based in JSON, 1-based in TSV,
GFF3 ``candidate``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from splicedalign.workloads.spliced.estimate import case_stats_of
from splicedalign.workloads.spliced.exons.strand import flip_bounds
from splicedalign.workloads.spliced.records import (
    OP_DEL,
    OP_INS,
    OP_MATCH,
    OP_MISMATCH,
    ExonAlignment,
    Result,
    Scoring,
    TestCase,
)


@dataclass(frozen=True)
class Solved:
    """One case's reported result, with the scores of every strand solved for it."""

    case: TestCase
    result: Result
    strand_scores: Mapping[str, int] = field(default_factory=dict)


def _alignment(case: TestCase, a: ExonAlignment) -> dict[str, Any]:
    first, last = case.forward_interval(a.first, a.last)
    return {"exon": case.input_index(a.index), "first": first, "last": last,
            "target_start": a.target_start, "target_end": a.target_end, "cigar": a.cigar}


def result_record(case: TestCase, result: Result, scoring: Scoring) -> dict[str, Any]:
    """Everything known about one solve, JSON-ready (the CLI's and the pipeline's record)."""
    stats = case_stats_of(case)
    chain = None if result.chain is None else [
        list(case.forward_interval(case.exons[k].first, case.exons[k].last)) for k in result.chain]
    rec: dict[str, Any] = {
        "case": case.name,
        "base_id": case.base_id,
        "target_id": case.target_id,
        "solver": result.solver,
        "score": result.score,
        "strand": case.strand,
        "chain": chain,
        "chain_index": None if result.chain is None else [case.input_index(k) for k in result.chain],
        "cells": result.cells,
        "seconds": result.seconds,
        "mcups": result.mcups,
        "m": case.m,
        "n": case.n,
        **stats,
        "scoring": scoring.as_dict(),
    }
    if result.alignment is not None:
        rec["alignment"] = [_alignment(case, a) for a in result.alignment]
    rec.update({k: v for k, v in result.extra.items()})
    return rec


def to_json(solved: Sequence[Solved], scoring: Scoring) -> str:
    """One case: an indented object; several: an array with one case per line (the C encoder:
    indenting thousands of records runs the pure-Python one, ~0.5 s for a paper-shaped set)."""
    recs = [{**result_record(s.case, s.result, scoring),
             **({"strand_scores": dict(s.strand_scores)} if s.strand_scores else {})} for s in solved]
    if len(recs) == 1:
        return json.dumps(recs[0], indent=2) + "\n"
    return "[\n" + ",\n".join(map(json.dumps, recs)) + "\n]\n"


TSV_COLUMNS = ("case", "solver", "score", "strand", "rank", "exon", "first", "last",
               "target_start", "target_end", "cigar")


def to_tsv(solved: Sequence[Solved], scoring: Scoring) -> str:
    """One row per exon of each chain; with --score-only, one row per case with the score."""
    lines = ["\t".join(TSV_COLUMNS)]
    for s in solved:
        case, result = s.case, s.result
        head = [case.name, result.solver, result.score, case.strand]
        if result.alignment is None:
            lines.append("\t".join(map(str, head + [""] * 7)))
            continue
        for rank, a in enumerate(result.alignment, 1):
            row = _alignment(case, a)
            lines.append("\t".join(map(str, head + [rank, row["exon"] + 1, row["first"], row["last"],
                                                    a.target_start, a.target_end, a.cigar])))
    return "\n".join(lines) + "\n"


# GFF3 (https://github.com/The-Sequence-Ontology/Specifications/blob/master/gff3.md):
# seqid may hold [a-zA-Z0-9.:^*$@!+_?-|] unescaped; column 9 values must escape ; = & , and
# tab, newline, carriage return, control characters and % itself.
_SEQID_ESCAPED = re.compile(r"[^a-zA-Z0-9.:^*$@!+_?|-]")
_ATTR_ESCAPED = re.compile(r"[;=&,%\x00-\x1f\x7f]")  # ; = & , % and control characters (tab, CR, LF)


def _percent(match: re.Match) -> str:
    return f"%{ord(match.group()):02X}"


def gff_seqid(text: str) -> str:
    return _SEQID_ESCAPED.sub(_percent, text)


def gff_value(text: str) -> str:
    return _ATTR_ESCAPED.sub(_percent, text)


_OP_TO_GAP = bytes.maketrans(bytes((OP_MATCH, OP_MISMATCH, OP_DEL, OP_INS)), b"MMDI")
_GAP_RUNS = re.compile("M+|D+|I+")


def gff_gap(ops: bytes) -> str:
    """The GFF3 ``Gap`` attribute of an exon's alignment ops: match and mismatch runs are M
    (aligned), D a base letter against a gap (gap in the target), I a target letter against a
    gap. Built from the op codes in one pass (not from the CIGAR, which splits M runs)."""
    return " ".join([f"{run[0]}{len(run)}" for run in _GAP_RUNS.findall(ops.translate(_OP_TO_GAP).decode("ascii"))])


def _gff3_features(case: TestCase, result: Result) -> list[str]:
    """A case's lines: each line's fixed columns made once per case (the paper-shaped set's
    12,500 exon lines took 0.15 s on the H100 host with a join per line)."""
    if result.chain is None:
        raise ValueError("GFF3 needs the chain: run without --score-only")
    gid = gff_value(case.name)
    # Target's id is separated from its coordinates by spaces, so spaces in it are escaped too
    target = gff_value(case.target_id).replace(" ", "%20")
    head = f"{gff_seqid(case.base_id)}\t{gff_value(f'splicedalign-{result.solver}')}\t"
    tail = f"\t{result.score}\t{case.strand}\t.\t"
    chain = list(result.chain)
    bounds = case.bounds[chain]  # (first, last) of each chain exon on the case's strand
    spans = bounds if case.strand == "+" else flip_bounds(bounds, case.m)  # forward_interval of each
    lo, hi = int(spans[:, 0].min()), int(spans[:, 1].max())
    index = case.meta.get("input_index")
    candidates = (np.asarray(chain) if index is None else np.asarray(index)[chain]) + 1  # input_index + 1
    # the target span the chain aligns: 1..n, or less with free target ends
    t_lo, t_hi = ((result.alignment[0].target_start, result.alignment[-1].target_end) if result.alignment
                  else (1, case.n))
    mrna = f"ID=mRNA:{gid};Parent=gene:{gid}" + (f";Target={target} {t_lo} {t_hi} +" if t_hi >= t_lo else "")
    out = [f"{head}gene\t{lo}\t{hi}{tail}ID=gene:{gid};Name={gid}", f"{head}mRNA\t{lo}\t{hi}{tail}{mrna}"]
    exon = f"{tail}ID=exon:{gid}."
    parent = f";Parent=mRNA:{gid};candidate="
    lines = [f"{head}exon\t{first}\t{last}{exon}{rank}{parent}{c}"
             for rank, ((first, last), c) in enumerate(zip(spans.tolist(), candidates.tolist()), 1)]
    if result.alignment is None:
        return out + lines
    for line, a in zip(lines, result.alignment):
        span = f";Target={target} {a.target_start} {a.target_end} +" if a.target_end >= a.target_start else ""
        out.append(f"{line}{span};Gap={gff_gap(a.ops)}")
    return out


def to_gff3(solved: Sequence[Solved], scoring: Scoring) -> str:
    """The predicted gene model of each case on its base: gene, mRNA, one exon per chain exon,
    each exon with ``Target`` (its target span) and ``Gap`` (its alignment, read in the
    direction of transcription, i.e. from the end coordinate down on a '-' feature)."""
    regions = {s.case.base_id: s.case.m for s in solved}
    out = ["##gff-version 3", *(f"##sequence-region {gff_seqid(b)} 1 {m}" for b, m in regions.items())]
    for s in solved:
        out += _gff3_features(s.case, s.result)
    return "\n".join(out) + "\n"


FORMATTERS = {"json": to_json, "tsv": to_tsv, "gff3": to_gff3}
