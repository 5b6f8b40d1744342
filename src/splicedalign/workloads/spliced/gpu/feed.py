"""A `gpu` launch planned in steps while its kernel already runs (a fed launch).

A never-seen data set's planning came before its kernel: on the H100 host the paper set's
11 ms of host work (split, planning, upload) preceded a 10.6 ms kernel. A fed launch starts
its persistent kernel on an empty task list and hands it the tasks step by step: the host plans
a step's cases (``plan.plan_tasks``, in slot order), encodes their letters itself (the kernel
holds every SM, so no encoding kernel could run beside it) and uploads the codes, then that
step's window of the launch order (the codes' copy runs while the window is placed: a window
reached the kernel ~0.2 ms after the host wrote it, against ~0.3 with both copied after it, H100);
after each window a small copy raises the count of tasks ready, which the
kernel's warps poll before they read a task (wavefront.cu, ``wavefront``'s feed).

Order. Warps take tasks in launch order and a task's producers come before it, so a warp spins
only on work that running warps hold (as in any launch); a warp past the ready count waits for
the host, which never waits for the GPU. Each case lies in one step (its rows, letters and
selectors are planned with it). Window w holds the step's cases, interleaved by relative
position (``plan._launch_order``) as a launch does, and, spread over every window, the
launch's long chains (``launch.long_chains``, planned in step 0): a chain crammed into one
window would hold hundreds of warps spinning on its next hand-off, as the paper set's five
K = 622 chains would (27% of its cells). A long chain's slot at relative position x goes to
the window whose share of the other cases' cells covers x - ``Tuning.long_chain_ahead`` (a
window ahead of the chain's path, which would otherwise use up a window before the next lands).

Memory. Row storage, the tasks, codes and selectors are allocated for the launch at once,
from bounds (``Feeder.sizes``); each step's codes and selectors start a 128-byte line of their
own (FEED_ALIGN): the kernel reads them through the non-coherent cache, where a line shared
with a later step's region, read before that step's upload, would stay stale. Tasks are read
through L2 (ld.cg): windows are written while the kernel runs.

Recording (Tuning.feed_record): a traced call's launch, which records moves, is fed as well.
Its long chains' strips record none in the kernel (score speed on the chain, as a planned
recording launch's, plan.followed_tasks): step 0 holds every long chain, so once it is planned
the follower's tasks are known (``Feeder.follow``: those strips interleaved by relative
position, their moves after step 0's, later steps' after them); the solver starts the follower
right after window 0, and after the feed the walks read the whole launch's tasks with the
follower's lane rows and moves (``Feeder.walked``). Move storage comes from a bound (``sizes``).

The whole launch's Plan (``Feeder.plan``, in batch order) is what a planned launch has: the
solver caches it with the device inputs, and a replay runs it as any launch.

Nothing the host does once the kernel runs may stall: a warp past the tasks ready waits at most
WAIT_LIMIT_CYCLES (~10 s) for the next window, then the launch fails ("a wavefront wait ran
out"). On a fresh H100 machine (numba's cache empty) the first fed call failed so: the feed's
passes compiled while the kernel waited (the spliced host code compiles for ~19 s there). So
the solver loads every compiled pass of a feed before it starts a fed kernel (``load_passes``:
a feed of a few small cases on the host, once per process; compiled where the cache lacks
them), and the install step (``python -m splicedalign.kernels host``) runs it too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import cache
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu.flat import PARALLEL, FlatCases
from splicedalign.workloads.spliced.gpu.launch import LaunchConfig, Tuning
from splicedalign.workloads.spliced.gpu.plan import (
    F_LANE_ROWS,
    F_MOVES,
    LETTER_CODES,
    MOVE_UNIT,
    NFIELDS,
    NONE,
    SEL_SIGN,
    SEL_SPREAD,
    TARGET_MARGIN,
    WARP,
    Plan,
    Tasks,
    _follower,
    _launch_order,
    byte_profile_ok,
    finals_at,
    input_index,
    last_row_places,
    order_ranges,
    plan_tasks,
    round_up,
    target_stride,
)
from splicedalign.workloads.spliced.records import Scoring, TestCase

FEED_ALIGN = 128  # bytes: where each step's base codes and selectors start (module doc)
PAD_LETTER = ord("A")  # Plan.base_letters between steps' regions (no task reads them)


class Window(NamedTuple):
    """Where one step's uploads lie in the caller's staging (Feeder.steps): its window of the
    launch order (task records first .. first + count - 1) and its step's codes and selectors."""
    first: int
    count: int
    base_at: int
    base_size: int
    tsel_at: int
    tsel_size: int


class Sizes(NamedTuple):
    """Upper bounds of a fed launch's device storage (allocated before any step is planned)."""
    tasks: int
    base: int   # bytes
    tsel: int   # int32 elements
    rows: int   # row elements
    moves: int  # uint32 words (a recording launch's, its follower's included; else 0)
    follow: int  # the follower's task records (a recording launch's long chains' strips; else 0)


def step_bounds(cells: np.ndarray, long: int, shares: Sequence[float]) -> list[int]:
    """Where each step's cases start, then C: the first ``long`` cases (a launch's long chains,
    first in its order) and the other cases in consecutive runs, about ``shares`` of their
    cells each (the rest last); no empty step."""
    C = cells.size
    rest = np.cumsum(cells[long:], dtype=np.float64)
    total = rest[-1] if rest.size else 0.0
    bounds = [0]
    for share in np.cumsum(shares):
        b = long + int(np.searchsorted(rest, share * total, side="right")) if total else C  # <= C
        if bounds[-1] < b < C:
            bounds.append(b)
    bounds.append(C)
    if len(bounds) > 2 and bounds[1] <= long:  # step 0 holds every long chain
        bounds.pop(1)
    return bounds


class Feeder:
    """One fed launch of the cases ``flat`` (its long chains first: ``long`` of them), planned in
    the steps ``step_bounds`` gives; ``steps`` yields each step's Window, then ``plan`` is the
    launch's Plan."""

    def __init__(self, flat: FlatCases, rows_per_lane: int, floors: np.ndarray, late: np.ndarray,
                 entry: np.ndarray, long: int, shares: Sequence[float], follow_least: int | None = None,
                 lead: float = 1.0, ahead: float = 0.0) -> None:
        self.flat, self.R, self.floors, self.late, self.entry = flat, rows_per_lane, floors, late, entry
        self.long = long
        self.lead = lead  # the long chains' slots at lead * their relative position (Tuning.long_chain_lead)
        self.ahead = ahead  # ... in the window of that - ahead (Tuning.long_chain_ahead)
        # a recording launch (follow_least: its follower's fewest rows per lane): its long chains'
        # moves recorded by a follower that starts after window 0 (module doc, "Recording")
        self.follow_least = follow_least
        self.follow: np.ndarray | None = None  # the follower's tasks, once step 0 is planned
        self._follow_slots = np.zeros(0, np.int64)  # step 0's slot of each follower task
        self._head = np.zeros((0, NFIELDS), np.int32)  # step 0's records as the windows hand them over
        self._done = 0  # windows handed over
        self._order = np.zeros(0, np.int64)  # each slot's place in the whole launch's order (plan)
        self.bounds = step_bounds(flat.cells, long, shares)
        rest = flat.cells[long:]
        other = np.concatenate([[0], np.cumsum(rest)])
        # window boundaries of a long chain's relative positions: the other cases' share of cells before each step
        edges = [other[max(b - long, 0)] / max(other[-1], 1) for b in self.bounds[1:-1]]
        self.edges = np.asarray(edges, dtype=np.float64)
        self._steps: list[Tasks] = []
        self._orders: list[np.ndarray] = []  # each step's cases' FlatCases.order (laid out for its planning)
        self._long_case = self._long_window = np.zeros(0, np.int64)  # per long chain slot: its case, its window

    @classmethod
    def of(cls, flat: FlatCases, config: LaunchConfig, tuning: Tuning) -> Feeder | None:
        """The Feeder of a launch of the cases ``flat`` configured ``config``, in the steps of
        ``tuning.feed_shares``: its long chains (launch.long_chains) spread over the windows
        where they come first in its order (launch.plan_launches puts them there), else none;
        None where it would be one step."""
        long = launch.long_chains(flat, tuning)
        first = long == list(range(len(long)))
        if config.record and (not first or config.followed != tuple(long)):
            return None  # a recording launch is fed with its followed long chains first only
        fed = cls(flat, config.rows_per_lane, config.floors, config.late, config.entry, len(long) if first else 0,
                  tuning.feed_shares, config.least if config.record else None, tuning.long_chain_lead,
                  tuning.long_chain_ahead)
        return fed if len(fed) > 1 else None

    def __len__(self) -> int:
        return len(self.bounds) - 1

    def sizes(self) -> Sizes:
        """Upper bounds of the tasks (strips and at most K folds per case), base codes (each
        step's exon rows, at most their lengths' sum), selectors, row storage (one row per
        task) and, recording (``follow_least`` given), moves (launch.move_words_many: every
        strip at the launch's rows per lane; the long chains' twice: the follower's region
        besides theirs) and the follower's records (one a long chain's strip). At most twice
        the launch's device bytes (launch.case_bytes counts the moves once), so a fed launch,
        its call's only one, keeps within the call's room (two launches of that size:
        launch.memory_split)."""
        flat, P = self.flat, WARP * self.R
        tasks = flat.strips(P) + flat.K
        steps = len(self)
        moves = follow = 0
        if self.follow_least is not None:
            words = launch.move_words_many(flat, self.R)
            moves = int(words.sum() + words[:self.long].sum())
            follow = int(flat.strips(P)[:self.long].sum())  # one record a strip (_follower)
        return Sizes(int(tasks.sum()), int(flat.exon_sums.sum()) + steps * FEED_ALIGN,
                     int(target_stride(flat.n).sum()) + steps * (TARGET_MARGIN + FEED_ALIGN // 4),
                     launch.launch_rows(flat, self.R), moves, follow)

    def steps(self, tasks: np.ndarray, base: np.ndarray, tsel: np.ndarray,
              coded: Callable[[int, int, int, int], None] | None = None) -> Iterator[Window]:
        """Each step planned and its window written, in order, into ``tasks`` (records by launch
        index), ``base`` (codes) and ``tsel`` (selectors), arrays of at least ``sizes`` (the
        caller's pinned staging: written in place, no copy); a generator: the caller uploads a
        step's part before the next is planned. ``coded(base_at, base_size, tsel_at, tsel_size)``
        is called once a step's codes and selectors are written, before its window's records
        are placed: their copy (most of a window's bytes) runs meanwhile."""
        rows0 = base0 = tgt0 = moves0 = first = 0
        for j, (a, b) in enumerate(zip(self.bounds[:-1], self.bounds[1:])):
            sub = self.flat.select(np.arange(a, b))
            got = plan_tasks(sub, self.R, self.floors[a:b], self.late[a:b], self.entry[a:b], interleave=False,
                             at=(rows0, base0, tgt0, moves0))
            base_size = round_up(got.base_letters.size, FEED_ALIGN)
            tsel_size = round_up(got.target_size - tgt0, FEED_ALIGN // 4)
            with PARALLEL:
                _encode_step(got.base_letters, got.target_letters, got.tgt_off - tgt0, sub.n, LETTER_CODES,
                             base[base0:base0 + base_size], tsel[tgt0:tgt0 + tsel_size])
            if coded is not None:
                coded(base0, base_size, tgt0, tsel_size)
            self._steps.append(got)
            self._orders.append(sub.order)
            if j == 0 and self.long:  # each long chain slot's window, by its relative position
                self._long_case, self._long_window = _long_windows(got.case_tasks[:self.long + 1], self.edges,
                                                                   self.lead, self.ahead)
            moves_end = got.moves_units
            if j == 0:
                self._head = got.tasks
                if self.follow_least is not None and self.long:
                    moves_end = self._followed(got)
            count = self._window(j, tasks, first)
            self._done = j + 1
            yield Window(first, count, base0, base_size, tgt0, tsel_size)
            first += count
            rows0, moves0 = got.rows_size, moves_end
            base0 += base_size
            tgt0 += tsel_size

    def _window(self, j: int, out: np.ndarray, first: int) -> int:
        """Window j's records written at launch indices ``first`` on: the long chains' slots
        whose relative position falls in it, then step j's other cases, interleaved; its size."""
        head, own = self._head, self._steps[j]
        seg, slots, heads = _window_slots(self._long_window, self._long_case, self.long, j, own.case_tasks,
                                          self.long if j == 0 else 0)
        with PARALLEL:
            local = _launch_order(seg, order_ranges(int(seg[-1])), self.long, self._span(int(seg[-1])))
            _scatter(out, first, local, slots, heads, head, own.tasks)
        return slots.size

    def _span(self, T: int) -> int:
        """The buckets a launch order of ``T`` slots spreads the long chains over (plan._interleave)."""
        return max(1, min(T, int(self.lead * T)))

    def rows_size(self) -> int:
        """Plan.rows_size (the row elements the launch writes), once every step is planned."""
        return self._steps[-1].rows_size

    def _followed(self, head: Tasks) -> int:
        """A recording launch's step 0 planned (``head``): the follower's tasks (``follow``:
        the long chains' strips, interleaved by relative position as a launch orders them, each
        at the fewest rows per lane from ``follow_least`` that hold it, moves from the step's
        end: plan.followed_tasks' records), the windows' copy of step 0's records with those
        strips' moves NONE (the kernel computes them at score speed); the end of the moves
        (where step 1's start)."""
        ct = head.case_tasks[:self.long + 1]
        L = int(ct[-1])
        with PARALLEL:
            at = _launch_order(ct, order_ranges(L), 0, L)  # each long chain slot's place in that order
        slot = np.empty(L, np.int64)
        slot[at] = np.arange(L)
        S = int(head.strip_start[self.flat.exon_start[self.long]])
        with PARALLEL:
            self.follow, ids, end = _follower(head.tasks[slot], self.flat.exon_start[:self.long + 1],
                                              head.strip_start, at[head.strip_task[:S]],
                                              np.arange(self.long, dtype=np.int64), self.follow_least,
                                              head.moves_units)
        self._follow_slots = slot[ids]
        self._head = head.tasks.copy()
        self._head[self._follow_slots, F_MOVES] = NONE
        return int(end)

    def rest(self, out: np.ndarray, first: int) -> int:
        """After a step raised: the long chains' slots of the windows not handed over, in slot
        order (each chain's in its order), written at ``first`` on; their count. A follower
        waits for every row of its chains: once they come it ends (their letters and records
        are step 0's, handed over already)."""
        if not self.long or not self._done:
            return 0
        slots = np.flatnonzero(self._long_window >= self._done)
        out[first:first + slots.size] = self._head[slots]
        return int(slots.size)

    def last_rows(self) -> np.ndarray:
        """(E,) Plan.last_row, once every step is planned (what the finals' gather reads)."""
        return np.concatenate([s.last_row for s in self._steps])

    def input_index(self) -> np.ndarray:
        """(E,) Plan.input_index, once every step is planned: from the steps' exon orders, laid
        out for their planning (the whole batch's FlatCases.order, laid out again after the feed,
        was a compiled pass over every exon: ~1 ms of a paper set's call after its last window on
        the development machine, most of it fresh pages)."""
        return input_index(self.flat, np.concatenate(self._orders))

    def plan(self) -> Plan:
        """The launch's Plan, once every step is planned, its cases in batch order and its tasks
        (the steps' records, unchanged) in the order of a launch planned whole: every case
        interleaved by relative position over the whole launch (``plan._launch_order``). The
        windows' order is for feeding only: a case crammed into its window keeps more warps
        waiting on its hand-offs, and a replay of the cached plan ran ~12% slower in it (paper
        set, H200: 14.3-15.7 ms against 12.5-14.6)."""
        flat, steps = self.flat, self._steps
        exons = np.cumsum([0] + [s.last_row.size for s in steps])
        strips = np.cumsum([0] + [s.strip_task.size for s in steps])
        slots = np.cumsum([0] + [s.tasks.shape[0] for s in steps])
        strip_start = np.concatenate([s.strip_start[:-1] + o for s, o in zip(steps, strips)] + [strips[-1:]])
        case_tasks = np.concatenate([s.case_tasks[:-1] + o for s, o in zip(steps, slots)] + [slots[-1:]])
        tasks = np.empty((int(slots[-1]), NFIELDS), np.int32)
        with PARALLEL:
            order = _launch_order(case_tasks, order_ranges(int(slots[-1])), self.long, self._span(int(slots[-1])))
            for s, a, b in zip(steps, slots[:-1], slots[1:]):
                _place(tasks, order[a:b], s.tasks)
        self._order = order
        last = steps[-1]
        letters = []
        for s in steps:
            letters += [s.base_letters, np.full(round_up(s.base_letters.size, FEED_ALIGN) - s.base_letters.size,
                                                 PAD_LETTER, np.uint8)]
        return Plan(tasks, np.concatenate(letters),
                    np.concatenate([s.target_letters for s in steps]), last.target_size, last.rows_size,
                    flat.exon_start, self.last_rows(), flat.n, self.input_index(),
                    flat.cells, np.concatenate([s.tgt_off for s in steps]),
                    np.concatenate([order[a + s.strip_task] for s, a in zip(steps, slots[:-1])]), strip_start,
                    last.moves_units * MOVE_UNIT, np.concatenate([s.by_last + o for s, o in zip(steps, exons)]),
                    np.concatenate([s.p for s in steps]), flat)

    def walked(self, plan: Plan) -> np.ndarray:
        """A recording launch's tasks the walks read, once ``plan`` (this Feeder's ``plan()``)
        is made: its tasks with the follower's lane rows and moves in the followed strips
        (as plan.followed_tasks' walks' copy)."""
        out = plan.tasks.copy()
        at = self._order[self._follow_slots]  # step 0's slots lie first in the steps' order
        for f in (F_LANE_ROWS, F_MOVES):
            out[at, f] = self.follow[:, f]
        return out


def host_feed(cases: Sequence[TestCase], tuning: Tuning, scoring: Scoring = Scoring(),
              record: bool = False) -> Feeder | None:
    """The Feeder of a score call of ``cases`` alone (``record``: a traced call's, its moves
    recorded on the device), with room for them in one launch, as the solver plans it (its long
    chains first): None where it would be one step."""
    every = FlatCases.of(cases)
    _, [(ctype, sel)], _, _ = launch.plan_launches(every, scoring, record, 1 << 40, lambda ctype: True, tuning)
    flat = every.select(sel)
    return Feeder.of(flat, launch.configure(flat, ctype, byte_profile_ok(scoring), record, True, tuning), tuning)


@cache
def load_passes(record: bool = False) -> None:
    """Every compiled pass a fed launch (``record``: a recording one) runs, in this process
    (from numba's on-disk cache, or compiled where it lacks them): a feed of a few small cases
    (a throughput launch with long chains, in three steps) planned on the host as the solver
    plans one, its windows into host arrays of the staging's types, then its Plan and the
    finals' gather inputs (module doc: before a fed kernel starts)."""
    from splicedalign.workloads.spliced import synthetic

    rng = np.random.default_rng(5)
    cases = synthetic.tiny_set(bases=3) + synthetic.gene_like(
        rng, synthetic.Shape(m=3_000, K=40, n=150, exon_mean=60), name="long", targets=2)
    tuning = replace(launch.TUNING, throughput_cases=4, feed_shares=(0.3, 0.3), feed_record=record)
    fed = host_feed(cases, tuning, record=record)
    assert fed is not None and fed.long, "load_passes' feed: long chains, more than one step"
    plan = fed_on_host(fed)
    with PARALLEL:
        finals_at(plan.exon_start, plan.n, plan.last_row, plan.input_index, np.empty_like(plan.last_row))
        last_row_places(plan.exon_start, plan.n)


def fed_on_host(fed: Feeder) -> Plan:
    """A fed launch's host work without a device: ``fed``'s windows written step by step into
    host arrays of the staging's types, then its Plan (recording: and the walks' tasks)."""
    sizes = fed.sizes()
    staging = (np.empty((sizes.tasks, NFIELDS), np.int32), np.empty(sizes.base, np.uint8),
               np.empty(sizes.tsel, np.int32))
    for _ in fed.steps(*staging):
        pass
    plan = fed.plan()
    if fed.follow is not None:
        fed.walked(plan)
    return plan


@njit(cache=True, nogil=True)
def _long_windows(ct, edges, lead, ahead):  # pragma: no cover - compiled
    """(each long chain slot's case, its window) for the long chains whose slots step 0 planned at
    [ct[i], ct[i + 1]): slot k of a chain of t slots at relative position x = lead * (2k + 1) / 2t
    goes to the window after the ``edges`` at or below x - ahead (np.searchsorted's side "right").
    One serial pass before window 0 (six NumPy passes over a paper set's 5,000-30,000 slots:
    0.04-0.4 ms on the dev machine)."""
    case = np.empty(ct[-1], np.int64)
    window = np.empty(ct[-1], np.int64)
    for i in range(ct.size - 1):
        t = ct[i + 1] - ct[i]
        for k in range(t):
            x = lead * (2 * k + 1) / (2 * t) - ahead
            w = 0
            while w < edges.size and edges[w] <= x:
                w += 1
            case[ct[i] + k], window[ct[i] + k] = i, w
    return case, window


@njit(cache=True, nogil=True)
def _window_slots(long_window, long_case, long, j, ct, start):  # pragma: no cover - compiled
    """Window j's cases and slots for _launch_order and _scatter: (each case's first slot in the
    window, its ``long`` long chains first (their slots whose window is j: _long_windows) and then
    its step's cases from ``start`` (their slots at ct[start:]), the slots (the long chains', by
    their index in step 0, then the step's own), how many are the long chains'). One serial pass
    (seven NumPy passes over 15,000-30,000 slots before window 0 on a paper set)."""
    heads = 0
    for s in range(long_window.size):
        heads += long_window[s] == j
    cases = ct.size - 1 - start
    own = ct[ct.size - 1] - ct[start]
    seg = np.zeros(long + cases + 1, np.int64)
    slots = np.empty(heads + own, np.int64)
    h = 0
    for s in range(long_window.size):
        if long_window[s] == j:
            slots[h] = s
            seg[long_case[s] + 1] += 1
            h += 1
    for c in range(cases):
        seg[long + c + 1] = ct[start + c + 1] - ct[start + c]
    for i in range(long + cases):
        seg[i + 1] += seg[i]
    for k in range(own):
        slots[heads + k] = ct[start] + k
    return seg, slots, heads


@njit(cache=True, parallel=True)
def _place(out, at, table):  # pragma: no cover - compiled
    """Record k of ``table`` into ``out`` at ``at[k]``."""
    for k in prange(at.size):
        for f in range(NFIELDS):
            out[at[k], f] = table[k, f]


@njit(cache=True, parallel=True)
def _scatter(out, first, local, slots, heads, head, own):  # pragma: no cover - compiled
    """Window records into ``out`` at ``first + local[k]``: record ``slots[k]`` of the first
    step's table (``head``: the long chains', the first ``heads``) or of the window's own step's
    (``own``)."""
    for k in prange(slots.size):
        table = head if k < heads else own
        for f in range(NFIELDS):
            out[first + local[k], f] = table[slots[k], f]


@njit(cache=True, parallel=True)
def _encode_step(base_letters, target_letters, tgt_off, n, lut, base, tsel):  # pragma: no cover - compiled
    """What encode_inputs makes, on the host, for one step: the base codes (lut[0..255]; 0 in
    the padding after them) and the selectors (each case's t_j's code by lut[256..511] at
    tgt_off + j, code 0 everywhere else; the cases' targets in rising tgt_off, apart). Each
    selector written once, from a table of the 256 letters' selectors: the whole array filled
    first and each target's code multiplied out per letter, this pass took 0.5-1.4 ms of a paper
    set's step on the development host (one thread), ~2x what it takes so."""
    L = base_letters.size
    for i in prange(L):
        base[i] = lut[base_letters[i]]
    base[L:] = 0
    sel = np.empty(256, np.int32)
    for x in range(256):
        sel[x] = lut[256 + x] * SEL_SPREAD | SEL_SIGN
    C = n.size
    first = np.zeros(C + 1, np.int64)
    for c in range(C):
        first[c + 1] = first[c] + n[c]
    for c in prange(C + 1):  # code 0 from case c - 1's last target to case c's first (then the end)
        a = tgt_off[c - 1] + 1 + n[c - 1] if c > 0 else 0
        tsel[a:tgt_off[c] + 1 if c < C else tsel.size] = SEL_SIGN
        if c < C:
            o, f = tgt_off[c] + 1, first[c]
            for j in range(n[c]):
                tsel[o + j] = sel[target_letters[f + j]]
