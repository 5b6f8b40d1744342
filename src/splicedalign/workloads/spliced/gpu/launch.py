"""A `gpu` launch's configuration, decided in one place (``configure``) from the tuning (data:
``Tuning``), and the batching of test cases into launches that fit the device's memory (pure).

docs/experiments/spliced-gpu.md has the measurements behind every default of ``Tuning``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import partial

import numpy as np

from splicedalign.gpu import device
from splicedalign.workloads.spliced.gpu.flat import FlatCases
from splicedalign.workloads.spliced.gpu.plan import (
    BLOCKS_PER_SM,
    CHECKPOINT_BLOCKS,
    COLS,
    DENSE_LANE_ROWS,
    ENCODE_KERNEL,
    MIN_BLOCKS_PER_SM,
    MODE_FOLLOW,
    MODE_RECORD,
    MODE_SCORE,
    MOVE_UNIT,
    NEG_SHIFT_INT,
    THREADS,
    WARP,
    case_move_words,
    entry_folds,
    least_lane_rows,
    move_words,
    round_up,
    shifted_bound,
    strip_checkpoints,
    strip_scratch_units,
)
from splicedalign.workloads.spliced.records import Scoring, TestCase

# Tuning.feed_shares as measured: four steps (long chains and 8% of the other cells, 20, 35, the
# last 37%). One H200 process, fresh solvers in turn on never-seen paper sets, 6 rounds (ms median
# / min): these 24.2 / 20.7, six steps (4, 8, 16, 30, 25, the last 17%) 29.3 / 22.8, five (4, 10,
# 20, 30, the last 36%) 25.8 / 23.2, planned whole 28.6 / 24.1: each step costs the host ~0.75 ms
# beside its cases' share.
FED_SHARES = (0.08, 0.2, 0.35)


@dataclass(frozen=True)
class Tuning:
    """The `gpu` solver's tuning: what a launch's configuration follows from. Tests and
    benchmarks construct other values (``GpuSolver(tuning=Tuning(...))``)."""

    # Row storage of one launch (elements): 32-bit offsets, and a few GiB of device memory.
    row_budget: int = 2**30
    # Move storage of one launch that records moves (uint32 words, 16 GiB): a paper set's traced
    # call in one launch. Its bound (case_bytes: every strip at the launch's rows per lane) is
    # 0.8-1.2 x 2^31 words, its moves ~0.8 x 2^31 (6.8 GB): at 2^31 half of the seeds split in two
    # launches, the second's kernel and walks after the first's (H200: traced 39-40 ms against
    # 34-35 in one). Both budgets shrink to the device memory a call finds free (GpuSolver,
    # launch.memory_split); the kernels address moves with 64-bit offsets (MOVE_UNIT words).
    move_budget: int = 2**32
    # Rows each lane holds in registers (strips of 32 * rows_per_lane rows) for int scores; the
    # int64 variants hold wide_rows_per_lane (more would spill registers).
    rows_per_lane: int = 8
    wide_rows_per_lane: int = 4
    # A chain-bound launch (fewer than throughput_cases cases) holds chain_rows_per_lane rows per
    # lane for int scores: on its dependent chain every step waits about one L2 round trip for
    # the producer's next block, so a strip's skew costs round trips per lane, and half the lanes
    # per exon halve it (IL1RAPL1: 16 rows per lane against 8, 12.4 -> 8.9 ms).
    chain_rows_per_lane: int = 16
    # A launch of at least throughput_cases cases is throughput-bound (independent cases keep
    # every SM busy): its short strips run with fewer rows per lane, down to MIN_LANE_ROWS, which
    # wastes fewer lanes, except its long chains'. A launch of fewer cases is bound by its cases'
    # dependent chains of exons, where every strip hop costs a lane skew of fixed-cost steps: all
    # its strips use the launch's rows per lane.
    throughput_cases: int = 64
    # Blocks per SM of a launch of fewer cases: most of its warps wait on the chain, and fewer of
    # them polling leave the chain's warps more issue slots and L2 (IL1RAPL1 12.1 -> 10.9 ms at
    # 1 block per SM against all that fit). A follower beside such a launch gets as many.
    chain_blocks_per_sm: int = 1
    # Blocks per SM of a throughput launch's score kernel (of the MIN_BLOCKS_PER_SM that fit): its
    # end is its long chains' (paper set replays, H100: the K = 622 cases end 0.9-2.0 ms after
    # every other task), and a chain's step waits for its share of a busy SM. With 16 warps per SM
    # instead of 24 (and each step's selectors loaded a step early, wavefront.cu) the paper set's
    # kernel took 9.4 / 8.4 / 9.0 / 9.2 / 6.8 ms against 10.4 / 10.3 / 10.4 / 10.8 / 8.2 (5 seeds),
    # the 10 sets' 64.2 against 65.7 ms; at 1 block per SM 7.6-11.0 ms. A recording launch keeps
    # all that fit: its follower would share the SMs from the start (traced paper set 33 ms
    # against 15 at 2 per SM).
    score_blocks_per_sm: int = 2
    # A throughput launch that records moves ends with its longest dependent chains, slowed by
    # the recording on their every step (the paper set's five K = 622 cases alone 9.0 ms with a
    # follower, its other 1,005 cases 11.4 ms, together 20.5 ms). The strips of the cases with
    # at least long_chain_share of the most exons are computed at score speed and a follower
    # records their moves on the SMs the launch leaves in its tail (plan.followed_tasks).
    long_chain_share: float = 0.5
    # In a throughput launch a fold waits for its exon's last strip, in a warp that could run a
    # strip: placed right after that exon it spins for most of the strip's sweep (the paper set:
    # 74% of folds were taken within the ~3,200 tasks the GPU runs at once of their exon's last
    # strip). late_folds places each fold q of such a launch's cases, its long chains' too, as
    # late as its consumers allow; those that an exon's entry row equals are no tasks at all where
    # the kernel can write them (plan.entry_folds). A chain-bound launch keeps its folds (such a
    # fold comes one entry-row window late: IL1RAPL1 +2%), but in a throughput launch the long
    # chains' fold tasks stood between their strips in the order: with them late and by entry
    # rows the paper set's replays took 8.87 / 8.17 / 6.93 ms against 9.40 / 8.38 / 6.92, its fed
    # kernels 0.1-0.5 ms less, 10 sets 66.4 against 67.9 (H100).
    late_folds: bool = True
    # Blocks per SM of the follower of long chains: fewer than the recording kernel's
    # MIN_BLOCKS_PER_SM, so that the kernel, whose rows the follower waits for, always has a
    # block's room on every SM even if the follower starts first. At 2 the follower starved the
    # first device walk beside it (ready 3.7 ms after the kernel, against 1.5 ms at 1); 1 ends
    # the traced call 0.2-1.9 ms earlier though the follower ends 1 ms later.
    follow_blocks_per_sm: int = 1
    # The device walk of a recording launch (trace_chains, one warp per case) lasts as long as
    # its longest path, and the host turns a walk's output into records only once it is done.
    # So the walk comes in parts, by each case's longest possible path as a share of the
    # longest one's: at most walk_shares[0] first (the paper set: 202 of 1,010 cases), at most
    # walk_shares[1] next (361), ..., then the rest, then the followed long chains: the host
    # builds each part's records while the GPU walks the next (a first part at 0.1 instead of
    # 0.2 took 0.5 ms off the traced paper set).
    walk_shares: tuple[float, ...] = (0.1, 0.2)
    # A call without traceback on never-seen cases is split as it goes (GpuSolver._streamed) and
    # starts its GPU once its first launch is split and planned: where more than one launch
    # follows, the first holds first_launch_share of what the budgets would let it hold (its
    # kernel starts sooner, the host splits and plans the next one while it runs), each next one
    # at most launch_growth times the one before (0: as much as the budgets hold; launch.Cutter).
    # Each launch more costs its kernel's tail, replays included. 10 paper sets, H100, one run, two
    # seeds (ms cold / replay): 0.35 104.4, 101.4 / 85.8, 82.1; 0.5 124.1, 114.6 / 93.3, 85.9
    # (slower processes); 1.0 232.3 (a slow first call), 105.0 / 78.3, 82.5; the split of the whole
    # call before its first launch (main then) 117.9, 118.6 / 77.1, 79.6. 0.45 (without a splitter
    # thread) measured as 0.35: 87.8, 92.5 against 88.8, 91.5 ms (H100, fresh processes, same seeds).
    first_launch_share: float = 0.35
    launch_growth: float = 0.0
    # A call of one never-seen score launch of at least throughput_cases cases starts its kernel
    # at once and has it planned and handed over in steps (feed.py): its long chains and
    # feed_shares[0] of its other cases' cells, then feed_shares[1], ..., then the rest; the GPU
    # runs a step's tasks while the host plans the next. () plans it whole before its kernel.
    # Measured (H100, one run): six steps took the paper set's cold call from 20.9 to 19.2 ms,
    # replay unchanged (FED_SHARES: four). Its kernel waits for the host's next window at most
    # WAIT_LIMIT_CYCLES (~10 s): the feed's compiled passes are loaded before it starts
    # (feed.load_passes).
    feed_shares: tuple[float, ...] = FED_SHARES
    # A fed launch's long chains come earlier in its order than their relative position x: at
    # x * long_chain_lead, both across its windows and inside each (and in its replays' order).
    # Their tasks are taken late: on a K = 622 chain's critical path 45-77% of the hops found their
    # input there when a warp took the task (task clocks of fed kernels, H100: the chain runs ahead
    # of the launch order). Measured (H100, one process, 4 rounds): at 0.85 the fed kernel after
    # its first window 8.32 -> 7.85 ms where the set has one long chain (seed 6784610), 10.59 ->
    # 10.43 and 9.67 -> 9.53 with 10 and 15; replays -2.6% to +0.6%; at 0.7, and at 0.85 with the
    # long chains' folds late (the default), fed calls of the 15-chain set ran 13-28 ms in 4 of 8
    # rounds (a lead that large may hold the warps on chain tasks): off until measured more.
    long_chain_lead: float = 1.0
    # A fed launch's long chain slot at relative position x goes to the window of x -
    # long_chain_ahead (feed._long_windows; inside the window and in the replays' order it keeps
    # its place). Windows land ~1.2-2.1 ms apart (each step ~0.7 ms of planning whatever its size)
    # while a K = 622 chain's path crosses its slots in ~8 ms, so at 0 the chain uses up window 0's
    # 8% in ~0.6 ms and waits for window 1, and again for window 2 where it lands late: 0.7-1.4 ms
    # of the path idle in a chain-and-windows model (fed kernel after window 0 - replay kernel:
    # 1.1-1.4 ms, H100). At 0.1 window 0 holds the chains' first 18%, enough for ~1.4 ms.
    long_chain_ahead: float = 0.1
    # A fed launch's plan for replays (its tasks in a whole launch's order, ~6 MB for a paper set:
    # feed.Feeder.plan and its upload, 2.2-3.3 ms of the H100 host after the last window) is made
    # when a replay of the same cases first needs it, not in the fed call: in 2 of the release
    # check's 5 cold paper-set calls the kernel ended 1.1 and 2.6 ms before it, and the call
    # waited. The first replay pays it instead; later replays run as before. False: made in the
    # fed call while its kernel runs.
    lazy_replay_plan: bool = True
    # Feed a traced call's recording launch too (feed.py, "Recording"): its kernel starts before
    # its planning (~8-10 ms of the paper set's ~36 ms traced call, H100), its follower after
    # window 0, its walks behind the kernel once the feed is done. Exact on the H100 but no faster
    # (paper set cold: traced 26-29 ms, as planned whole: its recording kernel ran 17.4 ms against
    # 13.6-15.9 planned, its follower ended 3.3 ms after it): off.
    feed_record: bool = False
    # A traced throughput launch runs its score kernel (no moves recorded but its followed long
    # chains', by their follower) and each other case's walk recomputes the moves of the strips
    # it enters from row storage (plan.py, "Recomputed moves"): a walk reads only its chain's
    # exons (11.5% of synthetic.paper_set(2012)'s cells beside its followed chains), while the
    # recording kernel paid ~4 more instructions a cell on every cell, and its move storage
    # shrinks to one strip's per case (2 paper sets: 0.19x the recording kernel's). False: the
    # kernel records every strip's moves (MODE_RECORD; a fed recording launch, feed_record, does).
    recompute: bool = True
    # Column checkpoints every checkpoint_blocks column blocks (plan.py, "Column checkpoints",
    # CHECKPOINT_BLOCKS: 256 columns): a recomputing int launch's walks sweep each strip from the
    # checkpoint left of the path, not from column 0. 0: none (walks from column 0; NVRTC-compiled).
    checkpoint_blocks: int = CHECKPOINT_BLOCKS

    def chain_bound(self, cases: int) -> bool:
        """Whether a launch of ``cases`` cases is bound by its dependent chains (else throughput)."""
        return cases < self.throughput_cases

    def launch_rows_per_lane(self, cases: int) -> int:
        """Rows per lane (int scores) of a launch of ``cases`` cases."""
        return self.chain_rows_per_lane if self.chain_bound(cases) else self.rows_per_lane

    def widest(self) -> int:
        """The most rows per lane any launch holds."""
        return max(self.rows_per_lane, self.chain_rows_per_lane)


TUNING = Tuning()


def tuning_of(values: str | Mapping[str, object]) -> Tuning:
    """A Tuning of ``values`` (fields over the defaults), given as a mapping or as JSON text (the
    scripts' NAME=JSON tunings): JSON lists become tuples (launches are cached by their hashed
    Tuning). A field Tuning lacks, or JSON that is not an object, is a ValueError naming it."""
    given = json.loads(values) if isinstance(values, str) else values
    if not isinstance(given, Mapping):
        raise ValueError(f"Tuning fields must be a JSON object, got {values!r}")
    known = [f.name for f in fields(Tuning)]
    if unknown := [k for k in given if k not in known]:
        raise ValueError(f"not a Tuning field: {', '.join(map(str, unknown))} (fields: {', '.join(known)})")
    return Tuning(**{k: tuple(v) if isinstance(v, list) else v for k, v in given.items()})


@dataclass(frozen=True)
class LaunchConfig:
    """One launch's configuration: its kernels and their shape. Made by ``configure`` only."""
    ctype: str                # score type: "int" or "long long"
    rows_per_lane: int        # rows a lane holds (the plan's strips: 32 * rows_per_lane rows)
    byte_profile: bool        # the kernel's PRMT byte profile
    mode: int                 # plan.MODE_SCORE / MODE_RECORD / MODE_FOLLOW (a follower records)
    record: bool              # moves recorded and walked on the device (device traceback)
    gather: bool              # every exon's last row gathered for the host traceback
    followed: tuple[int, ...]  # a recording throughput launch's long chains, recorded by a follower
    floors: np.ndarray        # per case, the fewest rows per lane a strip uses
    late: np.ndarray          # per case, folds placed late
    entry: np.ndarray         # per case, folds written by entry rows
    blocks_per_sm: int        # of the (first) wavefront kernel
    follow_blocks_per_sm: int  # of the follower, if any
    least: int                # the fewest rows per lane the kernels sweep (plan.least_lane_rows)
    free_ends: bool = False   # free target ends (Scoring.target_ends): the kernels' FREE flag
    recompute: bool = False   # a recording launch whose walks recompute moves (Tuning.recompute): a score kernel
    checkpoint_blocks: int = 0  # such a launch's column checkpoints (Tuning.checkpoint_blocks; int scores), or 0

    @property
    def kernels(self) -> tuple[str, ...]:
        """The wavefront kernels the launch runs: the kernel (with checkpoint_blocks, the score
        kernel that stores them), then its follower if any."""
        wave = lambda m: f"wavefront<{self._shape}, {m}, {self._free}>"  # noqa: E731
        first = (f"wavefront_checkpoints<{self._shape}, {self._free}, {self.checkpoint_blocks}>"
                 if self.checkpoint_blocks else wave(self.mode))
        if self.mode == MODE_FOLLOW:
            return wave(MODE_SCORE), wave(MODE_FOLLOW)
        if self.followed:
            return first, wave(MODE_FOLLOW)
        return (first,)

    @property
    def last_rows(self) -> bool:
        """Whether the launch reads every exon's last row after its kernels: free ends' final
        scores (last_row_max) or the host traceback's gather; else only the finals' gather."""
        return self.free_ends or self.gather

    @property
    def _shape(self) -> str:
        """The template arguments every wavefront and trace kernel of the launch starts with: score
        type, rows per lane, byte profile."""
        return f"{self.ctype}, {self.rows_per_lane}, {'true' if self.byte_profile else 'false'}"

    @property
    def _free(self) -> str:
        return "true" if self.free_ends else "false"

    @property
    def finals_kernel(self) -> str:
        """The free ends' final scores (last_row_max), in ``names`` where free_ends."""
        return f"last_row_max<{self.ctype}>"

    @property
    def names(self) -> tuple[str, ...]:
        """Every kernel compiled with them: those, with free ends the finals kernel, then the
        inputs' encoding, the gather and the trace kernel."""
        finals = (self.finals_kernel,) if self.free_ends else ()
        trace = (f"trace_chains_checkpoints<{self._shape}, {self._free}, {self.checkpoint_blocks}>"
                 if self.checkpoint_blocks else f"trace_chains<{self._shape}, {self._free}>")
        return self.kernels + finals + (ENCODE_KERNEL, f"gather_rows<{self.ctype}>", trace)


def configure(flat: FlatCases, ctype: str, byte_profile: bool, traceback: bool, on_device: bool,
              tuning: Tuning = TUNING, rows_per_lane: int | None = None, free_ends: bool = False) -> LaunchConfig:
    """The configuration of one launch of the cases ``flat`` with scores of ``ctype``: a launch
    bound by its dependent chains (few cases) holds chain_rows_per_lane rows per lane, every
    strip at that width, one block per SM, and records moves (device traceback) in a follower on
    the SMs the chain leaves idle; a throughput-bound one holds rows_per_lane, its short strips
    narrower, its folds late, and records in its score kernel, except its longest chains', which
    it computes at score speed and a follower records (Tuning.recompute: its kernel is the score
    kernel, recording no moves, and its walks recompute them but the long chains').
    ``rows_per_lane`` overrides the width; ``free_ends``: free target ends (Scoring.target_ends),
    the kernels' FREE flag."""
    cases = len(flat)
    chain = tuning.chain_bound(cases)
    record = traceback and on_device
    R, least, follow = launch_widths(cases, ctype, record, tuning, rows_per_lane)
    followed = tuple(long_chains(flat, tuning)) if record and not follow else ()
    recompute = record and not follow and tuning.recompute
    floors = lane_rows_floor(flat, R, least, tuning)
    late = late_folds(flat, tuning)
    # (the int score kernels load selectors early, wavefront.cu: at 3 blocks per SM that was slower)
    per_sm = (tuning.chain_blocks_per_sm if chain else tuning.score_blocks_per_sm
              if ctype == "int" and (not record or recompute) else BLOCKS_PER_SM)
    mode = MODE_FOLLOW if follow else MODE_RECORD if record and not recompute else MODE_SCORE
    # A follower beside a chain-bound kernel and the kernel must both be resident (the follower
    # waits on rows only the kernel writes): together at most the MIN_BLOCKS_PER_SM that fit.
    return LaunchConfig(ctype, R, byte_profile, mode,
                        record, traceback and not record, followed, floors, late, late & entry_folds(ctype, R),
                        min(per_sm, MIN_BLOCKS_PER_SM // 2) if follow else per_sm,
                        tuning.follow_blocks_per_sm if followed else min(per_sm, MIN_BLOCKS_PER_SM // 2), least,
                        free_ends, recompute, tuning.checkpoint_blocks if recompute and ctype == "int" else 0)


def launch_widths(cases: int, ctype: str, record: bool, tuning: Tuning = TUNING,
                  rows_per_lane: int | None = None) -> tuple[int, int, bool]:
    """(rows per lane, the fewest its strips sweep, whether a follower records its moves: every
    strip's where ``record``) of a launch of ``cases`` cases of score type ``ctype`` (configure)."""
    R = rows_per_lane or tuning.launch_rows_per_lane(cases)
    if ctype != "int":
        R = tuning.wide_rows_per_lane
    # the recording kernel exists for throughput widths only: wider ones always follow
    return R, least_lane_rows(ctype), record and (tuning.chain_bound(cases) or R > DENSE_LANE_ROWS)


def score_dtype(ctype: str) -> np.dtype:
    """How the kernels store scores of ``ctype`` ("int" or "long long") in row storage."""
    return np.dtype(np.int32 if ctype == "int" else np.int64)


def _rows(flat: FlatCases, rows_per_lane: int) -> np.ndarray:
    """Row elements each case needs: one row per strip and one per fold (at most K folds)."""
    return (flat.strips(WARP * rows_per_lane) + flat.K) * round_up(flat.n + 1)


def _storage(flat: FlatCases, rows_per_lane: int) -> tuple[np.ndarray, np.ndarray]:
    """(row elements (_rows), move words) each case needs: moves at most (plan.py, "Moves":
    strips with fewer rows per lane take less)."""
    strips, n = flat.strips(WARP * rows_per_lane), flat.n
    return _rows(flat, rows_per_lane), strips * (n // COLS + WARP) * WARP * move_words(rows_per_lane)


def launch_rows(flat: FlatCases, rows_per_lane: int) -> int:
    """The most row elements a launch of the cases ``flat`` at ``rows_per_lane`` takes (its
    plan's rows_size, or a little less: entry folds take none; a fed launch's Feeder.sizes)."""
    return int(_rows(flat, rows_per_lane).sum())


def move_words_many(cases: Sequence[TestCase] | FlatCases, rows_per_lane: int) -> np.ndarray:
    """Move storage each case needs at most."""
    return _storage(FlatCases.of(cases), rows_per_lane)[1]


def scratch_words(flat: FlatCases, rows_per_lane: int) -> np.ndarray:
    """(C,) uint32 words of each case's walk scratch where its walk recomputes moves
    (plan.strip_scratch_units: one strip's moves)."""
    return strip_scratch_units(flat.n.astype(np.int64), rows_per_lane) * MOVE_UNIT


def checkpoint_elements(flat: FlatCases, rows_per_lane: int, ckb: int) -> np.ndarray:
    """(C,) score elements of each case's column checkpoints at most (plan.checkpoint_layout:
    every strip at ``rows_per_lane``; narrower strips take less)."""
    return flat.strips(WARP * rows_per_lane) * strip_checkpoints(flat.n.astype(np.int64), ckb) * WARP * rows_per_lane


def case_bytes(flat: FlatCases, rows_per_lane: int, itemsize: int, record: bool, gather: bool,
               recompute: Tuning | None = None) -> np.ndarray:
    """Device bytes each case takes in a launch at most: its row storage, its moves when the
    launch records them (move_words_many's bound: the share a split cuts by; plan_launches counts
    each launch's as planned, MoveWords), its exons' last rows when they are gathered, and its
    inputs (tasks, bases, selectors, trace records; generously). ``recompute``: the tuning of a
    recording throughput launch whose walks recompute moves (Tuning.recompute): a case's moves are
    its walk's scratch, and the bound only for the cases a follower may record (K at least
    long_chain_share of the most); with checkpoint_blocks, the other cases' column checkpoints too."""
    rows, words = _storage(flat, rows_per_lane)
    checkpoints = 0
    if record and recompute is not None and recompute.recompute and len(flat):
        long = flat.K >= recompute.long_chain_share * flat.K.max()
        words = np.where(long, words, 0) + scratch_words(flat, rows_per_lane)
        if recompute.checkpoint_blocks and itemsize == 4:  # the other cases' checkpoints (int scores only: configure)
            checkpoints = np.where(long, 0, checkpoint_elements(flat, rows_per_lane, recompute.checkpoint_blocks))
    out = (rows + checkpoints) * itemsize + (words * 4 if record else 0)
    if gather:
        out = out + flat.K * (flat.n + 1) * itemsize
    exons = flat.K
    return out + 64 * exons + 4 * (flat.n + 2 * WARP * COLS) + flat.m + 2 * flat.longest_paths()


def batches(cases: Sequence[TestCase] | FlatCases, rows_per_lane: int, budget: int = TUNING.row_budget,
            byte_sizes: np.ndarray | None = None, byte_budget: int | None = None,
            fits: Callable[[int, int], bool] | None = None, tuning: Tuning = TUNING) -> list[list[int]]:
    """Consecutive runs of case indices whose row storage fits ``budget``, whose device bytes
    (``byte_sizes``, each case's case_bytes) fit ``byte_budget``, and where given for which
    ``fits(a, b)`` holds (longest_fitting: a recording launch's moves, MoveWords; a case that alone
    exceeds them gets a launch of its own)."""
    flat = FlatCases.of(cases)
    limits = [(np.cumsum(_rows(flat, rows_per_lane)), budget)]  # each budget over the running sums of what cases take
    if byte_budget:
        limits.append((np.cumsum(byte_sizes), byte_budget))
    out: list[list[int]] = []
    start = 0
    while start < len(flat):  # a run ends before the first case that would exceed a budget
        end = min(int(np.searchsorted(total, (total[start - 1] if start else 0) + cap, side="right"))
                  for total, cap in limits)
        end = max(end, start + 1)
        if fits is not None:
            end = longest_fitting(start, end, partial(fits, start), tuning)
        out.append(list(range(start, end)))
        start = end
    return out


# The share of the free device memory a call plans to use: the rest is left to CuPy's pool
# (block rounding and splits) and CUDA's own allocations.
MEMORY_USE = 0.9


def memory_split(largest_case: int, free: int, in_flight: int) -> tuple[int, int]:
    """(bytes each launch may take, launches in flight) for a call whose largest case takes
    ``largest_case`` bytes on a device with ``free`` bytes for it: ``in_flight`` launches share
    MEMORY_USE of them; a case too large for its share runs alone (one launch in flight)."""
    free = int(free * MEMORY_USE)
    share = free // in_flight
    return (share, in_flight) if largest_case <= share else (free, 1)


# Launches of the largest size queued at once (each holds its device memory): two let the host
# work on one launch while the GPU runs the other; smaller launches share the same room.
IN_FLIGHT = 2


def plan_launches(flat: FlatCases, scoring: Scoring, traceback: bool, free: int, on_device: Callable[[str], bool],
                  tuning: Tuning = TUNING, rows_per_lane: int | None = None,
                  moves_at_least: int = 0) -> tuple[int, list[tuple[str, list[int]]], list[int], int]:
    """(the device bytes the launches queued at once may take, each launch's (score type, case
    indices), the device bytes each launch takes at most, the bytes of move storage each recording
    launch takes: the largest launch's, or ``moves_at_least`` bytes, storage kept from earlier
    calls) of a call on the cases ``flat`` with ``free`` bytes of device memory: cases
    grouped by score type, each group in consecutive runs within the row and move budgets and a
    share of the free memory (memory_split; a call split as it goes, GpuSolver._streamed, cuts its
    own with Cutter). A recording launch's moves are counted exactly (launch_move_words: its plan's
    and its follower's), and every one takes storage for the call's largest (GpuSolver._moves:
    one size, reused by each launch after the first ones); a recording group that fits the call's
    room as one launch, counted so, is one launch (_one_launch). GpuMemoryError (one line) when a case
    cannot fit alone. ``on_device(ctype)``: whether launches of that score type trace back on the
    device; ``rows_per_lane``: a fixed width (default: by launch, Tuning)."""
    R = rows_per_lane or tuning.rows_per_lane
    wide = wide_scores(flat, scoring, tuning, rows_per_lane)
    groups = []
    for ctype, w in (("int", False), ("long long", True)):
        idx = np.flatnonzero(wide == w)
        if idx.size:
            record = traceback and on_device(ctype)
            part = flat.select(idx)
            sizes = launch_sizes(part, ctype, record, traceback and not record, free, tuning, rows_per_lane)
            # a recording launch of few cases holds chain_rows_per_lane (configure): its cases' bytes at that width
            chain = (chain_sizes(part, ctype, free, tuning) if record and rows_per_lane is None
                     and tuning.chain_rows_per_lane != R else None)
            # each case's bytes but moves
            bare = launch_sizes(part, ctype, False, traceback and not record, free, tuning, rows_per_lane)
            groups.append((ctype, idx, part, record, sizes, chain, bare))
    # (a case alone is a chain launch: its device bytes at the chain width decide the split too)
    largest = max((int(max(g[4].max(), g[5].max() if g[5] is not None else 0)) for g in groups), default=0)
    share, in_flight = memory_split(largest, free, IN_FLIGHT)
    work = []
    for ctype, idx, part, record, sizes, at_chain, bare in groups:
        # a recording launch's moves counted as its plan takes them (MoveWords: the 8-row bound put
        # a launch's above the budget)
        moves = MoveWords(part, ctype, tuning, rows_per_lane) if record else None
        fits = partial(_moves_fit, moves, tuning.move_budget) if moves is not None else None
        runs = batches(part, R, tuning.row_budget, sizes, share, fits, tuning)
        if len(runs) > 1 and moves is not None and _one_launch(part, moves, int(bare.sum()), share * in_flight,
                                                               R, tuning):
            runs = [list(range(len(part)))]
        for run in runs:
            subs = [run]
            if at_chain is not None and tuning.chain_bound(len(run)):
                # a chain launch holds more rows per lane than the batches assumed: its row
                # storage and device bytes checked again at that width (its moves were: a part
                # of a chain launch takes part of its moves)
                subs = [[run[i] for i in sub] for sub in batches(
                    flat.select(idx[run]), tuning.chain_rows_per_lane, tuning.row_budget, at_chain[run], share)]
            work += [(ctype, idx[sub], moves.of(sub[0], sub[-1] + 1) if moves is not None else 0) for sub in subs]
    fed = tuning.feed_shares and (not traceback or tuning.feed_record)
    if fed and len(work) == 1:  # a fed launch: its long chains first (feed.py)
        work = [(ctype, long_chains_first(flat, sel, tuning), r) for ctype, sel, r in work]
    # each launch's device bytes: its rows (at the throughput width: a chain launch's wider strips
    # take fewer rows), inputs and gathers, and the call's move storage
    words = max((w for _, _, w in work), default=0)
    bare = np.empty(len(flat), dtype=np.int64)
    for g in groups:
        bare[g[1]] = g[6]
    bares = [int(bare[sel].sum()) for _, sel, _ in work]
    most = 4 * words
    if words:  # the floor where it keeps each recording launch within its share (or its own bytes)
        storage = move_storage(most, tuning)
        if all(b + storage <= max(share, b + most) for b, (_, _, w) in zip(bares, work) if w):
            most = storage
        most = max(most, moves_at_least)
    held = [b + (most if w else 0) for b, (_, _, w) in zip(bares, work)]
    return share * in_flight, [(ctype, sel.tolist()) for ctype, sel, _ in work], held, most


class MoveWords:
    """The uint32 words of move storage a recording launch of consecutive cases of ``flat`` (of
    score type ``ctype``) takes, as its plan and follower take them (``of``): each case's moves at
    its floor (plan.case_move_words; lane_rows_floor's floors: a throughput launch's long chains,
    and a chain launch's every case, at the launch's rows per lane, the others at the least), and
    where a follower records the long chains (configure), their copy at the follower's widths
    (plan.followed_tasks: the least). Per case and width once, summed per launch (a split tries
    many). The 8-row bound (move_words_many) is not one: a 10-set launch's followed chains took
    18.42 GB of moves against its 16.92 (the follower's copy comes on top of the plan's)."""

    def __init__(self, flat: FlatCases, ctype: str, tuning: Tuning = TUNING, rows_per_lane: int | None = None) -> None:
        self.flat, self.ctype, self.tuning, self.rows_per_lane = flat, ctype, tuning, rows_per_lane
        self._sums: dict[tuple[int, int], np.ndarray] = {}

    def _sum(self, floor: int, R: int) -> np.ndarray:
        """(C+1,) running sums of each case's moves at ``floor`` in a launch of ``R`` rows per lane."""
        if (floor, R) not in self._sums:
            words = case_move_words(self.flat, R, floor)
            self._sums[floor, R] = np.concatenate([[0], np.cumsum(words)])
        return self._sums[floor, R]

    def of(self, a: int, b: int) -> int:
        """Words of a launch of cases [a, b)."""
        t = self.tuning
        R, least, follow = launch_widths(b - a, self.ctype, True, t, self.rows_per_lane)
        if t.chain_bound(b - a):
            return int(self._sum(R, R)[b] - self._sum(R, R)[a])
        floor = min(least, R)
        long = a + np.asarray(long_chains(self.flat.K[a:b], t), dtype=np.int64)
        at = lambda f: self._sum(f, R)[long + 1] - self._sum(f, R)[long]  # noqa: E731
        if t.recompute and not follow:  # the followed copies, then each other case's scratch
            scratch = self._scratch(R)
            return int(at(least).sum() + (scratch[b] - scratch[a]) - (scratch[long + 1] - scratch[long]).sum())
        words = self._sum(floor, R)[b] - self._sum(floor, R)[a] + (at(R) - at(floor)).sum()
        return int(words + (0 if follow else at(least).sum()))

    def _scratch(self, R: int) -> np.ndarray:
        """(C+1,) running sums of each case's scratch words (plan.strip_scratch_units)."""
        if (0, R) not in self._sums:
            self._sums[0, R] = np.concatenate([[0], np.cumsum(scratch_words(self.flat, R))])
        return self._sums[0, R]


# A call's move storage is at least this share of the move budget (Tuning.move_budget: 2^34 bytes,
# so 2^32): nearby calls take one size, so each reuses the storage (kept buffers, or CuPy's free
# blocks) of the calls before. Where walks recompute moves (Tuning.recompute) a paper set's traced
# call takes 0.55-3.17 GB of moves (24 seeds) and a 10-set call's launches 0.49-2.18 GB each (13
# seeds, 3 held at once): at their own sizes spliced_cold's paper set (seed 1830001, 2.28 GB, after
# the warm-up's 0.71 GB and 3 x 1.25 GB) made its move storage mid-call (a 2.28 GB cudaMalloc; pool
# model). The cost: a paper set's call holds 4.3 GB of move storage, a 10-set call's 3 x 4.3 = 12.9
# GB (against 1.5-5.4 GB). Where the floor would put a launch above its share of the free memory,
# the call's own (plan_launches). Larger storage keeps its own size (a paper set recording every
# move, 10.9 GB, rounded up to 12.9 left a larger free block in the moves' arena, which a later
# call with 1 GiB free outside CuPy's pool counted as free for its rows: out of memory).
MOVES_FLOOR = 1 / 4

# A call's move storage within this share of Tuning.move_budget below it is made the budget's
# size: launches split by the budget take nearly all of it (10 paper sets: 17.13-17.18 GB of moves,
# the budget 2^34 bytes), and a call's moves a few MB above the last one's found no free block of
# CuPy's pool that large (its move arena held the last call's): its fallback freed ~65 GB and made
# ~71 GB at the call's start (pool model, an H100). Raised at most budget/16 where the launch's
# moves alone take 15/16 of it: within the 10% of the free memory a call leaves (MEMORY_USE).
MOVES_NEAR_BUDGET = 1 / 16


def move_storage(nbytes: int, tuning: Tuning = TUNING) -> int:
    """Bytes of move storage for a call whose largest recording launch records ``nbytes`` of
    moves: at least MOVES_FLOOR of the move budget's bytes, the budget's bytes where ``nbytes``
    lies within MOVES_NEAR_BUDGET of it below, else ``nbytes``."""
    budget = 4 * tuning.move_budget
    if budget * (1 - MOVES_NEAR_BUDGET) <= nbytes < budget:
        return budget
    return max(int(budget * MOVES_FLOOR), nbytes)


def launch_move_words(flat: FlatCases, ctype: str, tuning: Tuning = TUNING, rows_per_lane: int | None = None) -> int:
    """uint32 words of move storage a recording launch of the cases ``flat`` takes (MoveWords)."""
    return MoveWords(flat, ctype, tuning, rows_per_lane).of(0, len(flat))


def _one_launch(flat: FlatCases, moves: MoveWords, bare: int, room: int, rows_per_lane: int, tuning: Tuning) -> bool:
    """Whether a recording throughput launch of all of ``flat`` fits the call's ``room`` (bytes: its
    ``bare`` bytes but moves and its move storage, MoveWords' exact count) and the row and move
    budgets. Split by the cases' bounds (case_bytes: each long chain's moves at the 8-row bound)
    where its walks recompute moves (Tuning.recompute), a paper set whose one launch takes 2.71 GB
    of moves became two chain launches of its long chains, each recording all of theirs (1.48 GB),
    and two throughput launches: a call's move buffers of 2 x 1.48 GB held at once, where the call
    before had left one free block of 2.86 GB (seeds 1506001 then 1505000, 1 GiB free outside
    CuPy's pool: its fallback freed the pool mid-call), and four launches' kernels for one."""
    C = len(flat)
    if tuning.chain_bound(C):
        return False
    words = moves.of(0, C)
    return (words <= tuning.move_budget and launch_rows(flat, rows_per_lane) <= tuning.row_budget
            and bare + 4 * words <= room)


def _moves_fit(moves: MoveWords, budget: int, a: int, b: int) -> bool:
    """Whether a recording launch of cases [a, b) keeps its moves within ``budget`` words."""
    return moves.of(a, b) <= budget


def longest_fitting(a: int, b: int, fits: Callable[[int], bool], tuning: Tuning = TUNING) -> int:
    """The end e in (a, b] of the longest run [a, e) that ``fits`` (a case alone always), found
    by bisection among throughput launches first (a chain launch's wider strips take more than
    the same cases' in a throughput launch, so a run's fitting is not monotone across them)."""
    if fits(b):
        return b
    least = a + tuning.throughput_cases
    lo, hi = (least, b - 1) if least < b and fits(least) else (a + 1, min(b, least) - 1)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return max(lo, a + 1)


def wide_scores(flat: FlatCases, scoring: Scoring, tuning: Tuning = TUNING,
                rows_per_lane: int | None = None) -> np.ndarray:
    """(C,) whether each case needs int64 scores ("long long") at the widest strips a launch
    may hold."""
    widest = rows_per_lane or tuning.widest()
    return shifted_bound(flat.m, flat.n, scoring, WARP * widest) >= 2 ** (NEG_SHIFT_INT - 1)


def launch_sizes(flat: FlatCases, ctype: str, record: bool, gather: bool, free: int, tuning: Tuning = TUNING,
                 rows_per_lane: int | None = None) -> np.ndarray:
    """(C,) the device bytes each case takes at most in a launch of score type ``ctype`` (``record``,
    ``gather``: case_bytes') at ``rows_per_lane`` (default: a throughput launch's; a recording
    chain launch's: chain_sizes); GpuMemoryError (one line) when a case cannot fit in ``free`` bytes."""
    R = rows_per_lane or tuning.rows_per_lane
    sizes = case_bytes(flat, R, score_dtype(ctype).itemsize, record, gather, tuning if R <= DENSE_LANE_ROWS else None)
    _fits(flat, sizes, free)
    return sizes


def chain_sizes(flat: FlatCases, ctype: str, free: int, tuning: Tuning = TUNING) -> np.ndarray:
    """(C,) the device bytes each case takes at most in a recording chain launch (fewer than
    throughput_cases cases: chain_rows_per_lane rows per lane, its moves recorded by a follower);
    GpuMemoryError (one line) when a case cannot fit in ``free`` bytes. Only such a launch is sized
    by them: a throughput launch's bound at the chain width took ~31 GB for the ~19 GB a 10-set
    recording launch holds (H100), and two of them filled the call's room where three fit."""
    sizes = case_bytes(flat, tuning.chain_rows_per_lane, score_dtype(ctype).itemsize, True, False)
    _fits(flat, sizes, free)
    return sizes


def _fits(flat: FlatCases, sizes: np.ndarray, free: int) -> None:
    """GpuMemoryError (one line) naming the largest case where it cannot fit in ``free`` bytes."""
    if sizes.size:
        big = int(np.argmax(sizes))
        device.require_memory(int(sizes[big]), int(free * MEMORY_USE), f"case {flat.cases[big].name!r}")


def score_sizes(flat: FlatCases, free: int, tuning: Tuning = TUNING,
                rows_per_lane: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(row elements, device bytes) each case of a score launch with int scores takes at most
    (``batches``' budgets; plan_launches' sizes of a call without traceback); GpuMemoryError
    (one line) when a case cannot fit in ``free`` bytes."""
    sizes = launch_sizes(flat, "int", False, False, free, tuning, rows_per_lane)
    return _storage(flat, rows_per_lane or tuning.rows_per_lane)[0], sizes


class Cutter:
    """Where the int-score launches of a call without traceback end, decided as its cases are
    split chunk by chunk (GpuSolver._streamed) by ``batches``' rule: a launch ends before the
    first case that would exceed the row budget or its share of the device memory (``share``,
    memory_split's). The first one holds about Tuning.first_launch_share of both where the cases
    split so far say that the call needs more than one launch, each next one at most
    Tuning.launch_growth times the one before (0: as much as the budgets hold)."""

    def __init__(self, share: int, cases: int, tuning: Tuning = TUNING) -> None:
        self.full = np.array([tuning.row_budget, share], dtype=float)  # (row elements, bytes) of a launch
        self.cases, self.tuning = cases, tuning
        self.closed = 0                  # launches ended so far
        self.held = np.zeros(2)          # (row elements, bytes) of the open launch
        self.count = 0                   # its cases
        self.seen = 0                    # cases taken so far, all launches
        self.seen_held = np.zeros(2)     # their (row elements, bytes)
        self.last = np.zeros(2)          # those of the launch ended last

    def _caps(self, upcoming: np.ndarray) -> np.ndarray:
        """(row elements, bytes) the open launch may hold; ``upcoming``: the next cases' (2, k)."""
        t = self.tuning
        if self.closed:
            return np.minimum(self.full, self.last * t.launch_growth) if t.launch_growth else self.full
        if t.first_launch_share >= 1:
            return self.full
        # the call's as the cases split so far say: the first launch smaller only where more
        # than one follows (a call that fits one launch is fed, feed.py)
        whole = (self.seen_held + upcoming.sum(axis=1)) / (self.seen + upcoming.shape[1]) * self.cases
        return self.full * t.first_launch_share if (whole > self.full).any() else self.full

    def take(self, rows: np.ndarray, sizes: np.ndarray) -> int:
        """How many of the next cases (each one's row elements and device bytes, in order) the
        open launch takes: fewer than all ends it (the rest start the next one)."""
        held = np.stack([np.cumsum(rows), np.cumsum(sizes)])
        caps = self._caps(np.stack([rows, sizes]))

        def fits(limit: np.ndarray) -> int:
            return min(int(np.searchsorted(held[i], limit[i] - self.held[i], side="right")) for i in range(2))

        fit = fits(caps)
        if (caps < self.full).any() and fit < rows.size:
            # a smaller launch: at least throughput_cases cases, and none of a few cases after it
            # (each launch costs its kernel's tail): the rest taken where they are less than a
            # quarter of it and fit the budgets (as the cases so far say)
            full = fits(self.full)
            rest = (self.held + held[:, -1] + (self.cases - self.seen - rows.size) * self.seen_held
                    / max(1, self.seen)) if self.seen else self.full + 1
            after = self.cases - self.seen - fit
            if full == rows.size and (rest <= self.full).all() and 4 * after < self.count + fit:
                fit = full
            fit = max(fit, min(self.tuning.throughput_cases - self.count, full))
        fit = min(max(fit, 0 if self.count else 1), rows.size)
        took = held[:, fit - 1] if fit else np.zeros(2)
        self.held += took
        self.seen_held += took
        self.count += fit
        self.seen += fit
        if fit < rows.size:
            self.closed, self.last = self.closed + 1, self.held
            self.held, self.count = np.zeros(2), 0
        return fit

    def estimate(self) -> int:
        """About how many more cases the open launch takes (as the cases so far took)."""
        if not self.seen:
            return self.cases
        per_case = np.maximum(1.0, self.seen_held / self.seen)
        return max(0, int(((self._caps(per_case[:, None]) - self.held) / per_case).min()))


def collected_first(held: Sequence[int], size: int, room: int) -> int:
    """How many of the oldest queued launches (``held``: their device bytes, oldest first) are
    collected before a launch of ``size`` bytes is queued: until it fits beside the rest in
    ``room`` (GpuSolver._solve_many's rule)."""
    total, k = sum(held), 0
    while k < len(held) and total + size > room:
        total -= held[k]
        k += 1
    return k


def queued_at_most(sizes: Sequence[int], room: int, counts: Sequence[int] | None = None) -> int:
    """The most device bytes that launches of ``sizes`` bytes take at once, queued in order,
    the oldest collected first as ``collected_first`` says; with ``counts`` (one per launch), the
    most that the launches held at once count (GpuSolver._split: the recording ones, each holding
    a move buffer)."""
    held: list[int] = []  # the launches held, by index
    most = 0
    for i, size in enumerate(sizes):
        del held[:collected_first([sizes[j] for j in held], size, room)]
        held.append(i)
        most = max(most, sum(sizes[j] if counts is None else counts[j] for j in held))
    return most


def long_chains_first(flat: FlatCases, sel: np.ndarray, tuning: Tuning) -> np.ndarray:
    """The cases ``sel`` of a launch with its long chains (long_chains) first, the others after
    them, each in their order."""
    if tuning.chain_bound(sel.size):
        return sel
    long = np.asarray(long_chains(flat.K[sel], tuning), dtype=np.int64)
    if not long.size or (long == np.arange(long.size)).all():
        return sel
    return np.concatenate([sel[long], np.delete(sel, long)])


def long_chains(cases: Sequence[TestCase] | FlatCases | np.ndarray, tuning: Tuning = TUNING) -> list[int]:
    """Indices of the cases of a throughput launch whose moves a follower records (see
    Tuning.long_chain_share) and that a fed launch spreads over its windows (feed.py): fewer
    than throughput_cases of them, none in a chain-bound launch. ``cases``: or their K."""
    K = cases if isinstance(cases, np.ndarray) else FlatCases.of(cases).K
    if tuning.chain_bound(K.size):
        return []
    long = np.flatnonzero(K >= tuning.long_chain_share * K.max()).tolist()
    return long if tuning.chain_bound(len(long)) else []


def late_folds(cases: Sequence[TestCase] | FlatCases, tuning: Tuning = TUNING) -> np.ndarray:
    """Whether each case of a launch places its folds late (Tuning.late_folds): in a throughput
    launch, every case."""
    return np.full(len(cases), tuning.late_folds and not tuning.chain_bound(len(cases)))


def walks(cases: Sequence[TestCase] | FlatCases, followed: Sequence[int] = (),
          tuning: Tuning = TUNING) -> list[list[int]]:
    """Case indices of a recording launch by device walk, in walk order (Tuning.walk_shares):
    the other cases by their paths' share of the longest, then the ``followed`` cases; no
    empty walk."""
    paths = FlatCases.of(cases).longest_paths()
    rest = np.setdiff1d(np.arange(paths.size), np.asarray(followed, dtype=np.int64))
    share = paths[rest] / max(1, int(paths[rest].max(initial=0)))
    part = np.searchsorted(np.asarray(tuning.walk_shares, dtype=float), share, side="left")
    parts = [rest[part == i].tolist() for i in range(len(tuning.walk_shares) + 1)]
    return [w for w in parts + [list(followed)] if w]


def lane_rows_floor(cases: Sequence[TestCase] | FlatCases, rows_per_lane: int, least: int | None = None,
                    tuning: Tuning = TUNING) -> np.ndarray:
    """Fewest rows per lane a strip of each case of a launch, whose kernel holds up to
    ``rows_per_lane`` and sweeps down to ``least`` (default MIN_LANE_ROWS; per score type:
    plan.least_lane_rows), may use: ``least`` in a throughput launch (short strips waste
    fewer lanes), except for its long chains (long_chains) and in a chain-bound launch, where
    every strip takes the launch's rows per lane (fewer lanes per exon, a shorter hop on the
    chain)."""
    flat = FlatCases.of(cases)
    least = least_lane_rows("int") if least is None else least
    floors = np.full(len(flat), rows_per_lane if tuning.chain_bound(len(flat)) else min(least, rows_per_lane),
                     dtype=np.int64)
    floors[long_chains(flat, tuning)] = rows_per_lane
    return floors


def grid(tasks: int, sms: int, blocks_per_sm: int = BLOCKS_PER_SM) -> int:
    """Blocks of a persistent launch: one warp per task at most, at most ``blocks_per_sm`` per SM."""
    per_block = THREADS // WARP
    return max(1, min((tasks + per_block - 1) // per_block, sms * blocks_per_sm))
