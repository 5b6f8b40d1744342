"""Output formats of ``splicedalign nw``: json (everything), tsv (one row), sam and paf (seq1 is
the reference/target, seq2 the query, so 'D' = a letter of seq1 against a gap, as in SAM)."""

from __future__ import annotations

import json
from typing import Callable

from splicedalign.core.errors import InputError
from splicedalign.workloads.nw.records import Costs, Result, cigar_counts

TSV_COLUMNS = ("seq1", "seq2", "length1", "length2", "score", "cells", "solver", "seconds", "cigar", "identity")


def as_json(id1: str, id2: str, seq2: str, n: int, result: Result, costs: Costs) -> str:
    record = {"seq1": id1, "seq2": id2, "length1": n, "length2": len(seq2),
              "costs": {"match": costs.match, "mismatch": costs.mismatch, "indel": costs.indel},
              "score": result.score, "cells": result.cells, "solver": result.solver,
              "seconds": round(result.seconds, 6)}
    if result.cigar is not None:
        record["alignment"] = {"cigar": result.cigar, "identity": round(result.identity or 0.0, 6)}
    return json.dumps(record, indent=2) + "\n"


def as_tsv(id1: str, id2: str, seq2: str, n: int, result: Result, costs: Costs) -> str:
    identity = "" if result.identity is None else f"{result.identity:.6f}"
    row = (id1, id2, n, len(seq2), result.score, result.cells, result.solver, f"{result.seconds:.6f}",
           result.cigar or "", identity)
    return "\t".join(TSV_COLUMNS) + "\n" + "\t".join(map(str, row)) + "\n"


def _needs_alignment(result: Result, fmt: str) -> str:
    if result.cigar is None:
        raise InputError("--format", f"{fmt} needs the alignment: drop --score-only")
    return result.cigar


def as_sam(id1: str, id2: str, seq2: str, n: int, result: Result, costs: Costs) -> str:
    cigar = _needs_alignment(result, "sam")
    counts = cigar_counts(cigar)
    edits = counts["X"] + counts["D"] + counts["I"]
    header = f"@HD\tVN:1.6\n@SQ\tSN:{id1}\tLN:{n}\n@PG\tID:splicedalign\tPN:splicedalign nw\n"
    fields = (id2, 0, id1, 1, 255, cigar or "*", "*", 0, 0, seq2, "*", f"NM:i:{edits}", f"XC:i:{result.score}")
    return header + "\t".join(map(str, fields)) + "\n"


def as_paf(id1: str, id2: str, seq2: str, n: int, result: Result, costs: Costs) -> str:
    cigar = _needs_alignment(result, "paf")
    counts = cigar_counts(cigar)
    columns = sum(counts.values())
    edits = counts["X"] + counts["D"] + counts["I"]
    fields = (id2, len(seq2), 0, len(seq2), "+", id1, n, 0, n, counts["="], columns, 255,
              f"NM:i:{edits}", f"XC:i:{result.score}", f"cg:Z:{cigar}")
    return "\t".join(map(str, fields)) + "\n"


FORMATTERS: dict[str, Callable[[str, str, str, int, Result, Costs], str]] = {
    "json": as_json, "tsv": as_tsv, "sam": as_sam, "paf": as_paf}
