"""CUDASW++ 4.0 as a side-by-side peer (benchmarks and device runs only): its ``makedb`` and
``align`` programs, built on the GPU machine from its public source with
``scripts/cudasw4_build.sh``, run on the same database and queries; its per-query scan times
and top hits parsed from its output.

Why its reported top scores differ from ours (its source, github asbschmidt/CUDASW4, and
the device run logged in docs/experiments/sw-gpu.md): (1) its ``align`` parses ``--gop``/``--gex`` and
prints them, but ``main.cu`` never passes them to the search (``CudaSW4::setGapOpenScore`` is
never called), so every search runs its built-in -11/-1, and its gaps cost ``|gop| + (L-1) |gex|``
(kernels and its host reference ``affine_local_DP_host_protein_blosum62_converted``): a gap of
length L costs 11 + (L-1), i.e. BLAST's 10/1. On the device its top three scores of four
queries equal exactly our BLOSUM62 10/1 scores of the same database sequences (ours at 11/1
are lower). Speed does not depend on the gap values. (2) Its default build scores with
21-letter matrices (``BLOSUM62_20``): the 20 amino acids, and every other letter (B, Z, X, U,
O, *, and lower case) as one code scoring -4 against everything, itself included (BLOSUM62 has
X/X -1, B/D 4, ...). (3) Its matrices are BLOSUM45/50/62/80 only. On upper-case 20-letter data
its scores are ours at open - 1 (BLAST convention) with the same extension.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from splicedalign.workloads.sw.records import Scoring

QUERY_LINE = re.compile(r"Processing query (\d+) \.\.\. Done\. Scan time: ([0-9.eE+-]+) s, ([0-9.eE+-]+) GCUPS")
TOTAL_LINE = re.compile(r"Total time: ([0-9.eE+-]+) s, ([0-9.eE+-]+) GCUPS")


def gap_arguments(scoring: Scoring) -> list[str]:
    """Our BLAST-convention costs as CUDASW++'s: first gap letter -(o + e), each further -e
    (what its options mean; its align ignores them, see above)."""
    if scoring.matrix not in ("blosum45", "blosum50", "blosum62", "blosum80"):
        raise ValueError(f"CUDASW++ 4.0 has no {scoring.matrix}")
    return ["--mat", scoring.matrix, "--gop", str(-scoring.first_gap), "--gex", str(-scoring.gap_extend)]


@dataclass(frozen=True)
class Run:
    query_seconds: list[float]  # per query, its scan time
    query_gcups: list[float]
    total_seconds: float
    total_gcups: float
    top: dict[int, list[tuple[int, str]]]  # query number -> its reported (score, reference header), best first
    wall_seconds: float
    log: str


def makedb(build: Path, fasta: Path, prefix: Path) -> None:
    prefix.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(build / "makedb"), str(fasta), str(prefix)], check=True, capture_output=True, text=True)


def align(build: Path, queries: Path, prefix: Path, scoring: Scoring, top: int, out_tsv: Path,
          extra: tuple[str, ...] = ("--dpx", "--uploadFull"), gaps: bool = True) -> Run:
    """Its search; ``gaps`` False leaves its own default gap scores (for the comparison of
    conventions)."""
    import time

    cmd = [str(build / "align"), "--query", str(queries), "--db", str(prefix), "--top", str(top), "--verbose",
           "--tsv", "--of", str(out_tsv), *(gap_arguments(scoring) if gaps else ["--mat", scoring.matrix]), *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    per = sorted((int(n), float(s), float(g)) for n, s, g in QUERY_LINE.findall(proc.stdout))
    total = TOTAL_LINE.findall(proc.stdout)
    tops: dict[int, list[tuple[int, str]]] = {}
    for line in out_tsv.read_text().splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) >= 7 and cols[0].lstrip("-").isdigit():
            tops.setdefault(int(cols[0]), []).append((int(cols[4]), cols[6].split()[0] if cols[6].split() else ""))
    return Run([s for _, s, _ in per], [g for _, _, g in per], float(total[-1][0]) if total else float("nan"),
               float(total[-1][1]) if total else float("nan"), tops, wall, proc.stdout[-4000:])
