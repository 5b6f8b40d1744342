"""``gpu`` (ours): one pair in strips of 32 * R rows, one warp per strip, rows in registers
(strips.cu), cost-adaptive and exact (band.py): with costs and a mode a band can certify
(match, mismatch >= 0, gap extend > 0; global or prefix), ``nw_band`` computes the table inside
a band of diagonals and widens it (Ukkonen) until the band's score is certified optimal,
else the whole table; ``Result.algorithm`` says ``band`` or ``dp``.
Linear costs, global mode, whole table: ``nw_strips`` (score only: two boundary rows; alignment:
every strip's bottom row and the cost columns every C columns kept, then one warp walks the
path back block by block, recomputing each block (nw_walk), or, with ``trace="host"``, the host
does the same (backtrack.trace_checkpoints)). Everything else (gap-affine costs, prefix and
infix modes, bands): ``nw_band`` (two boundary-row slots; with the alignment, every strip's
bottom row and checkpoint columns kept, from which ``nw_band_codes`` recomputes a 4-bit code per
cell of the diagonals holding every optimal path, all blocks at once, and ``nw_band_walk`` follows
them back). Similar pairs under the WFA's costs go first to the wavefront kernel (gpu/wfa.py): in
global and prefix modes to ``segments`` (segments.py: many short pieces, one block each, certified
exact), else one block's WFA / BiWFA (or a cluster's), each falling back to what follows."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.gpu import device
from splicedalign.workloads.nw import segments
from splicedalign.workloads.nw.backtrack import trace_checkpoints
from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.gpu import band as bands
from splicedalign.workloads.nw.gpu import wfa
from splicedalign.workloads.nw.gpu.batch import BatchSolver
from splicedalign.workloads.nw.gpu.common import PAD_A, PAD_B, Columns, gib, screen
from splicedalign.workloads.nw.records import MODES, OP_DEL, OP_INS, Costs, Pair, Result, check_mode
from splicedalign.workloads.nw.wfa import reduced_costs

KERNEL_FILE = Path(__file__).with_name("strips.cu")
GROUP = 4  # columns per step (an int4 of a boundary row)
ROWS_PER_LANE = (4, 8, 16)
BAND_ROWS = 8  # rows per lane of nw_band (strips of 256 rows; R / 2 words of 4-bit codes a group)
# groups of one strip nw_band_walk holds in shared memory (40 KiB at R = 8): a path crossing a strip
# of 256 rows spans ~64 groups, and 16 more keep a strip with some net insertions in one tile
TILE_GROUPS = 80
WALK_RUN = 8  # cells of a diagonal nw_band_walk reads together in state H (its moves in one step)
# groups between the checkpoint columns an alignment's nw_band pass keeps (H and E of every row; 512 columns):
# nw_band_codes recomputes blocks of that many groups, each swept with 31 steps of lanes filling in
CKPT_GROUPS = 128
VARIANTS = tuple(f"nw_strips<{r}, {p}>" for r in ROWS_PER_LANE for p in ("true", "false")) + tuple(
    f"nw_walk<{r}>" for r in ROWS_PER_LANE) + tuple(
    f"nw_band<{a}, {c}>" for a in ("true", "false") for c in ("true", "false")) + tuple(
    f"nw_band_codes<{a}>" for a in ("true", "false")) + ("nw_band_walk",)
# hand-off between strips (strips.cu): publish every PUBLISH groups, wait for WINDOW_MIN
HANDOFF = {"PUBLISH": 16, "WINDOW_MIN": 16}
# strips.defines.h; other hand-offs (tests) compile with NVRTC
DEFINES = {"GROUP": GROUP, **HANDOFF, "BAND_R": BAND_ROWS, "TILE_GROUPS": TILE_GROUPS,
           "WALK_RUN": WALK_RUN, "CKPT_GROUPS": CKPT_GROUPS}
TRACES = ("device", "host")
THREADS = 128
CHECKPOINT_SHARE = 0.6  # of free device memory the alignment's checkpoints (or band codes) may take
HOST_CHECKPOINT_BYTES = 1 << 30  # up to this much, checkpoints are copied to the host at once
KEY_BIAS = 1 << 30  # nw_band's answer key: (score + KEY_BIAS) << 32 | column
# Bands only from this many cells up: a band pass is a chain of strips about as long as the whole
# table's (docs/gpu-nw.md), so it saves time only where the whole table is throughput-bound.
# Measured on an H100: 10^5 x 10^5 whole table 24 ms (linear) / 34 ms (affine), one band
# pass 31-39 ms; 10^6 x 10^6 whole 494 / 936 ms, a band pass 327 / 402 ms.
BAND_MIN_CELLS = 2 * 10**11
# The time of the band / whole-table path the WFA competes with (H100, host to host): the whole
# table 2.5 ps a cell with linear costs, 3.4 with affine ones (10^5 x 10^5: 25.3 / 33.7 ms), but
# no less than its chain of strips, ~145 / 170 ns a letter of n + m (30,368 x 30,368: 8.8 /
# 10.3 ms); a band pass 9.7 / 12.2 ps a cell of the first band (10^6 x 10^6 in 31,264
# diagonals: 302 / 381 ms); the alignment ~1.3x the score (the pass keeping checkpoints, then
# nw_band_codes and the walk: 10^5 5% / 30,368 10% gap-affine 42.5 / 12.7 ms against 33.3 / 10.0;
# 2.4x while the pass wrote the codes itself); a launch and its copies ~0.05 ms.
DP_PS = {False: 2.5, True: 3.4}  # keyed by Costs.affine
CHAIN_NS = {False: 145.0, True: 170.0}
BAND_PS = {False: 9.7, True: 12.2}
ALIGN_FACTOR = 1.3
FIXED_MS = 0.05
# The WFA runs when the cost model (wfa.py) predicts it within WFA_SHARE of that time from the
# pair's sampled divergence (wfa.sampled_score; +-25% on 10^6 1%, so not 0.5: there the WFA's
# 175-200 ms beat the band's 302 but the guess said 239); pairs too short to sample run it at
# once. Either way it may take up to the other path's predicted time, then gives up (the answer
# stays exact).
WFA_SHARE = 0.8
WFA_SAMPLE_MIN = 4 * wfa.SAMPLE_LENGTH
# segments.py's pieces (WFA costs, global and prefix modes) for pairs of SEGMENTS_MIN rows up, their
# band sized for SEGMENTS_SLACK times the sampled score (widened once where the pieces' sum needs it),
# where that band's w is at most SEGMENTS_WIDTH_MAX (the sampled scores of 10^5 5% and 10^6 1%: w ~1,600, ~3,500)
SEGMENTS_MIN = 8 * segments.ROWS
SEGMENTS_SLACK = 1.5
SEGMENTS_WIDTH_MAX = 4096
# the first round also solves every two neighbouring pieces as one (segments.segmented's speculate) where the
# pieces are at most SEGMENTS_SPECULATE and a piece's expected cost at most SPECULATE_COST (reduced costs): the
# merges of a second round then ready in the first (H100, 10^5 1%, ~5 a piece: one round, ~0.1 ms less); at 5%
# and 10% (~25 and ~45 a piece) two neighbouring seams often disagree, a second round comes anyway after a first
# whose merged pieces' chain is twice as long (10^5 5% 1.43 -> 1.71 ms, 30,368 10% 1.32 -> 1.47)
SEGMENTS_SPECULATE, SPECULATE_COST = 600, 10.0


# A pair whose size, costs and mode would take segments' speculated first round has that round queued right
# behind its letters, on a band guessed from n and m alone, while the host samples (H100 host, 10^5 1% linear:
# the sample, the choice and the round's plan were ~0.1 ms of host before the round's launches): the band for a
# cost a row of GUESS_DIVERGENCE times the mismatch cost (that share of a's letters mismatched; the linear 1%
# pairs' ~0.0128 a row then within 0.015: w 244 at 10^5, where the sample's 1.5x gave 314), at most the speculation
# limit's (SPECULATE_COST a piece). Where the
# sample speculates too, segments go on from that round at its band (certified on the device, else by the host:
# exact either way); else the round is aborted (WfaSolver.abort: each piece gives up within a few steps) and the
# sample's band taken. No guess where a's first GUESS_HEAD letters against b's start (the sample's prefix WFA,
# wfa.end_score, ~3-6 us at 1%) cost more than GUESS_HEAD_SLACK times the guessed rate a letter, or visit more than
# GUESS_HEAD_WORK diagonals: 30,368 10%, 10^5 5% and unrelated pairs, whose guess the sample would abort (~0.1 ms
# of host for nothing: the round's plan and launches); a few 1% pairs skip it too (their heads' 99th percentile:
# linear 16 against 15.4, gap-affine 52 against 53).
GUESS_DIVERGENCE = 0.015
GUESS_HEAD, GUESS_HEAD_SLACK, GUESS_HEAD_WORK = 512, 2.0, 4096


class Guess(NamedTuple):
    """A first round queued on a guessed band (``GpuSolver.guess_round``): the band's half-width, the round."""

    width: int
    queued: wfa.QueuedCheck


def guessed_rate(costs: Costs, g: int) -> float:
    """The cost a row a guessed band is sized for (GUESS_DIVERGENCE; ``g``: the reduced costs' factor)."""
    return min(SPECULATE_COST * g / segments.ROWS, GUESS_DIVERGENCE * costs.mismatch)


def speculates(n: int, rate: float, g: int) -> bool:
    """Whether segments' first round of an n-row pair whose cost a row is about ``rate`` (``g``: the
    reduced costs' factor) also solves the neighbouring pieces as one (SEGMENTS_SPECULATE, SPECULATE_COST)."""
    return segments.piece_count(n, segments.ROWS) <= SEGMENTS_SPECULATE and rate * segments.ROWS / g <= SPECULATE_COST


def fallback_ms(pair: Pair, costs: Costs, mode: str, traceback: bool, band_min_cells: float) -> float:
    """The predicted time of the band or whole-table path (the constants above)."""
    band = bands.first_band(costs, mode, pair.n, pair.m)
    if pair.cells >= band_min_cells and not band.full:
        ms = band.cells * BAND_PS[costs.affine] * 1e-9
    else:
        ms = max(pair.cells * DP_PS[costs.affine] * 1e-9, (pair.n + pair.m) * CHAIN_NS[costs.affine] * 1e-6)
    return FIXED_MS + ms * (ALIGN_FACTOR if traceback else 1.0)


def rows_per_lane(n: int, traceback: bool) -> int:
    """Rows per lane R (strips of 32 R rows), as measured on an H200 (docs/experiments/nw-gpu.md).
    Score: R = 16 everywhere (fewer strips, fewer hand-offs: 30,368 in 7.5 ms against 8.2 at
    R = 8; 10^6 in 0.46 s against 0.83). Alignment: R = 8 up to 65,536 rows (smaller blocks to
    walk: 30,368 in 24.7 ms against 31.0 at R = 16), R = 16 above (10^6: 1.28 s against 1.46)."""
    if traceback and n <= 65_536:
        return 8
    return 16


def byte_costs(costs: Costs) -> bool:
    return all(-128 <= c <= 127 for c in (costs.match, costs.mismatch))


def band_windows(n: int, m: int, band: bands.Band, rows: int = BAND_ROWS) -> tuple[np.ndarray, np.ndarray]:
    """Each strip's first and last group of nw_band (strips.cu band_first_group /
    band_last_group): the groups holding its rows' band cells."""
    span = 32 * rows
    groups = -(-m // GROUP)
    first_row = np.arange(-(-n // span), dtype=np.int64) * span
    lo = np.maximum(0, (first_row + band.lo - 1) // GROUP)
    hi = np.minimum(groups - 1, (np.minimum(first_row + span, n) + band.hi - 1) // GROUP)
    return lo, hi


@dataclass
class BandPass:
    """One nw_band launch: the band's score, the column of row n it ends at and, with the
    alignment, what nw_band_codes recomputes the codes from (every strip's bottom row, H and F,
    and the checkpoint columns: ``cmax`` a strip)."""

    score: int
    end2: int
    gmax: int
    rows: Any = None
    cols: Any = None
    cmax: int = 0


def checkpoint_columns(first: np.ndarray, last: np.ndarray) -> int:
    """Checkpoint columns a strip of nw_band<., true> keeps at most (strips.cu band_column: those
    at a multiple of CKPT_GROUPS groups inside its window first..last)."""
    return max(1, int(((last + 1) // CKPT_GROUPS - first // CKPT_GROUPS).max()))


class GpuSolver:
    name = "gpu"

    def __init__(self, rows_per_lane: int | None = None, prmt: bool | None = None, poison: bool = False,
                 cols_every: int | None = None, trace: str = "device", handoff: dict[str, int] | None = None,
                 adaptive: bool = True, band_min_cells: int = BAND_MIN_CELLS, band_rows: int = BAND_ROWS,
                 whole_codes: bool = True, use_wfa: bool = True, use_segments: bool = True) -> None:
        if trace not in TRACES:
            raise ValueError(f"trace must be one of {TRACES}")
        self.cp = device.cupy()
        self.rows_per_lane = rows_per_lane
        self.prmt = prmt
        self.poison = poison  # fill boundary rows / checkpoints with POISON first
        self.cols_every = cols_every
        self.trace_on = trace
        self.adaptive = adaptive  # False: always the whole table (for comparisons)
        self.band_min_cells = band_min_cells  # smaller pairs: the whole table
        # the whole table's alignment (linear, global) by nw_band_codes' codes when they fit; False:
        # always nw_strips' checkpoints (nw_walk or the host trace)
        self.whole_codes = whole_codes
        self.band_rows = band_rows  # nw_band's R (other than BAND_ROWS: compiled by NVRTC)
        self.defines = {**DEFINES, **(handoff or {}), "BAND_R": band_rows}
        self.kernel_ms = 0.0  # the sweeps (nw_strips, or every nw_band pass) of the last solve
        self.walk_ms = 0.0  # the alignment walk (nw_walk or nw_band_walk) of the last solve
        self.codes_ms = 0.0  # nw_band_codes (the walk's codes from nw_band's checkpoints) of the last solve
        self.band = None  # the band that certified the last solve (bands.full_band: the whole table)
        self.passes = 0  # nw_band (or nw_strips) launches of the last solve
        self.pass_ms: list[float] = []  # each nw_band launch's time
        self.batch: BatchSolver | None = None
        self.use_wfa = use_wfa  # False: never the wavefront kernel (the band / whole table only)
        self.wfa: wfa.WfaSolver | None = None
        self.use_segments = use_segments  # False: never segments.py's pieces (the one-block WFA's path)
        self.stats_segments: segments.Trace | None = None  # what the last try of segments did

    def kernel(self, name: str) -> Any:
        """A shipped kernel instance (VARIANTS), compiled alone on first use."""
        assert name in VARIANTS, name
        return device.function(KERNEL_FILE, name, (name,), self.defines)

    def solve_many(self, pairs: Sequence[Pair], costs: Costs, traceback: bool = True,
                   mode: str = "global") -> Sequence[Result]:
        """A batch (``nw --pairs``): many pairs per launch, by the wavefront kernel (one block a
        pair) when the costs and the batch's divergence suit it, the rest in certified bands
        (batch.py), the pairs no band takes by ``solve``; answers in input order."""
        check_mode(mode)
        if self.batch is None:
            self.batch = BatchSolver(self.solve, self.name)
        results = None
        self.batch.stats = {}
        if self.wfa is not None:
            self.wfa.stats = {}
        if self.use_wfa and wfa.applies(costs):
            if self.wfa is None:
                self.wfa = wfa.WfaSolver(poison=self.poison)
            results = self.wfa.solve_many(pairs, costs, traceback, mode)
        if results is None:
            results = Columns.none(len(pairs))
        rest = results.missing()
        if rest:
            for k, r in zip(rest, self.batch.solve_many([pairs[k] for k in rest], costs, traceback, mode)):
                results[k] = r
        return results  # type: ignore[return-value]  (every pair answered: no None left)

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True, mode: str = "global") -> Result:
        answer = screen(pair, costs, mode, self.name, traceback, affine_modes=True)
        if answer is not None:
            return answer
        t0 = time.perf_counter()
        self.kernel_ms = self.walk_ms = self.codes_ms = 0.0
        self.stats_segments = None
        self.pass_ms: list[float] = []
        if self.use_wfa and wfa.applies(costs):
            done = self.try_wfa(pair, costs, traceback, mode, t0)
            if done is not None:
                return done
        linear_global = not costs.affine and mode == "global"
        adaptive = self.adaptive and pair.cells >= self.band_min_cells
        last: dict[str, Any] = {}  # "strips": nw_strips' result; "pass": the last nw_band pass; "inputs"

        def solve_band(band: bands.Band) -> int:
            # the whole table with linear costs in global mode: nw_strips, unless the alignment's
            # band codes fit (nw_band_walk follows codes 3-4x faster than nw_walk recomputes blocks)
            if band.full and linear_global and not (traceback and self.whole_codes and self.codes_fit(pair, band)):
                last["strips"] = self.solve_strips(pair, costs, traceback)
                return last["strips"].score
            if "inputs" not in last:
                last["inputs"] = self.upload(pair, self.band_rows)
            last["pass"] = self.band_pass(pair, costs, mode, band, traceback, last["inputs"])
            return last["pass"].score

        first = bands.first_band(costs, mode, pair.n, pair.m)
        if adaptive and not first.full:
            score, band, self.passes = bands.adaptive(solve_band, costs, mode, pair.n, pair.m)
        else:
            band, self.passes = bands.full_band(pair.n, pair.m), 1
            score = solve_band(band)
        if band.full and "strips" in last:
            self.band = band
            return replace(last["strips"], seconds=time.perf_counter() - t0)
        self.band = band
        done = last["pass"]
        algorithm = bands.algorithm_name(band)
        if not traceback:
            return Result(score, pair.cells, self.name, time.perf_counter() - t0, end2=done.end2, algorithm=algorithm)
        ops, start2 = self.band_walk(pair, costs, mode, band, done, last["inputs"])
        return Result(score, pair.cells, self.name, time.perf_counter() - t0, cigar_string(ops), start2, done.end2,
                      algorithm)

    def try_wfa(self, pair: Pair, costs: Costs, traceback: bool, mode: str, started: float) -> Result | None:
        """The wavefront kernel when the pair looks similar enough (WFA_SHARE), within the other
        path's predicted time; None: not tried, or it gave up. ``started``: the solve's clock at its
        start (time.perf_counter; ``Result.seconds`` counts from it)."""
        if self.wfa is None:
            self.wfa = wfa.WfaSolver(poison=self.poison)
        # the letters uploaded and packed while the host samples and chooses (H100 host, 10^5 1%: the
        # stage ~0.05 ms of host, the device's upload and pack ~0.05 then under the sample; a pair the WFA
        # declines had its stage for nothing); a guessed round's pieces pack their own (WfaSolver.pack_staged)
        if not self.wfa.stage(pair, costs):
            return None
        guess = self.guess_round(pair, costs, traceback, mode)  # (its device round under the sample)
        if guess is None:
            self.wfa.pack_staged()
        expected = None
        if min(pair.n, pair.m) >= WFA_SAMPLE_MIN:
            expected = wfa.sampled_score(pair, costs)
            if self.takes_segments(pair, costs, mode) and np.isfinite(expected):
                done, guess = self.try_segments(pair, costs, traceback, mode, expected, started, guess), None
                if done is not None:
                    return done
        if guess is not None:
            self.wfa.abort(guess.queued)
        # (the other path's predicted time after segments: a certified pair never needs it)
        other = fallback_ms(pair, costs, mode, traceback, self.band_min_cells if self.adaptive else float("inf"))
        if expected is not None and self.wfa.estimate_ms(pair, costs, mode, expected) > WFA_SHARE * other:
            return None
        done = self.wfa.solve(pair, costs, traceback, mode, other, expected, staged=True, started=started)
        self.kernel_ms = self.wfa.stats.get("kernel_ms", 0.0)
        self.passes = 1 if done is not None else 0
        return done

    def takes_segments(self, pair: Pair, costs: Costs, mode: str) -> bool:
        """Whether a pair of this size, costs and mode goes to segments (where its sampled score is finite)."""
        return (self.use_segments and pair.n >= SEGMENTS_MIN and min(pair.n, pair.m) >= WFA_SAMPLE_MIN
                and segments.applies(costs, mode))

    def guess_round(self, pair: Pair, costs: Costs, traceback: bool, mode: str) -> Guess | None:
        """segments' first round with its check on the device (``queue_first``), queued on the band guessed from n
        and m alone (GUESS_DIVERGENCE); None where the pair's size, costs and mode would not take it there, or its
        head says it is not similar enough (GUESS_HEAD)."""
        if not self.takes_segments(pair, costs, mode):
            return None
        g = reduced_costs(costs)[0]
        rate = guessed_rate(costs, g)
        width = bands.width_needed(int(rate * max(pair.n, pair.m)) + 1, costs, mode, pair.n, pair.m)
        if not speculates(pair.n, rate, g) or width > SEGMENTS_WIDTH_MAX:
            return None
        head = wfa.end_score(pair.a[:GUESS_HEAD], pair.b[:GUESS_HEAD + wfa.SAMPLE_MARGIN], costs, GUESS_HEAD_WORK)
        if head > GUESS_HEAD_SLACK * rate * GUESS_HEAD:
            return None
        return Guess(width, self.queue_first(pair, costs, traceback, mode, rate, width, g))

    def queue_first(self, pair: Pair, costs: Costs, traceback: bool, mode: str, rate: float, width: int,
                    g: int) -> wfa.QueuedCheck:
        """segments' first round at the band of half-width ``width`` (``segments.first_asks`` with speculation),
        its caps for a cost ``rate`` a row (``g``: the reduced costs' factor), and its check on the device, queued:
        in one launch that makes the pieces itself (``WfaSolver.queue_round``), else planned on the host
        (``WfaSolver.queue_check``)."""
        assert self.wfa is not None
        lo, hi, bound, shape, (max_steps, pool_steps) = segments.first_round(costs, mode, pair.n, pair.m, width, rate,
                                                                             g, segments.ROWS, True)
        threads = self.round_threads(shape[1])
        queued = self.wfa.queue_round(pair, costs, mode, lo, hi, shape, max_steps, pool_steps, threads, bound,
                                      traceback)
        if queued is not None:
            return queued
        cuts, r0, r1, c0, c1 = segments.first_asks(pair.n, pair.m, lo, hi, segments.ROWS, True)
        return self.wfa.queue_check(pair, costs, mode, cuts.size - 1, r0, r1, c0, c1, max_steps, pool_steps, threads,
                                    bound, traceback)

    def round_caps(self, rate: float, longest: int, pieces: int, g: int) -> tuple[int, int, int]:
        """A round's cap of a piece's scores, the pool's scores a piece (``segments.piece_caps`` for a cost
        ``rate`` a row, its longest piece's rows), threads a block (``round_threads``)."""
        return (*segments.piece_caps(rate, longest, g), self.round_threads(pieces))

    def round_threads(self, pieces: int) -> int:
        """Threads a block of a round of ``pieces`` blocks."""
        assert self.wfa is not None
        return wfa.MAX_THREADS if pieces <= self.wfa.multiprocessors else wfa.PIECE_THREADS

    def try_segments(self, pair: Pair, costs: Costs, traceback: bool, mode: str, expected: float,
                     started: float, guess: Guess | None = None) -> Result | None:
        """segments.py's certified pieces on the wavefront kernel (``WfaSolver.solve_pieces``), the band
        sized for SEGMENTS_SLACK times the sampled score ``expected``, or, where the sample speculates, the
        band of ``guess`` (``guess_round``: its first round on the device already; aborted where the sample does
        not speculate); None where they do not certify (the caller goes on to the one-block WFA, on the same
        staged letters)."""
        assert self.wfa is not None  # (try_wfa made it and staged the pair)
        t0 = time.perf_counter()
        solver = self.wfa
        g = reduced_costs(costs)[0]
        rate = expected / max(pair.n, pair.m)  # cost a row, about
        speculate = speculates(pair.n, rate, g)
        if guess is not None and not speculate:
            solver.abort(guess.queued)
            guess = None
        width = guess.width if guess is not None else bands.width_needed(int(SEGMENTS_SLACK * expected) + 1, costs,
                                                                          mode, pair.n, pair.m)
        if width > SEGMENTS_WIDTH_MAX:
            return None  # (windows of many times a piece's rows: not the similar pairs this is for)

        def solve(r0: np.ndarray, r1: np.ndarray, c0: np.ndarray, c1: np.ndarray) -> segments.Pieces:
            return solver.solve_pieces(pair, costs, r0, r1, c0, c1, *self.round_caps(rate, int((r1 - r0).max()),
                                                                                      r0.size, g))

        trace = segments.Trace()
        solver.stats = {}
        got: segments.Segmented | None = None
        first = None
        if speculate:  # (where one round is expected to certify: its check on the device, WfaSolver.queue_check)
            queued = (guess.queued if guess is not None
                      else self.queue_first(pair, costs, traceback, mode, rate, width, g))
            checked = solver.checked(queued)
            if isinstance(checked, segments.Segmented):
                got = checked
                trace.rounds, trace.solved = 1, queued.queued.count
                trace.merges = segments.piece_count(pair.n, segments.ROWS) - checked.solve.size
            else:
                first = checked
        if got is None:
            got = segments.segmented(pair.n, pair.m, costs, mode, width, solve, segments.ROWS, trace=trace,
                                     speculate=speculate, first=first)
        self.stats_segments = trace
        t1 = time.perf_counter()
        # (host ms: from the solve's start to here, the rounds, the CIGAR's text)
        solver.stats.update(segments_from_ms=(t0 - started) * 1e3, segments_ms=(t1 - t0) * 1e3)
        if got is None:
            return None
        cigar = got.cigar() if traceback else None
        solver.stats["text_ms"] = (time.perf_counter() - t1) * 1e3
        self.passes = got.rounds
        # the rounds' pack and sweep where the WfaSolver's timeline asked for their events; else unknown (None: the
        # pipeline's records say null, not NaN)
        self.kernel_ms = sum([r[3] for r in solver.stats.get("pieces", [])]) if solver.timeline else None
        return Result(got.score, pair.cells, self.name, time.perf_counter() - started, cigar, 0, got.end2,
                      segments.ALGORITHM)

    def upload(self, pair: Pair, r: int) -> tuple[Any, Any]:
        """a padded to whole strips of 32 r rows, b to whole groups, on the device."""
        span = 32 * r
        a = np.full(-(-pair.n // span) * span, PAD_A, dtype=np.uint8)
        a[:pair.n] = pair.a
        b = np.full(-(-pair.m // GROUP) * GROUP, PAD_B, dtype=np.uint8)
        b[:pair.m] = pair.b
        return self.cp.asarray(a), self.cp.asarray(b)

    def codes_bytes(self, pair: Pair, band: bands.Band) -> int:
        """Device memory of an alignment in ``band``, at most: nw_band's checkpoints (every strip's
        bottom row, H and F; the checkpoint columns, H and E) and the 4-bit codes of the band (R / 2
        words a lane and group; nw_band_codes writes those of a narrower band where one holds every
        optimal path)."""
        first, last = band_windows(pair.n, pair.m, band, self.band_rows)
        gmax = int((last - first).max()) + 1
        span = 32 * self.band_rows
        return first.size * (gmax * 32 * (self.band_rows // 2) * 4 + 2 * gmax * GROUP * 4 * 2
                             + checkpoint_columns(first, last) * 2 * span * 4)

    def codes_fit(self, pair: Pair, band: bands.Band) -> bool:
        return self.codes_bytes(pair, band) <= CHECKPOINT_SHARE * device.free_memory()

    def band_pass(self, pair: Pair, costs: Costs, mode: str, band: bands.Band, traceback: bool,
                  inputs: tuple[Any, Any]) -> BandPass:
        """nw_band over ``band``: its least cost (global: at (n, m); prefix, infix: the least of
        row n, column 0 included) and where it ends; with the alignment, its checkpoints too."""
        cp = self.cp
        a_dev, b_dev = inputs
        n, m = pair.n, pair.m
        first, last = band_windows(n, m, band, self.band_rows)
        strips, groups = first.size, -(-m // GROUP)
        gmax = int((last - first).max()) + 1
        cmax = 0
        if traceback:
            if not self.codes_fit(pair, band):
                raise SolverUnavailable(
                    f"gpu: the alignment of {n:,} x {m:,} in a band of {band.hi - band.lo + 1:,} diagonals needs "
                    f"{gib(self.codes_bytes(pair, band))} of checkpoints and codes, {gib(device.free_memory())} "
                    "free on the device; use --score-only or multicore")
            cmax = checkpoint_columns(first, last)
        slots = strips if traceback else 2  # every strip's bottom row kept for nw_band_codes
        rows = cp.empty((2, slots, gmax * GROUP), dtype=cp.int32)  # (H, F) x slot
        cols = cp.empty(max(1, strips * cmax * 2 * 32 * self.band_rows), dtype=cp.int32)
        if self.poison:
            rows.fill(device.POISON)
            cols.fill(device.POISON)
        flags = cp.zeros(strips + 2, dtype=cp.int32)  # [strips] = the ticket, [strips + 1] = the error word
        best = cp.full(1, np.iinfo(np.uint64).max, dtype=cp.uint64)
        match, mismatch, o, e = costs.as_affine()
        kernel = self.kernel(f"nw_band<{'true' if costs.affine else 'false'}, {'true' if traceback else 'false'}>")
        blocks = -(-strips // (THREADS // 32))
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        kernel((blocks,), (THREADS,), (
            a_dev, b_dev, np.int32(n), np.int32(m), np.int32(groups), np.int32(strips), np.int32(match),
            np.int32(mismatch), np.int32(o + e), np.int32(e), np.int32(band.lo), np.int32(band.hi),
            np.int32(MODES.index(mode)), rows[0], rows[1], np.int32(gmax), np.int32(slots), flags, flags[strips:],
            cols, np.int32(cmax), best, flags[strips + 1:]))
        stop.record()
        stop.synchronize()
        device.check(cp)
        self.pass_ms.append(cp.cuda.get_elapsed_time(start, stop))
        self.kernel_ms += self.pass_ms[-1]
        key = int(best.get()[0])
        if int(flags[strips + 1].get()):
            raise RuntimeError(f"gpu: a strip waited too long for its predecessor ({pair.name})")
        score, end2 = (key >> 32) - KEY_BIAS, key & 0xFFFFFFFF
        if key == np.iinfo(np.uint64).max:
            score, end2 = 1 << 62, m  # no cell of row n inside the band (a narrow prefix band)
        if mode != "global" and band.lo <= -n and costs.gap(n) <= score:  # column 0 of row n
            score, end2 = costs.gap(n), 0
        return BandPass(score, end2, gmax, rows if traceback else None, cols if traceback else None, cmax)

    def band_codes(self, pair: Pair, costs: Costs, mode: str, band: bands.Band, done: BandPass,
                   inputs: tuple[Any, Any]) -> tuple[bands.Band, int, Any]:
        """(the walk's band, its codes' groups a strip, the codes): nw_band_codes over the diagonals of
        ``band`` that hold every optimal path (band.optimal_paths_band), from ``done``'s checkpoints."""
        cp = self.cp
        a_dev, b_dev = inputs
        n, m = pair.n, pair.m
        walk = bands.optimal_paths_band(done.score, costs, mode, band)
        first, last = band_windows(n, m, walk, self.band_rows)
        strips, groups = first.size, -(-m // GROUP)
        wmax = max(1, int((last - first).max()) + 1)
        per_strip = max(1, int((last // CKPT_GROUPS - first // CKPT_GROUPS).max()) + 1)
        bits = cp.empty(strips * wmax * 32 * (self.band_rows // 2), dtype=cp.uint32)
        if self.poison:
            bits.fill(0xFFFFFFFF)
        match, mismatch, o, e = costs.as_affine()
        kernel = self.kernel(f"nw_band_codes<{'true' if costs.affine else 'false'}>")
        blocks = -(-strips * per_strip // (THREADS // 32))
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        kernel((blocks,), (THREADS,), (
            a_dev, b_dev, np.int32(n), np.int32(groups), np.int32(strips), np.int32(match), np.int32(mismatch),
            np.int32(o + e), np.int32(e), np.int32(band.lo), np.int32(band.hi), np.int32(MODES.index(mode)),
            done.rows[0], done.rows[1], np.int32(done.gmax), done.cols, np.int32(done.cmax), np.int32(walk.lo),
            np.int32(walk.hi), np.int32(wmax), np.int32(per_strip), bits))
        stop.record()
        stop.synchronize()
        device.check(cp)
        self.codes_ms = cp.cuda.get_elapsed_time(start, stop)
        return walk, wmax, bits

    def band_walk(self, pair: Pair, costs: Costs, mode: str, band: bands.Band, done: BandPass,
                  inputs: tuple[Any, Any]) -> tuple[np.ndarray, int]:
        """(the alignment's operations, its first column of b): the codes (band_codes), then
        nw_band_walk from (n, end2)."""
        cp = self.cp
        a_dev, b_dev = inputs
        walk_band, wmax, bits = self.band_codes(pair, costs, mode, band, done, inputs)
        walk = self.kernel("nw_band_walk")
        ops = cp.empty(pair.n + pair.m, dtype=cp.int8)
        state = cp.full(3, -1, dtype=cp.int32)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        walk((1,), (32,), (a_dev, b_dev, np.int32(walk_band.lo), np.int32(wmax), bits, np.int32(pair.n),
                           np.int32(done.end2), ops, state))
        stop.record()
        stop.synchronize()
        device.check(cp)
        self.walk_ms = cp.cuda.get_elapsed_time(start, stop)
        count, i, j = (int(v) for v in state.get())
        if i > 0:
            head = np.full(i, OP_DEL, dtype=np.int8)
        elif mode == "infix":
            head = np.empty(0, dtype=np.int8)
        else:
            head, j = np.full(j, OP_INS, dtype=np.int8), 0
        return np.concatenate([head, ops[:count].get()[::-1]]), j

    def solve_strips(self, pair: Pair, costs: Costs, traceback: bool) -> Result:
        """Linear costs, global mode, the whole table: nw_strips (+ nw_walk or the host trace)."""
        cp = self.cp
        t0 = time.perf_counter()
        r = self.rows_per_lane or rows_per_lane(pair.n, traceback)
        prmt = byte_costs(costs) if self.prmt is None else self.prmt and byte_costs(costs)
        span = 32 * r
        strips = -(-pair.n // span)
        groups = -(-pair.m // GROUP)
        a = np.full(strips * span, PAD_A, dtype=np.uint8)
        a[:pair.n] = pair.a
        b = np.full(groups * GROUP, PAD_B, dtype=np.uint8)
        b[:pair.m] = pair.b
        slots = strips if traceback else min(2, strips)
        cols_every = self.columns_every(pair, span, strips) if traceback else 0
        ckpt_cols = pair.m // cols_every if traceback else 0
        rows = cp.empty((slots, groups * GROUP), dtype=cp.int32)
        cols = cp.empty(max(1, ckpt_cols * pair.n), dtype=cp.int32)
        if self.poison:
            rows.fill(device.POISON)
            cols.fill(device.POISON)
        flags = cp.zeros(strips + 1, dtype=cp.int32)  # [strips] = the ticket
        out = cp.full(2, device.POISON, dtype=cp.int32)  # result, error word
        out[1] = 0
        match, mismatch, indel = costs.as_tuple()
        kernel = self.kernel(f"nw_strips<{r}, {'true' if prmt else 'false'}>")
        a_dev, b_dev = cp.asarray(a), cp.asarray(b)
        warps = strips
        blocks = -(-warps // (THREADS // 32))
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        kernel((blocks,), (THREADS,), (
            a_dev, b_dev, np.int32(pair.n), np.int32(pair.m), np.int32(groups), np.int32(strips),
            np.int32(match), np.int32(mismatch), np.int32(indel), rows, np.int32(slots), flags,
            flags[strips:], cols, np.int32(cols_every // GROUP), out[0:1], out[1:2]))
        stop.record()
        stop.synchronize()
        device.check(cp)
        self.kernel_ms = cp.cuda.get_elapsed_time(start, stop)
        score, error = (int(v) for v in out.get())
        if error:
            raise RuntimeError(f"gpu: a strip waited too long for its predecessor ({pair.name})")
        cigar = None
        if traceback and self.trace_on == "device":
            ops = self.walk(pair, costs, r, a_dev, b_dev, groups, rows, cols_every, cols)
            cigar = cigar_string(ops)
        elif traceback:
            cigar = cigar_string(self.trace(pair, costs, span, rows, cols_every, cols))
        return Result(score, pair.cells, self.name, time.perf_counter() - t0, cigar, 0, pair.m)

    def columns_every(self, pair: Pair, span: int, strips: int) -> int:
        """Columns between checkpoint columns: ``span`` (square blocks) or the smallest multiple of
        it whose checkpoints fit; SolverUnavailable when even the rows do not fit."""
        if self.cols_every:
            return self.cols_every
        budget = CHECKPOINT_SHARE * device.free_memory()
        row_bytes = strips * (pair.m + GROUP) * 4
        every = span
        while row_bytes + 4 * pair.n * (pair.m // every) > budget:
            if every > pair.m:
                raise SolverUnavailable(
                    f"gpu: the alignment of {pair.n:,} x {pair.m:,} needs {gib(row_bytes)} of checkpoint rows, "
                    f"{gib(device.free_memory())} free on the device; use --score-only")
            every *= 2
        return every

    def walk(self, pair: Pair, costs: Costs, r: int, a_dev: Any, b_dev: Any, groups: int, rows: Any,
             cols_every: int, cols: Any) -> np.ndarray:
        """The alignment by nw_walk on the device (one warp); the gaps before its stop point
        (row 0 or column 0) are added here."""
        cp = self.cp
        walk = self.kernel(f"nw_walk<{r}>")
        every = cols_every if pair.m >= cols_every else pair.m + GROUP  # no checkpoint column
        smem = (every // GROUP) * 32 * (-(-r // 4)) * 4
        device.allow_shared_memory(walk, smem)
        ops = cp.empty(pair.n + pair.m, dtype=cp.int8)
        state = cp.full(3, -1, dtype=cp.int32)
        match, mismatch, indel = costs.as_tuple()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        walk((1,), (32,), (a_dev, b_dev, np.int32(pair.n), np.int32(pair.m), np.int32(groups), np.int32(match),
                           np.int32(mismatch), np.int32(indel), rows, cols, np.int32(every), ops, state),
             shared_mem=smem)
        stop.record()
        stop.synchronize()
        device.check(cp)
        self.walk_ms = cp.cuda.get_elapsed_time(start, stop)
        count, i, j = (int(v) for v in state.get())
        head = np.full(i, OP_DEL, dtype=np.int8) if i else np.full(j, OP_INS, dtype=np.int8)
        return np.concatenate([head, ops[:count].get()[::-1]])

    def trace(self, pair: Pair, costs: Costs, span: int, rows: Any, cols_every: int, cols: Any) -> np.ndarray:
        """The alignment from the checkpoints: rows[k-1] = D[k*span][1..], cols[q-1] = D[1..n][q*C]."""
        indel = costs.indel
        cols2 = cols[:(pair.m // cols_every) * pair.n].reshape(-1, pair.n)
        if rows.nbytes + cols2.nbytes <= HOST_CHECKPOINT_BYTES:
            rows, cols2 = rows.get(), cols2.get()
            fetch = np.asarray
        else:
            fetch = self.cp.asnumpy

        def row_at(k: int, c0: int, c1: int) -> np.ndarray:
            out = np.empty(c1 - c0 + 1, dtype=np.int64)
            lo = max(c0, 1)
            out[lo - c0:] = fetch(rows[k - 1, lo - 1:c1])
            if c0 == 0:
                out[0] = k * span * indel
            return out

        def column_at(q: int, r0: int, r1: int) -> np.ndarray:
            out = np.empty(r1 - r0 + 1, dtype=np.int64)
            lo = max(r0, 1)
            out[lo - r0:] = fetch(cols2[q - 1, lo - 1:r1])
            if r0 == 0:
                out[0] = q * cols_every * indel
            return out

        # no checkpoint column (m < C): every block then starts at column 0, known
        every = cols_every if cols2.shape[0] else pair.m + 1
        return trace_checkpoints(pair.a, pair.b, costs, span, row_at, every, column_at)
