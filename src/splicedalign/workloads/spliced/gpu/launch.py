"""Batching of test cases into `gpu` launches and the launch's shape (pure)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from splicedalign.workloads.spliced.records import TestCase
from splicedalign.workloads.spliced.gpu.plan import (BLOCKS_PER_SM, COLS, MIN_LANE_ROWS, THREADS, WARP, longest_paths,
                                                      move_words, round_up)

# Row storage of one launch (elements); 32-bit offsets and a few GiB of device memory.
ROW_BUDGET = 2**30
# Move storage of one launch that records moves (uint32 words, 8 GiB): two launches in flight
# and their rows stay well inside an 80 GB GPU.
MOVE_BUDGET = 2**31
# Rows each lane holds in registers (strips of 32 * ROWS_PER_LANE rows) for int scores; the
# int64 variants hold WIDE_ROWS_PER_LANE (more would spill registers). docs/gpu.md has the
# measurements behind the choice.
ROWS_PER_LANE = 8
WIDE_ROWS_PER_LANE = 4
# A chain-bound launch (fewer than THROUGHPUT_CASES cases) holds CHAIN_ROWS_PER_LANE rows per
# lane for int scores: on its dependent chain every step waits about one L2 round trip for
# the producer's next block (docs/gpu.md, run J's timeline), so a strip's skew costs round
# trips per lane, and half the lanes per exon halve it.
CHAIN_ROWS_PER_LANE = 16
# A launch of at least THROUGHPUT_CASES cases is throughput-bound (independent cases keep every
# SM busy): its short strips run with fewer rows per lane, down to MIN_LANE_ROWS, which wastes
# fewer lanes, except its long chains' (long_chains). A launch of fewer cases is bound by its
# cases' dependent chains of exons, where every strip hop costs a lane skew of fixed-cost steps:
# all strips use the launch's rows per lane (CHAIN_ROWS_PER_LANE: fewer lanes, fewer steps per
# hop). docs/gpu.md has the measurements (runs B, K, AF).
THROUGHPUT_CASES = 64
# Blocks per SM of a launch of fewer cases: most of its warps wait on the chain, and fewer of
# them polling leave the chain's warps more issue slots and L2 (IL1RAPL1 12.1 -> 10.9 ms at 1
# block per SM against all that fit; docs/gpu.md, run J's timeline). The follower that records
# moves beside such a launch gets as many, so both are resident.
CHAIN_BLOCKS_PER_SM = 1
# A throughput launch that records moves ends with its longest dependent chains, slowed by the
# recording on their every step (docs/gpu.md, run N: the paper set's five K = 622 cases alone
# 9.0 ms with a follower, its other 1,005 cases 11.4 ms, together 20.5 ms). The strips of the
# cases with at least LONG_CHAIN_SHARE of the most exons are computed at score speed and a
# follower records their moves on the SMs the launch leaves in its tail (plan.followed_tasks).
LONG_CHAIN_SHARE = 0.5
# In a throughput launch a fold waits for its exon's last strip, in a warp that could run a
# strip: placed in its case's order right after that strip's exon, it spins for most of the
# strip's sweep (the paper set: 74% of folds were taken within the ~3,200 tasks the GPU runs
# at once of their exon's last strip). LATE_FOLDS places each fold q of such a launch's cases
# (not its long chains': their folds are on their chain) as late as its consumers allow: before
# the first exon whose first strip reads it (plan._plan_tasks). Those cases' folds that an
# exon's entry row equals are no tasks at all where the kernel can write them (plan.entry_folds,
# docs/gpu.md run BW): on a chain such a fold would come at the pace of the exon that writes it,
# one entry-row window behind (IL1RAPL1 +2%), so chains keep them as tasks.
LATE_FOLDS = True
# Blocks per SM of that follower. Fewer than the recording kernel's MIN_BLOCKS_PER_SM, so that
# the kernel, whose rows the follower waits for, always has a block's room on every SM even if
# the block scheduler starts the follower first (at 3, all an SM holds, it could fill every SM
# and wait for rows no running warp would write). At 2 the follower starved the first device
# walk beside it (ready 3.7 ms after the kernel, against 1.5 at 1), and the host waited for
# that walk's records: 1 ends the call 0.2-1.9 ms earlier though the follower ends 1 ms later
# (docs/gpu.md, runs AX and AY).
FOLLOW_BLOCKS_PER_SM = 1

# The device walk of a recording launch (trace_chains, one warp per case) lasts as long as its
# longest path, and the host turns a walk's output into records only once it is done. So the
# walk comes in parts, by each case's longest possible path as a share of the longest one's:
# at most WALK_SHARES[0] first (the paper set: 202 of 1,010 cases), at most WALK_SHARES[1] next
# (361), ..., then the rest, then the long chains a follower records (after it): the host
# builds each part's records while the GPU walks the next. Early parts let the host start
# early: on a host slow enough that the records end the call, a first part at 0.1 instead of
# 0.2 took 0.5 ms off the traced paper set (docs/gpu.md, run CG; 0.2 against 0.5: run AY).
WALK_SHARES = (0.1, 0.2)


def _storage(cases: Sequence[TestCase], rows_per_lane: int) -> tuple[np.ndarray, np.ndarray]:
    """(row elements, move words) each case needs: one row per strip and one per fold (at
    most K folds); moves at most (plan.py, "Moves": strips with fewer rows per lane take less)."""
    P = WARP * rows_per_lane
    K = np.fromiter((c.K for c in cases), dtype=np.int64, count=len(cases))
    lengths = np.concatenate([c.last_sorted - c.first_sorted for c in cases]) + 1
    strips = np.add.reduceat((lengths + P - 1) // P, np.cumsum(K) - K)
    n = np.fromiter((c.n for c in cases), dtype=np.int64, count=len(cases))
    return (strips + K) * round_up(n + 1), strips * (n // COLS + WARP) * WARP * move_words(rows_per_lane)


def move_words_many(cases: Sequence[TestCase], rows_per_lane: int) -> np.ndarray:
    """Move storage each case needs at most."""
    return _storage(cases, rows_per_lane)[1]


def row_elements(case: TestCase, rows_per_lane: int) -> int:
    """Row storage one case needs."""
    return int(_storage([case], rows_per_lane)[0][0])


def batches(cases: Sequence[TestCase], rows_per_lane: int, budget: int = ROW_BUDGET,
            move_budget: int | None = None) -> list[list[int]]:
    """Consecutive runs of case indices whose row storage fits ``budget`` and, for launches
    that record moves, whose move storage fits ``move_budget`` (a case that alone exceeds
    them gets a launch of its own)."""
    out: list[list[int]] = []
    rows, words = _storage(cases, rows_per_lane)
    sizes = rows.tolist()
    moves = words.tolist() if move_budget else [0] * len(sizes)
    used = used_moves = None
    for i, (size, move) in enumerate(zip(sizes, moves)):
        if used is None or used + size > budget or (move_budget and used_moves + move > move_budget):
            out.append([])
            used = used_moves = 0
        out[-1].append(i)
        used += size
        used_moves += move
    return out


def chain_bound(cases: int) -> bool:
    """Whether a launch of ``cases`` cases is bound by its dependent chains (else throughput)."""
    return cases < THROUGHPUT_CASES


def long_chains(cases: Sequence[TestCase]) -> list[int]:
    """Indices of the cases of a throughput launch whose moves a follower records (see
    LONG_CHAIN_SHARE): fewer than THROUGHPUT_CASES of them, none in a chain-bound launch."""
    if chain_bound(len(cases)):
        return []
    K = np.fromiter((c.K for c in cases), dtype=np.int64, count=len(cases))
    long = np.flatnonzero(K >= LONG_CHAIN_SHARE * K.max()).tolist()
    return long if chain_bound(len(long)) else []


def late_folds(cases: Sequence[TestCase]) -> np.ndarray:
    """Whether each case of a launch places its folds late (LATE_FOLDS): in a throughput
    launch, every case but its long chains."""
    late = np.full(len(cases), LATE_FOLDS and not chain_bound(len(cases)))
    late[long_chains(cases)] = False
    return late


def walks(cases: Sequence[TestCase], followed: Sequence[int] = ()) -> list[list[int]]:
    """Case indices of a recording launch by device walk, in walk order (see WALK_SHARES):
    the other cases by their paths' share of the longest, then the ``followed`` cases; no
    empty walk."""
    paths = longest_paths(cases)
    rest = np.setdiff1d(np.arange(len(cases)), np.asarray(followed, dtype=np.int64))
    share = paths[rest] / max(1, int(paths[rest].max(initial=0)))
    part = np.searchsorted(np.asarray(WALK_SHARES, dtype=float), share, side="left")  # share <= WALK_SHARES[part]
    parts = [rest[part == i].tolist() for i in range(len(WALK_SHARES) + 1)]
    return [w for w in parts + [list(followed)] if w]


def lane_rows_floor(cases: Sequence[TestCase], rows_per_lane: int, least: int | None = None) -> np.ndarray:
    """Fewest rows per lane a strip of each case of a launch, whose kernel holds up to
    ``rows_per_lane`` and sweeps down to ``least`` (default MIN_LANE_ROWS; per score type:
    plan.least_lane_rows), may use: ``least`` in a throughput launch (short strips waste
    fewer lanes), except for its long chains (long_chains) and in a chain-bound launch, where
    every strip takes the launch's rows per lane (fewer lanes per exon, a shorter hop on the
    chain)."""
    least = MIN_LANE_ROWS if least is None else least
    floors = np.full(len(cases), rows_per_lane if chain_bound(len(cases)) else min(least, rows_per_lane),
                     dtype=np.int64)
    floors[long_chains(cases)] = rows_per_lane
    return floors


def launch_rows_per_lane(cases: int) -> int:
    """Rows per lane (int scores) of a launch of ``cases`` cases."""
    return CHAIN_ROWS_PER_LANE if chain_bound(cases) else ROWS_PER_LANE


def blocks_per_sm(cases: int) -> int:
    """Blocks per SM a launch of ``cases`` cases is given (at most what fits)."""
    return CHAIN_BLOCKS_PER_SM if chain_bound(cases) else BLOCKS_PER_SM


def grid(tasks: int, sms: int, blocks_per_sm: int = BLOCKS_PER_SM) -> int:
    """Blocks of a persistent launch: one warp per task at most, at most ``blocks_per_sm`` per SM."""
    per_block = THREADS // WARP
    return max(1, min((tasks + per_block - 1) // per_block, sms * blocks_per_sm))
