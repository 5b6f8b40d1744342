"""Output formats of ``splicedalign nw``: json (everything), tsv (one row per pair), sam and paf
(seq1 is the reference/target, seq2 the query, so 'D' = a letter of seq1 against a gap, as in
SAM). One pair or a batch: the answers in input order (json: one object, or an array of them
for ``--pairs``). In prefix and infix modes the letters of seq2 outside the alignment are free:
SAM soft-clips them, PAF gives the query (seq2) start and end, JSON ``start2`` / ``end2``.

The compiled CIGAR counter (``cigar.op_counts_many``, numba: every answer's CIGAR in one call) is
imported when a format first counts:
the command line imports this module to list the formats, and a fresh ``nw`` process imports
numba itself (core.jit.start, lean) before its first compiled call (nw.cli)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from splicedalign.core.errors import InputError
from splicedalign.workloads.nw.records import OP_LETTERS, Costs, Result, identity_of

TSV_COLUMNS = ("seq1", "seq2", "length1", "length2", "mode", "score", "cells", "solver", "algorithm", "seconds",
               "start1", "end1", "start2", "end2", "cigar", "identity")


@dataclass(frozen=True)
class Answer:
    """One pair's answer with what the formats name: ids, lengths, seq2's letters (SAM's SEQ:
    None where the format needs none)."""

    id1: str
    id2: str
    length1: int
    length2: int
    result: Result
    seq2: str | None = None

    @property
    def end2(self) -> int:
        return self.length2 if self.result.end2 is None else self.result.end2

    def region(self) -> dict[str, int]:
        """1-based inclusive coordinates of the aligned part of each sequence."""
        return {"start1": 1, "end1": self.length1, "start2": self.result.start2 + 1, "end2": self.end2}


def _record(answer: Answer, costs: Costs, mode: str, identity: float | None) -> dict:
    r = answer.result
    record = {"seq1": answer.id1, "seq2": answer.id2, "length1": answer.length1, "length2": answer.length2,
              "mode": mode, "costs": costs.as_dict(), "score": r.score, "cells": r.cells, "solver": r.solver,
              "algorithm": r.algorithm, "seconds": round(r.seconds, 6)}
    if r.cigar is not None:
        record["alignment"] = {**answer.region(), "cigar": r.cigar, "identity": round(identity or 0.0, 6)}
    return record


def as_json(answers: Sequence[Answer], costs: Costs, mode: str, batch: bool) -> str:
    records = [_record(a, costs, mode, identity) for a, identity in zip(answers, _identities(answers))]
    return json.dumps(records if batch else records[0], indent=2) + "\n"


def as_tsv(answers: Sequence[Answer], costs: Costs, mode: str, batch: bool) -> str:
    lines = ["\t".join(TSV_COLUMNS)]
    for a, share in zip(answers, _identities(answers)):
        r = a.result
        identity = "" if share is None else f"{share:.6f}"
        region = a.region() if r.cigar is not None else dict.fromkeys(("start1", "end1", "start2", "end2"), "")
        row = (a.id1, a.id2, a.length1, a.length2, mode, r.score, r.cells, r.solver, r.algorithm,
               f"{r.seconds:.6f}", region["start1"], region["end1"], region["start2"], region["end2"],
               r.cigar or "", identity)
        lines.append("\t".join(map(str, row)))
    return "\n".join(lines) + "\n"


def _needs_alignment(result: Result, fmt: str) -> str:
    if result.cigar is None:
        raise InputError("--format", f"{fmt} needs the alignment: drop --score-only")
    return result.cigar


def _counts(cigars: list[str]) -> list[list[int]]:
    """Each CIGAR's letters of '=', 'X', 'D', 'I' (the compiled ``op_counts_many``)."""
    from splicedalign.workloads.nw.cigar import op_counts_many

    return op_counts_many(cigars).tolist() if cigars else []


def _identities(answers: Sequence[Answer]) -> list[float | None]:
    """Result.identity of each answer with an alignment (None for the others)."""
    rows = [k for k, a in enumerate(answers) if a.result.cigar is not None]
    out: list[float | None] = [None] * len(answers)
    for k, counts in zip(rows, _counts([answers[k].result.cigar or "" for k in rows])):
        out[k] = identity_of(dict(zip(OP_LETTERS, counts)))
    return out


def as_sam(answers: Sequence[Answer], costs: Costs, mode: str, batch: bool) -> str:
    references: dict[str, int] = {}
    for a in answers:
        if references.setdefault(a.id1, a.length1) != a.length1:
            raise InputError(a.id1, f"two seq1 records named {a.id1!r} of different lengths: SAM needs unique "
                                    "reference names")
    header = ["@HD\tVN:1.6"] + [f"@SQ\tSN:{name}\tLN:{length}" for name, length in references.items()]
    header.append("@PG\tID:splicedalign\tPN:splicedalign nw")
    lines = []
    cigars = [_needs_alignment(a.result, "sam") for a in answers]
    for a, cigar, (_, x, d, i) in zip(answers, cigars, _counts(cigars)):
        clip_start, clip_end = a.result.start2, a.length2 - a.end2
        full = (f"{clip_start}S" if clip_start else "") + cigar + (f"{clip_end}S" if clip_end else "")
        fields = (a.id2, 0, a.id1, 1, 255, full or "*", "*", 0, 0, a.seq2 or "*", "*",
                  f"NM:i:{x + d + i}", f"XC:i:{a.result.score}")
        lines.append("\t".join(map(str, fields)))
    return "\n".join(header + lines) + "\n"


def as_paf(answers: Sequence[Answer], costs: Costs, mode: str, batch: bool) -> str:
    lines = []
    cigars = [_needs_alignment(a.result, "paf") for a in answers]
    for a, cigar, (same, x, d, i) in zip(answers, cigars, _counts(cigars)):
        fields = (a.id2, a.length2, a.result.start2, a.end2, "+", a.id1, a.length1, 0, a.length1, same,
                  same + x + d + i, 255, f"NM:i:{x + d + i}", f"XC:i:{a.result.score}", f"cg:Z:{cigar}")
        lines.append("\t".join(map(str, fields)))
    return "\n".join(lines) + "\n"


FORMATTERS: dict[str, Callable[[Sequence[Answer], Costs, str, bool], str]] = {
    "json": as_json, "tsv": as_tsv, "sam": as_sam, "paf": as_paf}
