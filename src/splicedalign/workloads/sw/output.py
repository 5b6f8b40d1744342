"""Formatting search results: JSON (one object per query, a list for several), TSV (one line
per hit, with a header) and BLAST's tabular ``-outfmt 6`` (12 columns, no header)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from splicedalign.workloads.sw.records import Hit, SearchResult

HIT_FIELDS = ("id", "length", "score", "evalue", "bitscore", "qstart", "qend", "sstart", "send", "cigar")


def hit_fields(h: Hit) -> dict:
    a = h.alignment
    return {"id": h.id, "length": h.length, "score": h.score, "evalue": h.evalue, "bitscore": round(h.bitscore, 2),
            "qstart": a.qstart if a else None, "qend": a.qend if a else None, "sstart": a.sstart if a else None,
            "send": a.send if a else None, "cigar": a.cigar if a else None}


def result_json(result: SearchResult) -> dict:
    return {
        "query": result.query,
        "query_length": result.query_length,
        "hits": [hit_fields(h) for h in result.hits],
        "cells": result.cells,
        "solver": result.solver,
        "seconds": result.seconds,
    }


def to_json(results: Sequence[SearchResult]) -> str:
    blocks = [result_json(r) for r in results]
    return json.dumps(blocks[0] if len(blocks) == 1 else blocks, indent=1) + "\n"


def _cell(v) -> str:
    if v is None:
        return ""
    return f"{v:.3g}" if isinstance(v, float) else str(v)


def to_tsv(results: Sequence[SearchResult]) -> str:
    lines = ["query\t" + "\t".join(HIT_FIELDS)]
    for r in results:
        lines += [r.query + "\t" + "\t".join(_cell(v) for v in hit_fields(h).values()) for h in r.hits]
    return "\n".join(lines) + "\n"


def blast_evalue(e: float) -> str:
    """BLAST's tabular style: 0.0 below 1e-180, two significant digits in exponent form below
    0.001, else up to three significant digits."""
    if e < 1e-180:
        return "0.0"
    return f"{e:.2e}" if e < 1e-3 else f"{e:.3g}"


def to_blast_tab(results: Sequence[SearchResult]) -> str:
    """qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore."""
    lines = []
    for r in results:
        for h in r.hits:
            a = h.alignment
            if a is None:
                raise ValueError("blast-tab needs alignments")
            cols = a.columns
            pident = 100.0 * a.count("=") / cols if cols else 0.0
            lines.append("\t".join([r.query, h.id, f"{pident:.3f}", str(cols), str(a.count("X")), str(a.gap_opens),
                                    str(a.qstart), str(a.qend), str(a.sstart), str(a.send), blast_evalue(h.evalue),
                                    f"{h.bitscore:.1f}"]))
    return "\n".join(lines) + ("\n" if lines else "")


FORMATTERS = {"json": to_json, "tsv": to_tsv, "blast-tab": to_blast_tab}
