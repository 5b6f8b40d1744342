"""Formatting search results: JSON (one object per query, a list for several) and TSV."""

from __future__ import annotations

import json
from typing import Sequence

from splicedalign.workloads.sw.records import SearchResult


def result_json(result: SearchResult, top: int | None = None) -> dict:
    return {
        "query": result.query,
        "query_length": result.query_length,
        "hits": [{"id": h.id, "length": h.length, "score": h.score} for h in result.ranked(top)],
        "cells": result.cells,
        "solver": result.solver,
        "seconds": result.seconds,
    }


def to_json(results: Sequence[SearchResult], top: int | None = None) -> str:
    blocks = [result_json(r, top) for r in results]
    return json.dumps(blocks[0] if len(blocks) == 1 else blocks, indent=1) + "\n"


def to_tsv(results: Sequence[SearchResult], top: int | None = None) -> str:
    lines = ["query\tid\tlength\tscore"]
    for r in results:
        lines += [f"{r.query}\t{h.id}\t{h.length}\t{h.score}" for h in r.ranked(top)]
    return "\n".join(lines) + "\n"


FORMATTERS = {"json": to_json, "tsv": to_tsv}
