"""Peers registered as solvers: ``pywfa`` (WFA2-lib: gap-linear or gap-affine, end-to-end for
global mode, ends-free with the text's (b's) ends free for prefix and infix).

WFA2 needs match 0 and positive mismatch and gap-extend costs; it returns minus the cost. In
ends-free mode its CIGAR covers the free letters of b as insertions: they are cut off here and
give the region. Letters
are handed over as the codes' letters with a wildcard of a written 'N' and one of b written 'R',
so a wildcard never matches there either (as in ``records``). edlib computes unit-cost edit
distance only, so it is not a solver for these costs; the tests use it as a unit-cost oracle.
"""

from __future__ import annotations

import os
import pickle
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.registry import import_peer
from splicedalign.core.timing import Timing, repeats_for
from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.records import (
    OP_DEL,
    OP_INS,
    OP_MATCH,
    OP_MISMATCH,
    Costs,
    Pair,
    Result,
    check_mode,
    cigar_cost,
)

A_LETTERS = np.frombuffer(b"ACGTN", dtype=np.uint8)
B_LETTERS = np.frombuffer(b"ACGTNR", dtype=np.uint8)
# pywfa's cigartuples use the pysam codes (0 M for a match there, 7 =, 8 X, 1 I, 2 D); its
# pattern is a and its text b, so its D is a letter of a against a gap, as ours.
_PYSAM_TO_OP = {0: OP_MATCH, 7: OP_MATCH, 8: OP_MISMATCH, 2: OP_DEL, 1: OP_INS}


def letters(codes: np.ndarray, alphabet: np.ndarray) -> str:
    return alphabet[codes].tobytes().decode("ascii")


def pywfa_model(costs: Costs) -> dict:
    """pywfa's cost arguments (match 0 is passed apart)."""
    if costs.affine:
        return dict(distance="affine", mismatch=costs.mismatch, gap_opening=costs.gap_open,
                    gap_extension=costs.indel)
    return dict(distance="linear", mismatch=costs.mismatch, gap_extension=costs.indel)


def pywfa_aligned(a: str, b: str, model: dict, traceback: bool):
    """A new pywfa aligner of ``a`` (its pattern) with the costs ``model`` (``pywfa_model``),
    end to end, after its wavefront_align of ``b`` (its text), as a user of pywfa meets it: its
    score is minus the cost; ``traceback`` has WFA2 make the CIGAR (scope full), else the score
    only. The batches' pywfa peer (benchmarks/nw.py, device_nw_batch.py, pywfa_pairs.py)."""
    import pywfa

    aligner = pywfa.WavefrontAligner(a, match=0, span="end-to-end", scope="full" if traceback else "score", **model)
    aligner.wavefront_align(b)
    return aligner


def pywfa_score(job: tuple[str, str, dict, bool]) -> int:
    """One pair (a's letters, b's, ``pywfa_model``, traceback) by ``pywfa_aligned``: its score.
    A module-level function, so a process pool's workers take it by name (the batch peer on
    all cores in benchmarks/nw.py and scripts/device_nw_batch.py)."""
    return -int(pywfa_aligned(*job).score)


def pywfa_settings(costs: Costs, traceback: bool, mode: str = "global", m: int = 0) -> dict:
    """pywfa.WavefrontAligner's keyword arguments for ``costs`` in ``mode`` (m: b's length, the
    free ends of prefix and infix mode) at its exact, fastest settings for one core: heuristic
    None (WFA2's C default is its adaptive heuristic, not exact; pywfa's None turns it off),
    memory mode high (the whole wavefronts kept: no BiWFA recomputation), scope score (WFA2 then
    keeps only the last wavefronts a score reads and never backtraces; align/wavefront_unialign.c)
    unless the CIGAR is wanted (or the mode's region is read from it)."""
    if costs.match != 0 or costs.mismatch <= 0 or costs.indel <= 0:
        raise SolverUnavailable("pywfa needs match cost 0 and positive mismatch and gap-extend costs")
    if mode == "global":
        span: dict = dict(span="end-to-end")
    else:
        span = dict(span="ends-free", pattern_begin_free=0, pattern_end_free=0,
                    text_begin_free=m if mode == "infix" else 0, text_end_free=m)
    return dict(match=0, heuristic=None, memory_mode="high",
                scope="full" if traceback or mode != "global" else "score", **pywfa_model(costs), **span)


def pywfa_ops(tuples: list, mode: str, m: int) -> tuple[np.ndarray, int, int]:
    """pywfa's cigartuples as our operation codes over a and b[start2:end2], with (start2, end2)."""
    codes = np.array([_PYSAM_TO_OP[code] for code, _ in tuples], dtype=np.int8)
    joined = np.repeat(codes, np.array([length for _, length in tuples], dtype=np.int64))
    start, end = 0, m
    if mode != "global":
        kept = np.flatnonzero(joined != OP_INS)
        first, last = (kept[0], kept[-1] + 1) if kept.size else (0, 0)
        lead = first if mode == "infix" else 0
        start, end = int(lead), int(m - (joined.size - last))
        joined = joined[lead:last]
    return joined, start, end


class PywfaSolver:
    """pywfa as a registered solver (the pipeline's peer): a new aligner a solve, as a one-pair
    user of pywfa meets it. ``Result.seconds``: the aligner, the alignment, its CIGAR as pywfa's
    tuples and the aligner's teardown; the letters (our codes as text) are made before the clock
    starts and the tuples' conversion into our CIGAR after it stops. The benchmarks' side by side
    times pywfa apart, in fresh processes (``time_pywfa``)."""

    name = "pywfa"

    def __init__(self) -> None:
        self._aligner = import_peer("pywfa").WavefrontAligner

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True, mode: str = "global") -> Result:
        check_mode(mode)
        settings = pywfa_settings(costs, traceback, mode, pair.m)
        a, b = letters(pair.a, A_LETTERS), letters(pair.b, B_LETTERS)  # (0.2 ms at 10^5 on the CPU host)
        t0 = time.perf_counter()
        aligner = self._aligner(a, **settings)
        status = aligner.wavefront_align(b)
        tuples = aligner.cigartuples if settings["scope"] == "full" else None
        failed, score = aligner.status, -int(aligner.score)
        del aligner  # (its teardown, WFA2 freeing its wavefronts, is pywfa's work a pair: 0.4-9.6 ms at 10^5)
        seconds = time.perf_counter() - t0
        if failed != 0:
            raise RuntimeError(f"pywfa failed on {pair.name}: status {failed} ({status})")
        start, end, cigar = 0, pair.m, None
        if tuples is not None:
            ops, start, end = pywfa_ops(tuples, mode, pair.m)
            cigar = cigar_string(ops) if traceback else None
        return Result(score, pair.cells, self.name, seconds, cigar, start, end, algorithm="wfa")


# time_pywfa's defaults: fresh processes, then in each a row's repeats after its warm-up call:
# at least MIN_REPEATS and enough for MIN_SECONDS (pywfa's 10^5 1% score took 2.44 ms in one
# process of the release check and 1.48 in another host's; its CIGAR 4.3-4.8 and 9.3-10.0 ms in
# two processes of one call: a row's ratio rested on one process's luck)
PROCESSES, MIN_REPEATS, MIN_SECONDS, MAX_REPEATS = 3, 5, 0.05, 500


@dataclass(frozen=True)
class PywfaJob:
    """One row of ``time_pywfa``: a pair (our codes), its costs, score or CIGAR, and whether the
    aligner is kept across the calls (True: pywfa's reuse of one aligner, its memory already
    faulted in, as a user aligning many pairs has it; False: a new one a call, torn down in it)."""

    a: np.ndarray
    b: np.ndarray
    costs: Costs
    traceback: bool
    reuse: bool = True


@dataclass(frozen=True)
class PywfaTiming:
    """A row's pywfa times: per process (seconds a call, wall and CPU) the median of its repeats, as
    ``Timing`` runs: the row's time is their median, its spread their min .. max."""

    wall: Timing
    cpu: Timing
    repeats: tuple[int, ...]
    score: int
    cigar: str | None
    tuples_seconds: float  # (pywfa's cigartuples read once after the timing, not counted: its CIGAR as Python)


def time_pywfa(jobs: Sequence[PywfaJob], processes: int = PROCESSES, min_repeats: int = MIN_REPEATS,
               min_seconds: float = MIN_SECONDS) -> list[PywfaTiming]:
    """pywfa's time of each job on one core, the benchmarks' one definition (device_nw.py's side
    rows, benchmarks/nw.py): ``processes`` fresh Python processes one after another (each imports
    this module and pywfa only), each timing every job in turn: our codes made pywfa's text and the
    aligner built (its settings: ``pywfa_settings``) before the clock, one warm-up call, then
    max(min_repeats, min_seconds / the warm-up's time) calls, each timed alone:
    ``aligner.wavefront_align(b, a)`` (pywfa encodes both texts, WFA2 aligns and, with the CIGAR,
    backtraces it into its own CIGAR), its status and score read. Not timed: the CIGAR as Python
    tuples (``tuples_seconds``) and their conversion into ours, made once after the repeats and
    re-scored here (``cigar_cost``: the benchmarks' one check of pywfa's CIGAR). Raises RuntimeError
    on a failed alignment or process, on processes that disagree on a score, or on a CIGAR that does
    not cost its score; SolverUnavailable without pywfa."""
    import_peer("pywfa")
    source = str(Path(__file__).resolve().parents[3])  # (this tree's package, whatever PYTHONPATH says)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([source, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    payload = pickle.dumps((list(jobs), min_repeats, min_seconds))
    runs = []
    for _ in range(processes):
        done = subprocess.run([sys.executable, "-c", "from splicedalign.workloads.nw.peers import _serve; _serve()"],
                              input=payload, capture_output=True, env=env, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"pywfa timing process failed: {done.stderr.decode(errors='replace')[-2000:]}")
        runs.append(pickle.loads(done.stdout))
    timings = []
    for k, job in enumerate(jobs):
        rows = [run[k] for run in runs]
        scores = {row["score"] for row in rows}
        if len(scores) != 1:
            raise RuntimeError(f"pywfa gave different scores in its processes: {scores}")
        if job.traceback and (cost := cigar_cost(rows[0]["cigar"], job.a, job.b, job.costs)) != rows[0]["score"]:
            raise RuntimeError(f"pywfa's CIGAR of a {job.a.size} x {job.b.size} pair ({job.costs}) re-scores to "
                               f"{cost}, not its score {rows[0]['score']}")
        timings.append(PywfaTiming(Timing(tuple(statistics.median(row["wall"]) for row in rows)),
                                   Timing(tuple(statistics.median(row["cpu"]) for row in rows)),
                                   tuple(len(row["wall"]) for row in rows), rows[0]["score"], rows[0]["cigar"],
                                   statistics.median(row["tuples"] for row in rows)))
    return timings


def _serve() -> None:
    """A ``time_pywfa`` process: its jobs from stdin, their times to stdout (pickled)."""
    jobs, min_repeats, min_seconds = pickle.loads(sys.stdin.buffer.read())
    out = [_time_job(job, min_repeats, min_seconds) for job in jobs]
    sys.stdout.buffer.write(pickle.dumps(out))


def _time_job(job: PywfaJob, min_repeats: int, min_seconds: float) -> dict:
    aligner_class = import_peer("pywfa").WavefrontAligner
    settings = pywfa_settings(job.costs, job.traceback)  # (global: no free ends, b's length unused)
    a, b = letters(job.a, A_LETTERS), letters(job.b, B_LETTERS)
    kept = aligner_class(**settings) if job.reuse else None

    def call() -> int:
        aligner = kept if kept is not None else aligner_class(**settings)
        aligner.wavefront_align(b, a)
        if aligner.status != 0:
            raise RuntimeError(f"pywfa failed: status {aligner.status}")
        return -int(aligner.score)  # (a new aligner is torn down here, in the call)

    t0 = time.perf_counter()
    score = call()  # the warm-up
    first = time.perf_counter() - t0
    repeats = repeats_for(min_seconds, first, min_repeats, MAX_REPEATS)
    wall, cpu = [], []
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        got = call()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if got != score:
            raise RuntimeError(f"pywfa's score moved between calls: {got} != {score}")
    cigar, tuples_seconds = None, 0.0
    if job.traceback:
        checked = kept if kept is not None else aligner_class(**settings)
        if kept is None:
            checked.wavefront_align(b, a)
        t0 = time.perf_counter()
        tuples = checked.cigartuples
        tuples_seconds = time.perf_counter() - t0
        cigar = cigar_string(pywfa_ops(tuples, "global", int(job.b.size))[0])
    return {"wall": wall, "cpu": cpu, "score": score, "cigar": cigar, "tuples": tuples_seconds}
