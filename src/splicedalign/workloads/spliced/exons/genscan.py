"""GENSCAN reports (command-line and web-server layouts) as candidate exons.

Rows of the "Predicted genes/exons" table typed Init/Intr/Term/Sngl are exons; Prom and
PlyA rows are signals and are not. Rows of the ``-subopt`` section ("Suboptimal exons with
probability > p", ids ``S.nnn``) are exons too, marked ``set=suboptimal``. Minus-strand rows
(Begin > End) become forward-strand intervals with ``strand='-'``; both strands are returned
(see ``strand.on_strand``). A report that stops before its peptide section is truncated and
rejected, as is any row whose columns do not fit the GENSCAN layout.
"""

from __future__ import annotations

import re
from pathlib import Path

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import open_text
from splicedalign.workloads.spliced.records import Exon, exon_problem

EXON_TYPES = frozenset({"Init", "Intr", "Term", "Sngl"})
SIGNAL_TYPES = frozenset({"Prom", "PlyA"})
EXON_COLUMNS = 13  # Gn.Ex Type S Begin End Len Fr Ph I/Ac Do/T CodRg P Tscr
SIGNAL_COLUMNS = 7  # Gn.Ex Type S Begin End Len Tscr

_SEQUENCE = re.compile(r"^Sequence\s+(.*?)\s+:\s+(\d+)\s+bp\b")
_OPTIMAL_ID = re.compile(r"^\d+\.\d+$")
_SUBOPT_ID = re.compile(r"^S\.\d+$")


def _row(tokens: list[str], suboptimal: bool, source: str, where: str, m: int) -> Exon | None:
    rid, kind = tokens[0], tokens[1] if len(tokens) > 1 else ""
    if kind in SIGNAL_TYPES:
        expected = SIGNAL_COLUMNS
    elif kind in EXON_TYPES:
        expected = EXON_COLUMNS
    else:
        raise InputError(source, f"unknown GENSCAN feature type {kind!r} in row {rid}", where=where)
    if len(tokens) != expected:
        raise InputError(source, f"{kind} row has {len(tokens)} columns, expected {expected}"
                         " (truncated or damaged report?)", where=where)
    strand = tokens[2]
    try:
        begin, end, length = int(tokens[3]), int(tokens[4]), int(tokens[5])
    except ValueError:
        raise InputError(source, f"Begin/End/Len of row {rid} are not integers", where=where) from None
    if strand not in ("+", "-"):
        raise InputError(source, f"strand must be + or -, got {strand!r}", where=where)
    if (strand == "+") != (begin <= end) and begin != end:
        raise InputError(source, f"{strand} strand row with Begin={begin}, End={end}"
                         " (GENSCAN writes minus-strand rows with Begin > End)", where=where)
    first, last = min(begin, end), max(begin, end)
    if length != last - first + 1:
        raise InputError(source, f"Len={length} but Begin..End spans {last - first + 1} bp", where=where)
    if kind in SIGNAL_TYPES:
        return None
    problem = exon_problem(first, last, m)
    if problem:
        raise InputError(source, problem, where=where)
    try:
        probability, tscr = float(tokens[11]), float(tokens[12])
    except ValueError:
        raise InputError(source, f"P/Tscr of row {rid} are not numbers", where=where) from None
    return Exon(first, last, {
        "strand": strand, "source": "genscan", "type": kind, "id": rid,
        "set": "suboptimal" if suboptimal else "optimal", "score": probability, "tscr": tscr,
    })


def read_genscan(path: str | Path, m: int) -> list[Exon]:
    """Exons of a GENSCAN report on a base of length m (checked against the report's length)."""
    source = str(path)
    with open_text(path) as handle:
        lines = handle.read().splitlines()
    section, exons = "preamble", []
    for lineno, line in enumerate(lines, 1):
        where = f"line {lineno}"
        text = line.strip()
        if section == "preamble":
            seq = _SEQUENCE.match(text)
            if seq and int(seq.group(2)) != m:
                raise InputError(source, f"report is for a {seq.group(2)} bp sequence"
                                 f" ({seq.group(1)}), the base has {m} bp", where=where)
            if text.startswith("Predicted genes/exons"):
                section = "optimal"
            continue
        if text.startswith("Predicted peptide sequence"):
            section = "done"
            break
        if text.startswith("Suboptimal exons"):
            section = "suboptimal"
            continue
        if (not text or text.startswith(("Gn.Ex", "Exnum", "-----"))
                or text.startswith("NO EXONS FOUND")):
            continue
        tokens = text.split()
        id_pattern = _SUBOPT_ID if section == "suboptimal" else _OPTIMAL_ID
        if not id_pattern.match(tokens[0]):
            raise InputError(source, f"unexpected line in the {section} exon table: {text[:40]!r}",
                             where=where)
        exon = _row(tokens, section == "suboptimal", source, where, m)
        if exon is not None:
            exons.append(exon)
    if section == "preamble":
        raise InputError(source, "no 'Predicted genes/exons' table (not a GENSCAN report?)")
    if section != "done":
        raise InputError(source, "report ends inside the exon table, before 'Predicted peptide"
                         " sequence(s)' (truncated?)", where=f"line {len(lines)}")
    return exons
