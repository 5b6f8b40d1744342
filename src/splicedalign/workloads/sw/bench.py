"""Timing of solvers on cases for the benchmark script and the pipeline: median of repeats
after warm-up (several solvers' repeats interleaved round by round, so load on a shared
machine hits each alike), wall and process CPU time, GCUPS, speedup vs ``sequential``; solvers
must agree exactly on each case; a solver that cannot run here is a row marked "n/a" with the
reason."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.timing import gcups, time_interleaved
from splicedalign.workloads.sw.records import Database, Query, Scoring, cells
from splicedalign.workloads.sw.solvers import SOLVERS

# paper 003 Table III, ms: CUDASW++ kernel 1, kernel 2, one CPU thread, the paper's method
# (NVIDIA C1060, Intel Core 2 6420)
PUBLISHED_MS = {128: (9.09, 6.18, 69.69, 1.65), 256: (12.80, 6.67, 135.71, 2.71), 512: (20.36, 10.00, 233.25, 4.93),
                1024: (34.14, 16.86, 482.53, 9.66), 2048: (65.35, 25.70, 872.98, 19.14),
                4096: (126.00, 44.80, 2244.11, 38.26), 8192: (246.88, 85.70, 4680.05, 76.13)}


@dataclass(frozen=True)
class Row:
    case: str
    solver: str
    sequences: int
    cells: int
    seconds: float | None  # median; None when the solver could not run here
    seconds_min: float | None = None
    seconds_max: float | None = None
    gcups: float | None = None
    speedup: float | None = None  # vs sequential on the same case
    note: str = ""
    cpu_seconds: float | None = None  # median process CPU time (all threads) of a run

    @property
    def busy(self) -> float | None:
        """Cores kept busy: CPU seconds per wall second."""
        return self.cpu_seconds / self.seconds if self.cpu_seconds is not None and self.seconds else None

    def as_dict(self) -> dict:
        return asdict(self)


class Disagreement(RuntimeError):
    pass


def measure(case: str, query: Query, db: Database, solver: str, repeats: int = 3, warmup: int = 1,
            scoring: Scoring = Scoring()) -> tuple[Row, np.ndarray | None]:
    rows, results = measure_interleaved(case, query, db, [solver], repeats, warmup, scoring)
    return rows[0], results[solver]


def measure_interleaved(case: str, query: Query, db: Database, solvers: Sequence[str], repeats: int = 3,
                        warmup: int = 1, scoring: Scoring = Scoring(),
                        ) -> tuple[list[Row], dict[str, np.ndarray | None]]:
    """Every solver ``warmup`` times untimed, then ``repeats`` rounds of one timed call each
    (core.timing.time_interleaved): a row per solver (median wall and CPU seconds) and its last
    scores. A solver that cannot run here (made, or called, with warm-up or without) is a row
    saying why."""
    n = cells(query, db)
    calls, results, rows = {}, {}, {}

    def unavailable(name: str, exc: SolverUnavailable) -> None:
        results[name], rows[name] = None, Row(case, name, len(db), n, None, note=f"n/a: {exc}")

    def call(impl) -> np.ndarray | SolverUnavailable:
        try:
            return impl.scores(query, db, scoring)
        except SolverUnavailable as exc:  # raised before any work: its timing is never reported
            return exc

    for name in solvers:
        try:
            impl = SOLVERS.get(name)
        except SolverUnavailable as exc:
            unavailable(name, exc)
            continue
        calls[name] = lambda impl=impl: call(impl)
    for name, (wall, cpu, scores) in time_interleaved(calls, repeats, warmup).items():
        if isinstance(scores, SolverUnavailable):
            unavailable(name, scores)
            continue
        results[name] = scores
        rows[name] = Row(case, name, len(db), n, wall.median, wall.min, wall.max, gcups(n, wall.median),
                         cpu_seconds=cpu.median)
    return [rows[name] for name in solvers], {name: results[name] for name in solvers}


def measure_cudasw4(case: str, query: Query, db: Database, build: Path, scoring: Scoring, work: Path) -> Row:
    """CUDASW++ 4.0 on the same query and database (its database made once per case; its own
    scan time, database resident on the GPU); scores are not compared here (its 21-letter
    matrices differ from ours on non-standard letters: cudasw4.py)."""
    from splicedalign.workloads.sw import cudasw4
    from splicedalign.workloads.sw.load import write_fasta
    from splicedalign.workloads.sw.matrices import ALPHABET

    n = cells(query, db)
    text = lambda codes: bytes(np.frombuffer(ALPHABET.encode(), np.uint8)[codes]).decode()  # noqa: E731
    work.mkdir(parents=True, exist_ok=True)
    write_fasta(work / "q.fa", [query.id], [text(query.codes)])
    write_fasta(work / "db.fa", db.ids, [text(db.seq(k)) for k in range(len(db))])
    try:
        cudasw4.makedb(build, work / "db.fa", work / "cdb" / "db")
        run = cudasw4.align(build, work / "q.fa", work / "cdb" / "db", scoring, 1, work / "out.tsv")
    except (OSError, ValueError, subprocess.CalledProcessError) as exc:
        return Row(case, "cudasw4", len(db), n, None, note=f"n/a: {exc}")
    seconds = float(sum(run.query_seconds))
    return Row(case, "cudasw4", len(db), n, seconds, seconds, seconds, gcups(n, seconds))


def check_agreement(case: str, results: dict[str, np.ndarray | None]) -> None:
    """Raise Disagreement naming the case, the solvers and the first differing sequence."""
    ran = {k: v for k, v in results.items() if v is not None}
    if not ran:
        return
    first, want = next(iter(ran.items()))
    for name, got in ran.items():
        if got.shape != want.shape or not np.array_equal(got, want):
            k = int(np.flatnonzero(got != want)[0]) if got.shape == want.shape else -1
            raise Disagreement(f"case {case}: {name} disagrees with {first} at sequence {k}"
                               + (f" ({got[k]} vs {want[k]})" if k >= 0 else " (count differs)"))


PEER_NAMES = ("pyopal", "parasail", "cudasw4")


def add_speedups(rows: Sequence[Row]) -> list[Row]:
    """Speedup vs ``sequential`` on the same case; the note of our solvers' rows also gives
    the ratio to the fastest CPU peer of that case."""
    base = {r.case: r.seconds for r in rows if r.solver == "sequential" and r.seconds}
    peer: dict[str, float] = {}
    for r in rows:
        if r.solver in ("pyopal", "parasail") and r.seconds:
            peer[r.case] = min(peer.get(r.case, r.seconds), r.seconds)
    out = []
    for r in rows:
        if r.seconds and r.case in base:
            r = replace(r, speedup=base[r.case] / r.seconds)
        if r.seconds and r.case in peer and r.solver not in PEER_NAMES and not r.note:
            r = replace(r, note=f"{peer[r.case] / r.seconds:.2f}x the fastest CPU peer")
        out.append(r)
    return out


def format_table(rows: Sequence[Row]) -> str:
    """Markdown: one line per case x solver."""
    out = ["| case | solver | sequences | cells | seconds (median) | GCUPS | cores busy | speedup vs sequential "
           "| note |",
           "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if r.seconds is None:
            out.append(f"| {r.case} | {r.solver} | {r.sequences:,} | {r.cells:,} | {r.note} | | | |")
        else:
            sp = f"{r.speedup:.1f}" if r.speedup else ""
            busy = f"{r.busy:.2f}" if r.busy is not None else ""
            out.append(f"| {r.case} | {r.solver} | {r.sequences:,} | {r.cells:,} | {r.seconds:.4g} | {r.gcups:.3g} "
                       f"| {busy} | {sp} | {r.note} |")
    return "\n".join(out) + "\n"


def paper_table(rows: Sequence[Row]) -> str:
    """Table III beside the published values (ms); cases named len<L>."""
    by = {(r.case, r.solver): r for r in rows}
    solvers = [s for s in ("sequential", "multicore", "sw-scan", "gpu", "pyopal", "parasail")
               if any(r.solver == s for r in rows)]
    out = ["| length | " + " | ".join(f"{s} ms" for s in solvers)
           + " | paper: CPU ms | paper: proposed ms | CUDASW++ k1 ms | CUDASW++ k2 ms |",
           "|---:|" + "---:|" * (len(solvers) + 4)]
    for length, (k1, k2, cpu, paper) in PUBLISHED_MS.items():
        case = f"len{length}"
        if not any(r.case == case for r in rows):
            continue
        cells_ = []
        for s in solvers:
            r = by.get((case, s))
            cells_.append("n/a" if r is None or r.seconds is None else f"{1e3 * r.seconds:.3g}")
        out.append(f"| {length:,} | " + " | ".join(cells_) + f" | {cpu:,} | {paper} | {k1} | {k2} |")
    return "\n".join(out) + "\n"
