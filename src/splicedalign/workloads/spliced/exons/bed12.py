"""BED12 transcripts as exons: each block is an exon (``bed12``), or only the coding part of
each block, between thickStart and thickEnd (``bed12-cds``). BED is 0-based half-open; the
exons are 1-based inclusive. Exons shared by several transcripts are listed once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import open_text
from splicedalign.workloads.spliced.exons.tsv import shown
from splicedalign.workloads.spliced.records import Exon, exon_problem


@dataclass(frozen=True)
class BedTranscript:
    chrom: str
    name: str
    strand: str
    blocks: tuple[tuple[int, int], ...]  # 1-based inclusive, ascending
    thick: tuple[int, int] | None  # 1-based inclusive coding span, None when non-coding
    line: int

    def coding_blocks(self) -> tuple[tuple[int, int], ...]:
        if self.thick is None:
            return ()
        lo, hi = self.thick
        return tuple((max(f, lo), min(l, hi)) for f, l in self.blocks if f <= hi and l >= lo)


def _ints(text: str, name: str, source: str, where: str) -> list[int]:
    try:
        return [int(v) for v in text.rstrip(",").split(",")]
    except ValueError:
        raise InputError(source, f"{name} must be comma-separated integers, got {shown(text)}", where=where) from None


def read_bed12_transcripts(path: str | Path) -> list[BedTranscript]:
    source = str(path)
    out = []
    with open_text(path) as handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip() or line.startswith(("#", "track", "browser")):
                continue
            where = f"line {lineno}"
            cols = line.rstrip("\n\r").split("\t")
            if len(cols) < 12:
                raise InputError(source, f"{len(cols)} columns, BED12 has 12", where=where)
            start, end, thick_start, thick_end = (_ints(cols[i], name, source, where)[0] for i, name in
                                                  ((1, "chromStart"), (2, "chromEnd"),
                                                   (6, "thickStart"), (7, "thickEnd")))
            count = _ints(cols[9], "blockCount", source, where)[0]
            sizes = _ints(cols[10], "blockSizes", source, where)
            starts = _ints(cols[11], "blockStarts", source, where)
            if not (len(sizes) == len(starts) == count):
                raise InputError(source, f"blockCount {count} but {len(sizes)} sizes and"
                                 f" {len(starts)} starts", where=where)
            blocks = tuple((start + s + 1, start + s + z) for s, z in zip(starts, sizes))
            if any(f > l for f, l in blocks) or blocks[-1][1] != end or blocks[0][0] != start + 1:
                raise InputError(source, "blocks do not tile chromStart..chromEnd", where=where)
            thick = (thick_start + 1, thick_end) if thick_end > thick_start else None
            out.append(BedTranscript(cols[0], cols[3], cols[5], blocks, thick, lineno))
    return out


def _exons(path: str | Path, m: int, coding: bool) -> list[Exon]:
    source = str(path)
    seen: dict[tuple[int, int, str], Exon] = {}
    for t in read_bed12_transcripts(path):
        for first, last in (t.coding_blocks() if coding else t.blocks):
            problem = exon_problem(first, last, m)
            if problem:
                raise InputError(source, problem, where=f"line {t.line}")
            seen.setdefault((first, last, t.strand),
                            Exon(first, last, {"strand": t.strand, "source": "bed12", "name": t.name}))
    return list(seen.values())


def read_bed12(path: str | Path, m: int) -> list[Exon]:
    return _exons(path, m, coding=False)


def read_bed12_cds(path: str | Path, m: int) -> list[Exon]:
    return _exons(path, m, coding=True)
