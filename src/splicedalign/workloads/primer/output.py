"""Output formats of ``splicedalign primer``: JSON (the contract), TSV (one row per solution,
with the substring) and BED (the solutions as intervals on α's record)."""

from __future__ import annotations

import json

from splicedalign.workloads.primer.records import PrimerProblem, PrimerResult


def to_json(problem: PrimerProblem, result: PrimerResult) -> str:
    return json.dumps(result.as_dict()) + "\n"


def to_tsv(problem: PrimerProblem, result: PrimerResult) -> str:
    rows = ["r\te\tlength\tsubstring"]
    rows += [f"{r}\t{e}\t{e - r + 1}\t{problem.alpha[r - 1:e]}" for r, e in result.solutions]
    return "\n".join(rows) + "\n"


def to_bed(problem: PrimerProblem, result: PrimerResult) -> str:
    """BED6: 0-based half-open [r - 1, e) on α's record; name primer_r; score = k."""
    return "".join(f"{problem.alpha_name}\t{r - 1}\t{e}\tprimer_{r}\t{result.k}\t+\n" for r, e in result.solutions)


FORMATTERS = {"json": to_json, "tsv": to_tsv, "bed": to_bed}
