"""Result formats: JSON (everything), TSV (one line per chain exon), GFF3 (the gene model)."""

from __future__ import annotations

import json
from typing import Any

from splicedalign.workloads.spliced.records import Result, Scoring, TestCase
from splicedalign.workloads.spliced.estimate import case_stats


def result_record(case: TestCase, result: Result, scoring: Scoring) -> dict[str, Any]:
    """Everything known about one solve, JSON-ready (the CLI's and the pipeline's record)."""
    stats = case_stats(case.n, case.first_sorted, case.last_sorted)
    rec: dict[str, Any] = {
        "case": case.name,
        "base_id": case.base_id,
        "target_id": case.target_id,
        "solver": result.solver,
        "score": result.score,
        "chain": None if result.chain is None else [[case.exons[k].first, case.exons[k].last] for k in result.chain],
        "chain_index": None if result.chain is None else list(result.chain),
        "cells": result.cells,
        "seconds": result.seconds,
        "mcups": result.mcups,
        "m": case.m,
        "n": case.n,
        **stats,
        "scoring": scoring.as_dict(),
    }
    if result.alignment is not None:
        rec["alignment"] = [
            {"exon": a.index, "first": a.first, "last": a.last, "target_start": a.target_start,
             "target_end": a.target_end, "cigar": a.cigar}
            for a in result.alignment
        ]
    rec.update({k: v for k, v in result.extra.items()})
    return rec


def to_json(case: TestCase, result: Result, scoring: Scoring) -> str:
    return json.dumps(result_record(case, result, scoring), indent=2) + "\n"


TSV_COLUMNS = ("case", "solver", "score", "rank", "exon", "first", "last", "target_start", "target_end", "cigar")


def to_tsv(case: TestCase, result: Result, scoring: Scoring) -> str:
    """One row per exon of the chain; with --score-only, one row with the score alone."""
    lines = ["\t".join(TSV_COLUMNS)]
    if result.alignment is None:
        lines.append("\t".join([case.name, result.solver, str(result.score)] + [""] * 7))
    else:
        for rank, a in enumerate(result.alignment, 1):
            lines.append("\t".join(map(str, (case.name, result.solver, result.score, rank, a.index + 1,
                                              a.first, a.last, a.target_start, a.target_end, a.cigar))))
    return "\n".join(lines) + "\n"


def _gff_escape(text: str) -> str:
    return "".join(c if c.isalnum() or c in "._-:~" else f"%{ord(c):02X}" for c in text)


def to_gff3(case: TestCase, result: Result, scoring: Scoring) -> str:
    """The predicted gene model on the base sequence: gene, mRNA and one exon per chain exon."""
    if result.chain is None:
        raise ValueError("GFF3 needs the chain: run without --score-only")
    seqid = _gff_escape(case.base_id)
    gid = _gff_escape(case.name)
    firsts = [case.exons[k].first for k in result.chain]
    lasts = [case.exons[k].last for k in result.chain]
    src = f"splicedalign-{result.solver}"
    target = _gff_escape(case.target_id)
    out = ["##gff-version 3", f"##sequence-region {seqid} 1 {case.m}"]
    col = lambda typ, a, b, attrs: "\t".join((seqid, src, typ, str(a), str(b), str(result.score), "+", ".", attrs))
    out.append(col("gene", min(firsts), max(lasts), f"ID=gene:{gid};Name={gid}"))
    out.append(col("mRNA", min(firsts), max(lasts), f"ID=mRNA:{gid};Parent=gene:{gid};Target={target} 1 {case.n}"))
    for rank, k in enumerate(result.chain, 1):
        e = case.exons[k]
        attrs = f"ID=exon:{gid}.{rank};Parent=mRNA:{gid};candidate={k + 1}"
        if result.alignment is not None:
            a = result.alignment[rank - 1]
            attrs += f";Target={target} {a.target_start} {max(a.target_start, a.target_end)};cigar={a.cigar}"
        out.append(col("exon", e.first, e.last, attrs))
    return "\n".join(out) + "\n"


FORMATTERS = {"json": to_json, "tsv": to_tsv, "gff3": to_gff3}
