"""``gpu``: every case of a batch in one persistent wavefront launch (wavefront.cu).

The GPU computes all exons' last rows; the host gets the exons' final scores. Traceback: with
``device_trace``, the wavefront also records every cell's move and one warp per case walks its
chain over them (``trace_chains``): the host gets each chain and its ops; otherwise the host
gets every exon's last row and ``trace_chain`` recomputes the chain's exons on a thread pool.
Both make the same choices.

A call: ``_launches`` splits the cases into launches (by score type, within the device memory
the call finds free): a score call on never-seen cases as it goes (``_streamed``, launch.Cutter:
its first launch is planned and runs while the host splits the rest), any other by ``_split``
(launch.plan_launches, launch.batches); each launch's configuration comes from launch.configure;
``_inputs`` plans it (plan.build_plan, compiled) and uploads its inputs in one pinned copy (a
score call's only launch, not planned before: ``_fed``, in steps while its kernel runs, _feeder);
``_launch`` queues its kernels; ``_collect`` copies its outputs back. Launches stay queued while
they fit the call's room in device memory (IN_FLIGHT of the largest size), so the host plans
launch i+1 while the GPU runs launch i, and builds launch i's results while it runs the next.
"""

from __future__ import annotations

import operator
import os
import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from splicedalign.core import loading
from splicedalign.core.collection import collection_paused
from splicedalign.gpu import device
from splicedalign.workloads.spliced.base import refuse_free_ends
from splicedalign.workloads.spliced.gpu import launch, outputs
from splicedalign.workloads.spliced.gpu.feed import Feeder, Sizes, load_passes
from splicedalign.workloads.spliced.gpu.flat import PARALLEL, FlatCases, few_threads
from splicedalign.workloads.spliced.gpu.launch import IN_FLIGHT, TUNING, LaunchConfig, Tuning
from splicedalign.workloads.spliced.gpu.plan import (
    EMPTY_BYTE,
    ENCODE_BLOCKS,
    ENCODE_KERNEL,
    ENCODE_THREADS,
    LETTER_CODES,
    MODE_RECORD,
    MODE_SCORE,
    MOVE_UNIT,
    NFIELDS,
    THREADS,
    TRACE_BLOCK_THREADS,
    WARP,
    Followed,
    Plan,
    TraceInputs,
    build_plan,
    byte_profile_ok,
    checkpoint_layout,
    finals_at,
    followed_tasks,
    kernel_defines,
    last_row_places,
    scratch_layout,
    trace_inputs,
)
from splicedalign.workloads.spliced.records import CaseSet, Result, Scoring, TestCase

KERNEL_FILE = Path(__file__).with_name("wavefront.cu")
GATHER_THREADS = 256
GATHER_BLOCKS = 65_535  # the gather loops over exons grid-stride; more blocks add nothing
FINALS_THREADS = 32  # the finals' gather: one score per exon, a warp per block (more blocks at once)
# plan.finals_at runs on numba's team from this many exons, else on the calling thread alone: a paper
# set's ~60,000 took 0.09 ms on one thread of the development host against 0.23 on its team of 2 (300
# calls each, medians), about what waking the H100 host's team costs (~0.1 ms: flat.SMALL_PASS)
FINALS_AT_TEAM = 1 << 17
TRACE_THREADS = os.cpu_count() or 1
# A streamed split (GpuSolver._streamed) splits its first SPLIT_FIRST cases at once (a paper set
# and a few more: a call that one launch holds in one chunk, as before), then chunks sized to
# fill the open launch, at least SPLIT_LEAST cases (each chunk costs ~0.2 ms beside its cases).
SPLIT_FIRST = 2_048
SPLIT_LEAST = 256
ROW_STORAGE_KEPT = IN_FLIGHT + 1  # launches' row storage kept filled between calls (GpuSolver._rows)
CACHE_BATCHES = 8  # planned batches kept with their device inputs, most recently used
# The cases of the batches the cache lets go of (GpuSolver._cached), where it held their last reference,
# are freed while a later call waits for its kernels (GpuSolver._free_waiting), RELEASE_CASES at a time: a
# paper set's 1,010 synthetic cases (55,000 Exon records) took the H100 host 2.5-3.8 ms to free, 10 sets'
# 9-13 ms. Freed on the packer thread, which a call waits for, a reused solver's calls on never-seen paper
# sets ended 3.6-24 ms after their kernels (median 7.4-7.7); freed here, 0.9-4.1 ms (median 1.2-1.8; 10
# calls x 2 each, H100). More than BURIED_CASES of them waiting are freed with the batch as before.
RELEASE_CASES = 64
BURIED_CASES = 50_000
# The solver's packer thread (GpuSolver._on_packer; a call waits for its work there: _packing) packs
# each planned launch's uploads into pinned memory (NumPy copies that let go of the GIL: ~206 MB in
# a 10-set traced call) and frees the batches the cache lets go of but their cases (RELEASE_CASES),
# while the caller's thread collects older launches and queues this one. It
# runs no compiled pass: numba's parallel passes stay on the caller's thread and its one OpenMP team
# (a planner thread's second team made libgomp count more threads than CPUs and throttle every
# team's idle spin to 100 rounds, and shared flat.PARALLEL with the caller's passes: ~90 ms of
# planning and packing took it 115-127 ms beside the caller's, which waited for it, H100 host). It
# idles between calls.
PACKER = "spliced-pack"
STAGES = ("split", "plan", "upload", "launch", "finals", "traceback", "results")  # host seconds of a call, by stage
# Default traceback: on the device (moves recorded by the wavefront, trace_chains) for int
# scores, which the device check compares with the host traceback on every case (docs/gpu.md);
# launches with int64 scores trace on the host unless a solver is made with device_trace=True
# (no checked case needed int64 scores).
DEVICE_TRACE = True
OP_POISON = 0xFF  # what unwritten op bytes hold in checked runs (no op has this code)
MOVES_POISON = 0xFFFFFFFF  # unwritten moves in checked runs: every cell "left", a wrong path


# A stream priority above every device's range: CUDA clamps it to the highest (H100: -5).
HIGHEST = -1_000
# The walk streams (Streams.walks): one per walk of a recording launch as Tuning.walk_shares cuts them
# (the followed cases' on the follow stream); a tuning of more walks shares them in turn.
WALK_STREAMS = len(TUNING.walk_shares) + 1

# The staging buffer of every solver's uploads (pinned: one copy of a launch's inputs runs at
# full PCIe speed): a process's first solve makes it, later solvers find it.
UPLOADS = device.PinnedBuffers()
# A planned launch's uploads (GpuSolver._inputs: packed on the packer thread, sent by the caller's
# thread in two copies), in a staging buffer of the caller's thread (one per thread: the solvers of
# several GPUs, a thread each, pack theirs at once), packed again only once its last copy is queued.
_THREAD_STAGING = threading.local()


# The CUDA streams of the solvers of one thread, by device (GpuSolver.streams), kept for the
# process's life: CuPy's memory pool keeps its free blocks per stream, so a fresh solver with
# streams of its own found none of them and made each of its buffers a cudaMalloc (the 1-set call's
# 1.07 GB row storage: ~0.5 ms before its kernel could start, H100). A thread's solvers run one at a
# time: each call's work on them is queued in order.
_THREAD_STREAMS = threading.local()


class Streams(NamedTuple):
    """A solver's CUDA streams (GpuSolver.streams: those of its thread and device)."""
    compute: Any  # the wavefront and gathers (a recording launch's walks: Streams.walks)
    upload: Any   # inputs of the next launch: copies only, which do not wait for the kernel (_encode)
    follow: Any   # a follower beside its score kernel, and the followed cases' walk
    fill: Any     # row storage filled beside kernels
    # Copies back of finished launches, on a stream of their own: on the upload stream a launch's
    # collection queued behind the next launch's input encoding (a kernel) waited for the
    # persistent kernel running then (10 sets, H200: launch 0 collected 14-16 ms after it ended)
    collect: Any
    # A recording launch's device walks (but the followed cases'), one stream each, behind its
    # kernel and finals, beside the next launch's kernel, at the device's highest priority: every
    # walk's blocks are waiting when the kernel ends, and are placed before the next persistent
    # grid fills every SM. On the compute stream the next kernel started only after them; on
    # one walk stream only the first walk got SMs, the third ran after the next kernel's end
    # (10 sets traced, H100: its walks ended 2.0, 14.1 and 32.7 ms after their kernel).
    walks: tuple
    # No work: the arena of CuPy's pool (its free blocks are kept per stream) where move storage
    # alone is allocated. In the fill stream's a call's row storage split a dead solver's freed
    # ~17 GB move blocks, and what it left of them, free but not whole, no free_all_blocks gives
    # back to the device: the next solver's traced call planned on them and ran out of memory (pool
    # model, an H100's 84.4 GB: tests/test_spliced_gpu_pool.py)
    moves: Any
    fed_inputs: Any  # no work: the arena of fed launches' device inputs (GpuSolver._fed)


class CaseIds:
    """A batch's case objects by identity, as a cache key hashed once: a launch's key would
    otherwise hash a tuple of thousands of ids at every look-up (0.1 ms per 4,000 cases)."""

    __slots__ = ("ids", "_hash")

    def __init__(self, cases: Sequence[TestCase]) -> None:
        self.ids = tuple(map(id, cases))
        self._hash = hash(self.ids)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, CaseIds) and self.ids == other.ids)


class Work(NamedTuple):
    """One launch of a call: its score type, the call's case indices, those cases, their key."""
    ctype: str
    sel: list[int]
    batch: list[TestCase]
    ids: CaseIds


class Gather(NamedTuple):
    """Pieces of row storage gathered consecutively (gather_rows): every exon's last row (host
    traceback), or each exon's final score S(last, n) in input order (its finals)."""
    src: Any          # row-storage offset of each piece (device)
    dst: Any          # its place in the gathered array (device)
    length: Any       # its length: n + 1 (a last row), 1 (a final score) (device)
    host_dst: np.ndarray  # dst with the total at the end (host)


NO_GATHER = Gather(None, None, None, np.empty(0, dtype=np.int64))  # a launch's gather it has not (or not yet)


class Copied(NamedTuple):
    """One part of a launch's outputs queued for copying to the host (GpuSolver._copies)."""
    finals: np.ndarray | None  # the first part's: the final scores
    traced: tuple | None       # a device walk's (out_case, out_exon, ops, first op)
    counts: np.ndarray | None  # the last part's: each kernel's task counter and error word
    done: Any                  # event after the copies


class Gathered(NamedTuple):
    """A launch's gathered last rows (host traceback)."""
    rows: Any             # every exon's last row, consecutive (device)
    starts: np.ndarray    # where each exon's row starts in them, then the total (host)


class Part(NamedTuple):
    """What one part of a launch's outputs covers, and when they are ready."""
    rows: tuple[int, int]  # (first, end) rows of the trace table, or cases
    ready: Any             # event after the part's last kernel


class DeviceTrace(NamedTuple):
    """A batch's trace_chains inputs on the device, for the long chains it was planned with."""
    followed: tuple[int, ...]
    info: TraceInputs
    exons: Any
    cases: Any
    strips: Any


class Traced(NamedTuple):
    """trace_chains' outputs on the device."""
    out_case: Any
    out_exon: Any
    ops: Any


class Split(NamedTuple):
    """A call's launches (GpuSolver._split; a streamed split's, _streamed, kept for the next call)."""
    room: int                 # device bytes the launches queued at once may take
    launches: list[Work]
    flats: list[FlatCases]    # each launch's cases as arrays
    sizes: list[int]          # device bytes each launch takes at most
    needs: int                # device bytes they take at most at once (launch.queued_at_most)
    moves: int = 0            # bytes of move storage each recording launch takes (launch.plan_launches)


class Replayable(NamedTuple):
    """A batch's plan and its tasks on the device, and the event after its last upload."""
    plan: Plan
    tasks: Any
    ready: Any


@dataclass
class _Inputs:
    """A planned batch with its inputs on the device (cached per batch of case objects). A fed
    launch's (GpuSolver._fed) has its plan for replays made when a launch first reads ``plan``,
    ``tasks`` or ``ready`` (``later``; Tuning.lazy_replay_plan), not in the call that fed it."""
    cases: tuple[TestCase, ...]  # held so that the ids in the cache key stay theirs
    exons: outputs.Exons  # what the launch's results read of its plan
    base: Any
    tsel: Any
    finals: Gather  # every exon's final score S(last, n), in input order
    gather: Gather
    made: Replayable | None  # None until ``later`` made it
    later: Callable[[], Replayable] | None = None
    trace: DeviceTrace | None = None  # made on the first device traceback of the batch
    followed: Followed | None = None  # device copies of plan.followed_tasks, likewise
    # a recomputing launch's column checkpoints (LaunchConfig.checkpoint_blocks): each task's first
    # element on the device (plan.checkpoint_layout) and the elements in all; planned with a traced
    # launch's inputs, else None until the batch's first launch that stores them (GpuSolver._queue)
    checkpoints: tuple[Any, int] | None = None

    def replayable(self) -> Replayable:
        if self.made is None:
            assert self.later is not None
            self.made, self.later = self.later(), None
        return self.made

    @property
    def plan(self) -> Plan:
        return self.replayable().plan

    @property
    def tasks(self) -> Any:
        return self.replayable().tasks

    @tasks.setter
    def tasks(self, tasks: Any) -> None:  # (scripts/device_spliced.py --orders: the tasks reordered)
        self.made = self.replayable()._replace(tasks=tasks)

    @property
    def ready(self) -> Any:  # the uploads are done
        return self.replayable().ready


class FedTimeline(NamedTuple):
    """A call's fed launch on one clock, ms from the call's start (GpuSolver.fed_ms): when the
    host queued its kernel and each window's count (after the window's copies), and when the
    device started the kernel, wrote each count (the window's tasks ready) and ended the kernel.
    The device's times are placed by an event recorded as the fed launch's set-up starts, on the
    compute stream with nothing queued before it (a fed launch is its call's only one)."""
    set_up: float                # host: the fed launch's set-up began
    queued: float                # host: its kernel queued
    written: tuple[float, ...]   # host: each window's count queued
    started: float               # device: the kernel began
    ready: tuple[float, ...]     # device: each window's count written
    ended: float                 # device: the kernel ended


class _FedClock(NamedTuple):
    """What a fed launch records for its FedTimeline (GpuSolver._fed): the host's times
    (perf_counter seconds) and the origin event recorded at ``set_up``."""
    origin: Any
    set_up: float
    queued: float
    written: list[float]

    def timeline(self, call_start: float, events: tuple, feeds: tuple) -> FedTimeline:
        """The timeline of a call begun at ``call_start``, its kernel's (start, end) ``events`` and
        its windows' ``feeds`` done (the call has waited for its kernels)."""
        gpu = device.cupy().cuda.get_elapsed_time
        at = (self.set_up - call_start) * 1e3
        return FedTimeline(at, (self.queued - call_start) * 1e3, tuple((t - call_start) * 1e3 for t in self.written),
                           at + gpu(self.origin, events[0]), tuple(at + gpu(self.origin, e) for e in feeds),
                           at + gpu(self.origin, events[1]))


class Queued(NamedTuple):
    """A launch's kernels queued (GpuSolver._queue; _fed for a fed launch): what the rest of
    the launch and its collection need."""
    inputs: _Inputs
    storage: Any  # the launch's row storage (from GpuSolver._rows)
    used: int  # bytes of it the launch may write
    rows: Any  # the storage as scores
    counter: Any  # each kernel's task counter and error word
    moves: Any  # its move storage (GpuSolver._moves_none where it records none)
    walked: Any  # the tasks the walks read
    events: tuple  # (kernel start, kernel end) and, where a follower runs, its end
    feeds: tuple = ()  # a fed launch: the event after each step's copies (its tasks ready)
    held: tuple = ()  # device arrays its kernels read that nothing else holds (a fed launch's tasks)
    finals: tuple | None = None  # GpuSolver._finals' outputs where already queued (a fed launch's)
    clock: _FedClock | None = None  # a fed launch's host times and origin event (its FedTimeline)
    # (storage, offsets) of its column checkpoints (config.checkpoint_blocks): the score kernel stores
    # them, the walks read them; () without
    checkpoints: tuple = ()


class Staged(NamedTuple):
    """A fed launch's pinned staging (GpuSolver._staging): its windows' task records, codes
    and selectors, each at its place, and a recording launch's follower's records."""
    tasks: np.ndarray
    base: np.ndarray
    tsel: np.ndarray
    follow: np.ndarray


def _feed_role() -> tuple:
    """The staging role of this thread's fed launches (solvers of other threads feed at once)."""
    return ("feed", threading.get_ident())


def send(device_array, host: np.ndarray, stream) -> None:
    """``host`` (pinned, staying unchanged until the copy ran) into the contiguous
    ``device_array`` on ``stream``, without waiting."""
    device_array.set(host, stream=stream)


def _followed(plan: Plan, config: LaunchConfig) -> Followed:
    """A recording launch's followed tasks (plan.followed_tasks): where its walks recompute the
    other cases' moves (config.recompute), the follower's moves from 0 (no plan's before them)."""
    return followed_tasks(plan, config.followed, config.least, 0 if config.recompute else None)


def _scratch(plan: Plan, config: LaunchConfig, followed: Followed | None) -> tuple[np.ndarray, int]:
    """(each case's scratch region, the end of move storage in MOVE_UNIT words) of a launch whose
    walks recompute moves (config.recompute; plan.scratch_layout, after its follower's
    ``followed`` moves)."""
    return scratch_layout(plan.n, config.followed, config.rows_per_lane,
                          followed.moves_size // MOVE_UNIT if followed is not None else 0)


def _walk_records(plan: Plan, flat: FlatCases, config: LaunchConfig, followed: Followed | None,
                  tuning: launch.Tuning) -> TraceInputs:
    """A recording launch's walks' records (plan.trace_inputs, walks by launch.walks): where they
    recompute moves, each case's scratch and the follower's tasks (``followed``) for its cases."""
    walks = launch.walks(flat, config.followed, tuning)
    if not config.recompute:
        return trace_inputs(plan, None, walks)
    return trace_inputs(plan, None, walks, _scratch(plan, config, followed)[0], followed)


def _task_copies(config: LaunchConfig) -> bool:
    """Whether a launch uploads its follower's copies of its tasks (for its kernel and its walks):
    with a follower, unless its walks recompute (they and the score kernel read the plan's)."""
    return bool(config.followed) and not config.recompute


def _batch_key(config: LaunchConfig, ids: CaseIds) -> tuple:
    """The key of a batch's cached plan and device inputs (GpuSolver._cache): its very case
    objects and the launch's shape (each case's lane-rows floor follows from these)."""
    return config.rows_per_lane, config.ctype, ids


def _finals_at(exon_start: np.ndarray, n: np.ndarray, last_row: np.ndarray, input_index: np.ndarray,
               out: np.ndarray) -> np.ndarray:
    """``out`` (E,) int64: the finals' gather's sources of a plan's exons (Plan's fields of these
    names), in input order (plan.finals_at, one compiled pass: as NumPy passes over a 10-set
    launch's ~275,000 exons the gathers' inputs took 3.4-3.8 ms of one core, on the H100 host too);
    on one thread below FINALS_AT_TEAM exons."""
    with few_threads(0 if out.size < FINALS_AT_TEAM else out.size):
        finals_at(exon_start, n, last_row, input_index, out)
    return out


def _last_row_gather(exon_start: np.ndarray, n: np.ndarray, last_row: np.ndarray) -> tuple[list[np.ndarray],
                                                                                          np.ndarray]:
    """The last rows' gather's device inputs (sources, places, lengths) of a plan's exons, and
    their places with the total (host): plan.last_row_places. Only a launch that reads every
    exon's last row (LaunchConfig.last_rows) uploads them: a cold paper set's fed call packed
    and copied 2.4 MB after its last window with them, 1.2 without."""
    with PARALLEL:
        dst, length = last_row_places(exon_start, n)
    return [last_row, dst[:-1], length], dst


def _gather_inputs(plan: Plan, last_rows: bool) -> tuple[list[np.ndarray], np.ndarray | None]:
    """A planned launch's gathers' host inputs, as its second copy uploads them: the finals'
    sources (_finals_at), then where ``last_rows`` (LaunchConfig.last_rows) the last rows' three
    (_last_row_gather); and those rows' places with the total (host; None without them)."""
    at = _finals_at(plan.exon_start, plan.n, plan.last_row, plan.input_index, np.empty_like(plan.last_row))
    if not last_rows:
        return [at], None
    rows, dst = _last_row_gather(plan.exon_start, plan.n, plan.last_row)
    return [at] + rows, dst


def _send_finals_at(exon_start: np.ndarray, n: np.ndarray, last_row: np.ndarray, input_index: np.ndarray,
                    into: Any, stream: Any) -> Any:
    """A fed launch's finals' gather sources (_finals_at) written straight into the staging
    buffer and copied into ``into`` (device, uint8, 8 bytes an exon, allocated with the feed):
    after the last window no array of them, no packing and no device block to make (the
    gathers' upload, packed and sent, took the H100 host 0.85-1.15 ms of a cold paper set's
    call: the pack 0.21-0.28 ms, the device block and its copy 0.23-0.52)."""
    def write(view: np.ndarray) -> None:
        _finals_at(exon_start, n, last_row, input_index, view.view(np.int64))
    return UPLOADS.fill("inputs", into.size, write, stream, into).view(np.int64)


class _Places:
    """The finals' gather's places (0..E) and lengths (1) on the device for a launch of E
    exons: views of a pair kept by the solver (grown by powers of two, uploaded on the given
    stream), and the places with the total on the host. Every launch's finals' gather read
    the same two arrays: made and uploaded per launch, they were 12 of its 20 bytes an exon
    (a cold paper set's fed call: 0.7 of the 1.2 MB packed and copied after its last window)."""

    LEAST = 1 << 16  # exons the first pair holds (a paper set: ~60,000)

    def __init__(self) -> None:
        self._host = np.arange(1, dtype=np.int64)
        self._device: tuple[Any, Any] | None = None

    def gather(self, at: Any, stream: Any) -> Gather:
        """The finals' gather of the sources ``at`` (device, (E,) int64)."""
        E = at.size
        if self._device is None or self._device[0].size < E:
            size = max(self.LEAST, 1 << (E - 1).bit_length())
            self._host = np.arange(size + 1, dtype=np.int64)
            self._device = tuple(UPLOADS.upload("inputs", [self._host[:-1], np.ones(size, np.int32)], stream))
        places, ones = self._device
        return Gather(at, places[:E], ones[:E], self._host[:E + 1])


def _uploads(plan: Plan, copies: bool) -> list[np.ndarray]:
    """A planned launch's first copy (GpuSolver._inputs), what its plan holds of it: the letters
    of the bases' exon rows and of the targets, each case's letters' places, the letters' codes,
    and the plan's tasks unless its kernel runs on the follower's copy of them (``copies``:
    _task_copies; without them a launch whose walks recompute runs the score kernel on the plan's
    tasks, and its walks read them and the follower's: three copies of a 4,660-case launch's
    tasks, 53 of its 89 MiB, grew the pinned staging)."""
    letters = [plan.base_letters, plan.target_letters, plan.letter_cases(), LETTER_CODES]
    return letters + ([] if copies else [plan.tasks])


def _later_uploads(followed: Followed | None, copies: bool, checkpoints: np.ndarray | None) -> list[np.ndarray]:
    """The rest of a planned launch's first copy (_uploads), planned while that is packed: with
    ``copies`` the followed tasks (its kernel runs on them), its column ``checkpoints``' offsets
    where its score kernel stores them, and the follower's tasks."""
    return ([followed.tasks] if copies and followed is not None else []) \
        + ([] if checkpoints is None else [checkpoints]) + ([] if followed is None else [followed.follow])


def _later_room(plan: Plan, config: LaunchConfig) -> int:
    """Bytes _later_uploads may take at most (PinnedBuffers.layout's ``room``): a copy of the
    tasks where the kernel runs on the followed ones, one int64 offset a task where it stores
    column checkpoints (plan.checkpoint_layout), the follower's tasks (at most every task), each
    256-byte aligned."""
    tasks, T = plan.tasks.nbytes, plan.tasks.shape[0]
    return (tasks if _task_copies(config) else 0) + (8 * T if config.checkpoint_blocks else 0) \
        + (tasks if config.followed else 0) + 3 * 256


def _rest_uploads(plan: Plan, gathers: list[np.ndarray], copied: Followed | None,
                  walks: TraceInputs | None) -> list[np.ndarray]:
    """A planned launch's second copy (GpuSolver._rest): the gathers' inputs, where the follower
    made task copies (``copied``: _task_copies) the plan's tasks and the walks' tasks, and a
    recording launch's walks' records."""
    tasks = [] if copied is None else [plan.tasks, copied.walked]
    return gathers + tasks + ([] if walks is None else [walks.exons, walks.cases, walks.strips])


def _launch_staging() -> device.PinnedBuffers:
    """The staging of this thread's planned launches (_THREAD_STAGING)."""
    return vars(_THREAD_STAGING).setdefault("launches", device.PinnedBuffers())


def _nothing_left() -> None:
    """The rest of a cached batch's uploads (GpuSolver._inputs): none."""


def _made_by(replay_plan: weakref.WeakMethod, feeder: Feeder) -> Replayable:
    """A fed launch's plan for replays, by its solver's GpuSolver._replay_plan (alive: its cache
    holds the _Inputs that asks)."""
    method = replay_plan()
    assert method is not None
    return method(feeder)[0]


@dataclass
class _Job:
    """One queued launch: what collecting it needs, and its inputs kept alive until then."""
    sel: list[int]
    inputs: _Inputs
    config: LaunchConfig
    storage: Any  # the launch's row storage (from GpuSolver._rows), given back once collected
    used: int  # bytes of it the launch may write
    moves: Any  # its move storage: held until collected (a follower and a walk use it on another stream)
    finals: Any
    counter: Any
    gathered: Gathered | None
    traced: Traced | None
    events: tuple  # (kernel start, kernel end) and, where a follower runs, its end
    # collected in parts: one per device walk of a recording launch (launch.walks), so that the
    # host builds one walk's records while the GPU walks the next; else one
    parts: tuple[Part, ...]
    # free ends: each exon's column of its final score, held until collected (a walk on the
    # follower's stream reads it)
    columns: Any = None
    feeds: tuple = ()  # a fed launch: the event after each step's copies (its tasks ready)
    # device arrays its kernels read that nothing else holds (a fed launch's tasks, column checkpoints)
    held: tuple = ()
    clock: _FedClock | None = None  # a fed launch's host times and origin event (its FedTimeline)
    copies: dict[int, Copied] = field(default_factory=dict)  # parts' copies queued ahead (GpuSolver._collect)


@dataclass
class _InFlight:
    """A launch in flight in a call (GpuSolver._solve_many: queued, not yet collected): its job,
    work and device bytes, and its Pending, made once the next launch is queued (or before it
    is collected)."""
    job: _Job
    work: Work
    size: int
    made: outputs.Pending | None = None


# A call's launches as they come (GpuSolver._launches): each one's work, its cases as arrays, its
# device bytes, whether it is the call's only launch.
Launches = Generator[tuple[Work, FlatCases, int, bool], None, None]


class GpuSolver:
    name = "gpu"

    def __init__(self, rows_per_lane: int | None = None, poison: bool = False,
                 byte_profile: bool | None = None, device_trace: bool | None = None,
                 tuning: Tuning = TUNING, memory_cap: int | None = None) -> None:
        self.rows_per_lane = rows_per_lane  # None: Tuning.launch_rows_per_lane of each launch
        self.device_trace = device_trace  # None: DEVICE_TRACE for int scores (on_device)
        self.byte_profile = byte_profile  # None: PRMT byte profile whenever the scoring fits
        self.poison = poison  # fill moves and traceback outputs with poison first (all must be written)
        self.tuning = tuning
        self.memory_cap = memory_cap  # bytes of device memory a call may take at most (--gpu-memory)
        self.kernel_ms: list[float] = []  # device time of each launch of the last call
        self.span_ms = 0.0  # from the last call's first kernel start to its last kernel's end
        self.fed_ms: FedTimeline | None = None  # the last call's fed launch on one clock (None: none fed)
        self.timing: dict[str, float] = {}  # host seconds of the last call, by stage
        self._cache: OrderedDict[tuple, _Inputs] = OrderedDict()
        self._works: dict[tuple, tuple] = {}  # (scoring, traceback): (the last list of cases, its Split)
        self._streams: Streams | None = None
        self._no_moves = None  # the moves argument of launches that record none
        self._pinned = device.PinnedBuffers()  # the traceback's outputs, reused per call
        # Row storage kept for the next launches: a collected launch's is filled with EMPTY
        # again once the call's kernels are done, so the next call's launches find it ready
        # (a launch of 4 GB waited 1.6 ms for its fill). A call of up to ROW_STORAGE_KEPT
        # launches fills none while its kernels run.
        self._rows = device.FilledBuffers(EMPTY_BYTE, ROW_STORAGE_KEPT)
        # Move storage kept likewise, never filled (_moves), and each handed-out buffer by its
        # moves' id: a call's launches reuse the buffers of the launches it collected, where a
        # fresh cp.empty each took a new ~17 GB block whenever none of the pool's free ones was
        # large enough, and with three queued CuPy's fallback freed the pool mid-call (cudaFree
        # waits for the device): 116 ms between two kernels of a 10-set traced call (H100). Every
        # launch of a call takes one size (Split.moves, its largest launch's): a kept buffer
        # smaller than the next launch's moves would stay allocated beside that launch's new one,
        # which the call's sizing does not count (a 10-set traced call after a score call ran out
        # of an H100's memory so, each buffer made 1.1 times its first launch's moves).
        self._move_storage = device.FilledBuffers(None, ROW_STORAGE_KEPT)
        self._moves_each = 0  # bytes: the call's Split.moves
        self._move_buffers: dict[int, Any] = {}
        self._packer: ThreadPoolExecutor | None = None  # the solver's packer thread (_packing)
        self._packed: list[Future] = []  # the call's work on it
        self._buried: list[TestCase] = []  # cases of batches let go of, freed while calls wait (_free_waiting)
        self._places = _Places()

    def on_device(self, ctype: str) -> bool:
        """Whether a launch with scores of ``ctype`` traces back on the device."""
        return DEVICE_TRACE and ctype == "int" if self.device_trace is None else self.device_trace

    def clear_cache(self) -> None:
        """Forget planned batches (the next call plans and uploads again)."""
        self._cache.clear()
        self._works.clear()
        self._buried.clear()
        self._let_go()

    def _held(self) -> int:
        """Device bytes of the row and move storage kept between launches (counted as free)."""
        return self._rows.held_bytes() + self._move_storage.held_bytes()

    def _let_go(self) -> None:
        """The kept row and move storage freed (to CuPy's pool)."""
        self._rows.clear()
        self._move_storage.clear()
        self._move_buffers.clear()

    def streams(self) -> Streams:
        """The streams of this thread's solvers on the current device (_THREAD_STREAMS)."""
        if self._streams is None:
            cp = device.cupy()
            kept = vars(_THREAD_STREAMS).setdefault("by_device", {})
            key = (id(cp), cp.cuda.runtime.getDevice())
            if key not in kept:  # (cp held beside them: its id stays its own)
                stream = partial(cp.cuda.Stream, non_blocking=True)
                kept[key] = cp, Streams(*(tuple(stream(priority=HIGHEST) for _ in range(WALK_STREAMS))
                                          if name == "walks" else stream() for name in Streams._fields))
            self._streams = kept[key][1]
        return self._streams

    def _configure(self, flat: FlatCases, ctype: str, scoring: Scoring, traceback: bool) -> LaunchConfig:
        use_bytes = byte_profile_ok(scoring) and self.byte_profile is not False
        return launch.configure(flat, ctype, use_bytes, traceback, self.on_device(ctype), self.tuning,
                                self.rows_per_lane, scoring.free_ends)

    def _inputs(self, flat: FlatCases, config: LaunchConfig, ids: CaseIds,
                make_room: Callable[[], None]) -> tuple[_Inputs, Callable[[], None]]:
        """The batch's plan and device inputs, and what queues the rest of its uploads once its
        kernel is queued: from the cache when this very list of case objects was planned before
        with this shape (a data set solved again; nothing left), else planned on the caller's
        thread and uploaded on the upload stream in two pinned copies: what its kernels read (a
        recording launch's followed tasks and follower's tasks where its configuration has a
        follower, else made when a launch first needs them), packed on the solver's packer thread
        (_on_packer: the plan's part while the caller plans the rest of it) while the caller's
        thread runs ``make_room`` (collects older launches), then (``rest``, _rest, planned once
        the kernel is queued) the gathers' inputs, a recording launch's walks' tasks and plan
        tasks, and its walks' records; cached once ``rest`` ran."""
        key = _batch_key(config, ids)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            make_room()
            return hit, _nothing_left
        t0 = time.perf_counter()
        plan = build_plan(flat, config.rows_per_lane, config.floors, config.late, config.entry)
        copies = _task_copies(config)
        t1 = time.perf_counter()
        staging = _launch_staging()
        # what the plan holds of the first copy packed while the caller plans the rest of it (the
        # follower's tasks, the checkpoints' offsets: ~1.3 ms of the development host for a paper
        # set, whose first copy's 7.6 MB took its packer 1.2-2.5 ms); the staging buffer grown
        # here (cudaHostAlloc) for both parts before the packer packs
        first = _uploads(plan, copies)
        packed = staging.layout("launch", first, _later_room(plan, config))
        self._on_packer(device.pack_part, packed, 0, len(first))
        t2 = time.perf_counter()
        followed = _followed(plan, config) if config.followed else None
        ck = checkpoint_layout(plan, config.checkpoint_blocks, config.followed) if config.checkpoint_blocks else None
        t3 = time.perf_counter()
        packed = staging.extend("launch", packed, _later_uploads(followed, copies, None if ck is None else ck[0]))
        kernels_read = self._on_packer(device.pack_part, packed, len(first), len(packed.arrays))  # (after the first)
        self.timing["plan"] += t1 - t0 + t3 - t2
        self.timing["upload"] += t2 - t1 + time.perf_counter() - t3
        make_room()
        t1 = time.perf_counter()
        upload = self.streams().upload
        kernels_read.result()
        (base_letters, target_letters, letter_cases, codes, tasks, *follow) = staging.send(
            "launch", packed, 0, len(packed.arrays), upload)
        ck_at = follow.pop(0) if ck is not None else None
        base, tsel = self._encode(plan, config, base_letters, target_letters, letter_cases, codes)
        inputs = _Inputs(tuple(flat.cases), outputs.Exons.of(plan), base, tsel, NO_GATHER, NO_GATHER,  # (_rest's)
                         Replayable(plan, None if copies else tasks, upload.record()))
        if followed is not None:
            inputs.followed = followed._replace(tasks=tasks, follow=follow[0], walked=None)
        if ck is not None:
            inputs.checkpoints = (ck_at, ck[1])
        self.timing["upload"] += time.perf_counter() - t1
        return inputs, partial(self._rest, key, inputs, flat, config, followed)

    def _rest(self, key: tuple, inputs: _Inputs, flat: FlatCases, config: LaunchConfig,
              followed: Followed | None) -> None:
        """A planned batch's uploads that its kernels do not read, planned once its kernel is
        queued and queued on the upload stream (the compute stream waits for them): the gathers'
        inputs (_gather_inputs: its finals' after the kernel), with a follower's task copies
        (_task_copies, of the host's ``followed`` tasks) the walks' tasks and the plan's tasks (for
        a launch without one on the same batch), and a recording launch's walks' records
        (_walk_records, for its long chains: in this copy, not a third one behind it), packed on
        the solver's packer thread into the thread's staging once its first copy from there is
        done; the batch cached. Planned with the launch, before its kernel, the gathers' places
        and the walks' records (1.7-2.7 ms of the development host for a paper set) delayed a
        traced call's first kernel by as much; packing all of a traced paper set's inputs (16 MB)
        before its kernel took the H100 host 2.3-2.4 ms of its ~7 ms from the split to the
        kernel's start, where its kernels read 6.5 MB of them."""
        t0 = time.perf_counter()
        streams = self.streams()
        plan = inputs.plan
        gathers, dst = _gather_inputs(plan, config.last_rows)
        walks = _walk_records(plan, flat, config, followed, self.tuning) if config.record else None
        t1 = time.perf_counter()
        self.timing["plan"] += t1 - t0
        copied = followed if _task_copies(config) else None  # (its task copies uploaded here)
        arrays = _rest_uploads(plan, gathers, copied, walks)
        staging = _launch_staging()
        packed = staging.layout("launch", arrays)
        self._on_packer(device.pack_part, packed, 0, len(arrays)).result()
        rest = staging.send("launch", packed, 0, len(arrays), streams.upload)
        inputs.finals = self._places.gather(rest[0], streams.upload)
        ready = streams.upload.record()
        streams.compute.wait_event(ready)
        g = len(gathers)
        inputs.gather = Gather(*rest[1:g], dst) if dst is not None else NO_GATHER
        inputs.made = Replayable(plan, rest[g] if copied is not None else inputs.tasks, ready)
        if copied is not None:
            assert inputs.followed is not None
            inputs.followed = inputs.followed._replace(walked=rest[g + 1])
        if walks is not None:
            inputs.trace = DeviceTrace(config.followed, walks, *rest[-3:])
        self._cached(key, inputs)
        self.timing["upload"] += time.perf_counter() - t1

    def _cached(self, key: tuple, inputs: _Inputs) -> None:
        """``inputs`` cached under ``key``, the least recently used batch beyond CACHE_BATCHES let go:
        freed on the packer thread (_on_packer) but its cases, which wait in ``_buried`` until a
        call waits for its kernels (_free_waiting; beyond BURIED_CASES, freed with the batch)."""
        self._cache[key] = inputs
        gone = []
        while len(self._cache) > CACHE_BATCHES:
            gone.append(self._cache.popitem(last=False)[1])
        if gone:
            for batch in gone:
                self._buried.extend(batch.cases)
            if len(self._buried) > BURIED_CASES:  # too many waiting: they go with the batches
                gone.append(self._buried)
                self._buried = []
            self._on_packer(gone.clear)

    def _free_waiting(self, done: Any) -> None:
        """The cases of batches let go of (_cached), RELEASE_CASES at a time while the device has
        not reached the event ``done`` (what the caller is about to wait for): where the cache held
        their last reference, freeing them takes the host milliseconds it would otherwise spend
        after the kernel, holding the GIL."""
        buried = self._buried
        while buried and not done.done:
            del buried[-RELEASE_CASES:]

    @contextmanager
    def _packing(self) -> Iterator[None]:
        """A call's work on the solver's packer thread (_on_packer), waited for as the call ends:
        none of it runs after the call returns."""
        try:
            yield
        finally:
            done, self._packed = self._packed, []
            wait(done)

    def _on_packer(self, fn: Callable[..., Any], *args: Any) -> Future:
        """``fn(*args)`` on the solver's packer thread (PACKER), made when a call first needs it;
        it idles between calls. (One made and ended in each call cost the H100 host ~0.5 ms of a
        cold paper set's fed call, its start 0.33-0.35 ms and its end 0.14, where that call's only
        work for it, freeing the batch the cache let go of, took 0.09-0.13 ms.)"""
        if self._packer is None:
            self._packer = ThreadPoolExecutor(1, thread_name_prefix=PACKER)
        self._packed.append(future := self._packer.submit(fn, *args))
        return future

    def _feeder(self, flat: FlatCases, config: LaunchConfig, ids: CaseIds) -> Feeder | None:
        """A fed launch (feed.py) where the batch was not planned before and the launch computes
        scores only (or records moves, Tuning.feed_record), bound by throughput (many cases), in
        more than one step (Tuning.feed_shares); its long chains are first in its order
        (_plan_launches puts them there), else none (a recording launch is then not fed). Only
        a call of one launch is fed (_solve_many): in a call of several the host feeding the first
        plans the next one late (10 sets, H200: 137-148 ms against 130-133 planned whole)."""
        mode = (MODE_SCORE, MODE_RECORD) if self.tuning.feed_record else (MODE_SCORE,)
        if (not self.tuning.feed_shares or config.mode not in mode or config.gather or config.recompute
                or not device.can_write_words()
                or self.tuning.chain_bound(len(flat)) or _batch_key(config, ids) in self._cache):
            return None
        return Feeder.of(flat, config, self.tuning)

    def _fed(self, feeder: Feeder, flat: FlatCases, config: LaunchConfig, ids: CaseIds, scoring: Scoring,
             defines: dict) -> Queued:
        """Start a fed launch's kernel on an empty task list, then plan its steps and upload each
        one's window, codes and selectors on the upload stream, raising the kernel's count of
        tasks ready after each (feed.py; then the count is final); the plan and its device
        inputs cached as a planned batch's. Its Queued holds the fed tasks' buffer and the event
        after each step's copies. A step that raises (a bad letter) ends the feed first: the
        kernel ends with the tasks it has (a recording launch's follower: with its long chains'
        tasks too, Feeder.rest).

        A recording launch (feed.py, "Recording") writes moves from a bound; its follower starts
        on the follow stream right after window 0, on its tasks (Feeder.follow); the walks read
        Feeder.walked (the Queued's ``walked``), queued by _launch behind the kernel. The follower
        is queued while the kernel waits for the host's next window, so nothing it takes may
        synchronize the device: its function is looked up (loaded: under CUDA's lazy loading a
        kernel's first load may wait for the running ones) and its records' storage allocated
        with the tasks' before the kernel starts (every cold paper-set process with it queued
        as fresh work, H100: failed)."""
        streams = self.streams()
        compute, upload = streams.compute, streams.upload
        set_up = t0 = time.perf_counter()
        origin = compute.record()  # FedTimeline's clock (nothing queued before it)
        if config.record:  # nothing compiles while the kernel waits for the host (feed.py)
            load_passes(True)
        else:
            load_passes()
        self.timing["plan"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        sizes = feeder.sizes()
        storage, bound, rows = self._row_storage(config, sizes.rows)
        # one allocation (on a fresh solver's stream each one was a cudaMalloc): the tasks, codes, selectors,
        # follower's records, the feed (tasks ready, final) and each kernel's task counter and error word (each
        # count on a line of its own), the counts zeroed where they are. In the fed launches' own arena, its
        # size a power of two: the cache keeps a fed batch's codes (its replays' inputs), so a cold call
        # finds its block only among those of evicted batches, where on the upload stream's arena at its
        # own size a paper set larger than any freed one (or than their rest, split by other uploads) was a
        # ~20 MB cudaMalloc before its kernel (pool model: SOLVE_PROBE's cold paper set after its warm-up)
        with streams.fed_inputs:
            tasks, base, tsel, follow_d, feed, counter, at = device.empty_packed([
                ((sizes.tasks, NFIELDS), np.int32), ((sizes.base,), np.uint8), ((sizes.tsel,), np.int32),
                ((sizes.follow, NFIELDS), np.int32), ((2,), np.int32), ((2 * len(config.kernels),), np.int32),
                ((8 * int(flat.exon_start[-1]),), np.uint8)], power_of_two=True)
        for count in (feed, counter):
            device.fill_bytes(count, 0, upload)
        with compute:
            moves = self._moves(sizes.moves) if config.record else self._moves_none()
        compute.wait_event(upload.record())  # the counts zeroed
        staging = self._staging(sizes)
        follower = device.function(KERNEL_FILE, config.kernels[1], config.names, defines) if sizes.follow else None
        grid = launch.grid(sizes.tasks, device.device_info()["sms"], config.blocks_per_sm)
        args = (rows, moves, np.int32(scoring.match), np.int32(scoring.mismatch), np.int32(scoring.gap))
        with compute:
            start = compute.record()
            device.function(KERNEL_FILE, config.kernels[0], config.names, defines)((grid,), (THREADS,), (
                tasks, np.int32(-1), counter, base, tsel) + args + (feed,))
            events = (start, compute.record())
        queued_at = time.perf_counter()
        self.timing["launch"] += queued_at - t0
        feeds: list = []
        written: list[float] = []  # host times of the windows' counts
        follow = False  # the follower queued
        handed = 0  # tasks handed over
        sent = [0.0]  # host seconds of a step's codes' copies (upload, not plan)

        def coded(base_at: int, base_size: int, tsel_at: int, tsel_size: int) -> None:
            # a step's codes and selectors copied while its window's records are placed (their
            # order is built after them): the window's copy after them is its records' alone
            t = time.perf_counter()
            for device_array, host, at, size in ((base, staging.base, base_at, base_size),
                                                 (tsel, staging.tsel, tsel_at, tsel_size)):
                send(device_array[at:at + size], host[at:at + size], upload)
            sent[0] += time.perf_counter() - t

        try:
            t1 = time.perf_counter()
            for window in feeder.steps(staging.tasks, staging.base, staging.tsel, coded):
                t2 = time.perf_counter()
                self.timing["plan"] += t2 - t1 - sent[0]
                self.timing["upload"] += sent[0]
                sent[0] = 0.0
                send(tasks[window.first:window.first + window.count],
                     staging.tasks[window.first:window.first + window.count], upload)
                handed = window.first + window.count
                device.write_word(feed, 0, handed, upload)  # after the window's copies, fenced
                feeds.append(upload.record())
                written.append(time.perf_counter())
                if feeder.follow is not None and not follow:  # its tasks read rows and step 0's codes only
                    self._follow(follower, feeder.follow, follow_d, staging.follow, config, start,
                                 (counter[2:], base, tsel) + args)
                    follow = True
                    events += (streams.follow.record(),)
                t1 = time.perf_counter()
                self.timing["upload"] += t1 - t2
        except BaseException:
            if follow:  # the rows the follower waits for: the long chains' tasks not handed over yet
                count = feeder.rest(staging.tasks, handed)
                send(tasks[handed:handed + count], staging.tasks[handed:handed + count], upload)
                device.write_word(feed, 0, handed + count, upload)
            self._end_feed(feed)
            compute.synchronize()  # the kernel ends with the tasks it has: its storage is free again
            streams.follow.synchronize()
            self._rows.give(storage, bound)
            raise
        self._end_feed(feed)
        # The finals' gather first, right behind the kernel: it needs the exons' last rows only.
        t2 = time.perf_counter()
        index, last_row = feeder.input_index(), feeder.last_rows()
        gather = NO_GATHER
        if config.last_rows:  # (sent before the finals' sources: those wait for its copy)
            places, dst = _last_row_gather(flat.exon_start, flat.n, last_row)
            gather = Gather(*UPLOADS.upload("inputs", places, upload), dst)
        t3 = time.perf_counter()
        gathers_d = (self._places.gather(_send_finals_at(flat.exon_start, flat.n, last_row, index, at, upload),
                                         upload), gather)
        compute.wait_event(upload.record())
        with compute:
            finals = self._finals(*gathers_d, rows, config, defines)
        self.timing["plan"] += t3 - t2
        self.timing["upload"] += time.perf_counter() - t3
        # The replays' plan (feed.Feeder.plan: every task placed again, ~6 MB packed and uploaded)
        # took the H100 host 2.2-3.3 ms after the finals, and a cold paper-set call waited for it
        # where the kernel ended first (2 of 5 processes: 1.1 and 2.6 ms; one slow host 24 ms):
        # made when a replay first needs it (Tuning.lazy_replay_plan), else here. A recording
        # launch's walks read it (or a follower's, Feeder.walked) behind the kernel: made here.
        replay_plan = weakref.WeakMethod(self._replay_plan)  # (the cache would hold its solver: a cycle)
        later = partial(_made_by, replay_plan, feeder)
        made, walked = (self._replay_plan(feeder, follow) if config.record
                        else (None, moves) if self.tuning.lazy_replay_plan else (later(), moves))
        inputs = _Inputs(tuple(flat.cases), outputs.Exons(flat.exon_start, index, flat.cells), base, tsel, *gathers_d,
                         made, None if made is not None else later)
        self._cached(_batch_key(config, ids), inputs)
        return Queued(inputs, storage, feeder.rows_size() * rows.dtype.itemsize, rows, counter, moves, walked,
                      events, tuple(feeds), (tasks,), finals, _FedClock(origin, set_up, queued_at, written))

    def _follow(self, kernel, records: np.ndarray, follow, staged: np.ndarray, config: LaunchConfig, start,
                args: tuple) -> None:
        """A fed recording launch's follower (``kernel``, on Feeder.follow's ``records``, copied
        through ``staged`` into ``follow``, the device storage made for them) queued on the
        follow stream behind their copy and the kernel's start (its counters zeroed, row storage
        filled, moves made); ``args``: the wavefront's from its task counter on, but the feed."""
        streams = self.streams()
        n = records.shape[0]
        staged[:n] = records
        send(follow[:n], staged[:n], streams.upload)
        streams.follow.wait_event(streams.upload.record())
        streams.follow.wait_event(start)
        grid = launch.grid(n, device.device_info()["sms"], config.follow_blocks_per_sm)
        with streams.follow:
            kernel((grid,), (THREADS,), (follow[:n], np.int32(n)) + args + (args[0],))

    def _replay_plan(self, feeder: Feeder, walks: bool = False) -> tuple[Replayable, Any]:
        """A fed launch's Plan for replays (feed.Feeder.plan), its tasks in a whole launch's order
        uploaded on the upload stream (the fed order's buffer stays with the fed job until its
        kernel is done); the tasks a recording launch's walks read: with ``walks`` (a follower ran)
        Feeder.walked's, uploaded with them, else the plan's."""
        t0 = time.perf_counter()
        plan = feeder.plan()
        walked = [feeder.walked(plan)] if walks else []
        t1 = time.perf_counter()
        upload = self.streams().upload
        tasks, *walked = UPLOADS.upload("inputs", [plan.tasks] + walked, upload)
        self.timing["plan"] += t1 - t0
        self.timing["upload"] += time.perf_counter() - t1
        return Replayable(plan, tasks, upload.record()), walked[0] if walked else tasks

    def _end_feed(self, feed) -> None:
        """The fed kernel's count final (warps past it end)."""
        upload = self.streams().upload
        device.write_word(feed, 1, 1, upload)
        UPLOADS.sent(_feed_role(), upload.record())

    def _staging(self, sizes: Sizes) -> Staged:
        """Pinned host memory for a fed launch's uploads (each window, codes and selectors at
        their own place: the copies run while the next step is planned): the thread's staging
        buffer, shared by its solvers (a fresh pinned allocation would cost a cold call ms),
        once the last fed launch's copies from it are done."""
        tasks, base, tsel, follow = UPLOADS.hold(_feed_role(), [sizes.tasks * NFIELDS * 4, sizes.base, sizes.tsel * 4,
                                                                sizes.follow * NFIELDS * 4])
        return Staged(tasks.view(np.int32).reshape(-1, NFIELDS), base, tsel.view(np.int32),
                      follow.view(np.int32).reshape(-1, NFIELDS))

    def _encode(self, plan: Plan, config: LaunchConfig, base_letters, target_letters, letter_cases, codes) -> tuple:
        """(base codes, target selectors) on the device, made from the uploaded letters (plan.py,
        "Letters"; encode_inputs) on the compute stream, behind their copy: on the upload stream
        the encoding waited for SMs while the launch before ran (a recording kernel takes every
        block an SM holds), and every later copy of the stream with it, so the host's next
        packing of the staging buffer (PinnedBuffers._staging) waited for that kernel's end."""
        cp = device.cupy()
        streams = self.streams()
        compute = streams.compute
        compute.wait_event(streams.upload.record())
        size, C = plan.base_letters.size, plan.n.size
        with compute:
            base = cp.empty(size, dtype=cp.uint8)
            tsel = cp.empty(plan.target_size, dtype=cp.int32)
            blocks = max(1, min(ENCODE_BLOCKS, max(C, -(-size // ENCODE_THREADS))))
            device.function(KERNEL_FILE, ENCODE_KERNEL, config.names, kernel_defines())(
                (blocks,), (ENCODE_THREADS,),
                (base_letters, np.int32(size), base, target_letters, letter_cases, np.int32(C), codes, tsel))
        return base, tsel

    def _launch(self, work: Work, flat: FlatCases, scoring: Scoring, traceback: bool, feed: bool = True,
                make_room: Callable[[], None] = lambda: None, early: bool = False) -> _Job:
        """Queue one launch on the compute stream: kernel, the gather of its exons' final scores,
        and for traceback either the kernel variant that records moves and trace_chains
        (config.record) or the gather of every exon's last row. Waits for nothing on the device
        (a fed launch: planned and uploaded step by step while its kernel runs, _fed), except in
        ``make_room``, called once it is planned (while its uploads are packed: _inputs), before
        it takes its row storage. ``early``: it
        fits beside the launches queued before it, and takes its row storage before it is planned,
        for the most row elements its cases may take (launch.launch_rows: its plan's within ~2%),
        so that the storage's fill runs while the host plans it (the 10 sets' launch 1: its 4.3 GB
        fill came after its planning, and its kernel started 1.1-1.2 ms after it was queued, H100;
        a fill beside a running score kernel at 2 blocks per SM did not slow it: 31.5 against 31.4
        ms without)."""
        config = self._configure(flat, work.ctype, scoring, traceback)
        defines = kernel_defines()
        compute = self.streams().compute
        feeder = self._feeder(flat, config, work.ids) if feed else None
        if feeder is not None:
            make_room()
            queued = self._fed(feeder, flat, config, work.ids, scoring, defines)
            t0, counted = time.perf_counter(), self.timing["plan"] + self.timing["upload"]
        else:
            elements = launch.launch_rows(flat, config.rows_per_lane)
            storage = self._row_storage(config, elements) if early else None
            try:
                planned, rest = self._inputs(flat, config, work.ids, make_room)
            except BaseException:
                if storage is not None:
                    self._rows.give(storage[0], 0)
                raise
            t0, counted = time.perf_counter(), self.timing["plan"] + self.timing["upload"]
            queued = self._queue(planned, config, scoring, defines, storage or elements, rest)
        inputs, rows = queued.inputs, queued.rows
        with compute:
            finals, best = queued.finals or self._finals(inputs.finals, inputs.gather, rows, config, defines)
            gathered = traced = None
            if config.record:
                traced, parts = self._trace_launch(inputs, flat, rows, queued.moves, queued.walked, config, defines,
                                                   scoring, best, queued.counter[1:2], queued.checkpoints)
            else:
                if config.gather:
                    gathered = self._gather(inputs.gather, rows, config, defines)
                parts = (Part((0, len(flat)), compute.record()),)
        job = _Job(work.sel, inputs, config, queued.storage, queued.used, queued.moves, finals, queued.counter,
                   gathered, traced, queued.events, parts, best[1] if best is not None else None, queued.feeds,
                   queued.held + queued.checkpoints, queued.clock)
        if feeder is not None and traced is None:
            # A fed launch is its call's only one (_launches): its outputs' copy queued now, behind
            # the gather, where the host still makes the call's Results (outputs.pending) when the
            # kernel ends, is there when the host comes to collect it
            job.copies[0] = self._copies(job, 0)
        # (less the batch's rest, _rest: its planning and uploads counted in their own stages)
        self.timing["launch"] += time.perf_counter() - t0 - (self.timing["plan"] + self.timing["upload"] - counted)
        return job

    def _queue(self, inputs: _Inputs, config: LaunchConfig, scoring: Scoring, defines: dict,
               storage: tuple | int, rest: Callable[[], None]) -> Queued:
        """Queue a planned launch's wavefront kernel (and its follower), on its row storage: taken
        before it was planned (_row_storage's, where that holds its plan's rows), or taken now for
        this many row elements; then ``rest``, the batch's uploads its kernels do not read (_rest)."""
        cp = device.cupy()
        plan = inputs.plan
        streams = self.streams()
        compute = streams.compute
        compute.wait_event(inputs.ready)
        dtype = launch.score_dtype(config.ctype)
        used = plan.rows_size * dtype.itemsize
        if isinstance(storage, tuple) and storage[1] < used:  # (not seen: launch_rows bounds its plan's rows)
            self._rows.give(storage[0], 0)
            storage = plan.rows_size
        if not isinstance(storage, tuple):
            storage = self._row_storage(config, max(storage, plan.rows_size))
        storage, rows = storage[0], storage[0][:used].view(dtype)
        sms = device.device_info()["sms"]
        kernels, names = config.kernels, config.names
        with compute:
            # task counter and error word (a wait ran out) of each kernel, zeroed on the stream
            # that runs them (a non-blocking stream does not wait for the default one)
            counter = cp.zeros(2 * len(kernels), dtype=cp.int32)
            moves_size = plan.moves_size
            if not config.followed:
                tasks = follow_tasks = inputs.tasks
            else:
                if inputs.followed is None or inputs.followed.cases != config.followed:
                    f = _followed(plan, config)  # (recomputing walks: the kernel's and the walks' are the plan's)
                    inputs.followed = f._replace(
                        tasks=inputs.tasks if config.recompute else cp.asarray(f.tasks), follow=cp.asarray(f.follow),
                        walked=None if config.recompute else cp.asarray(f.walked))
                tasks, follow_tasks = inputs.followed.tasks, inputs.followed.follow
                moves_size = inputs.followed.moves_size
            if config.recompute:  # no plan's moves: the follower's, then the walks' scratch
                moves_size = MOVE_UNIT * _scratch(plan, config, inputs.followed if config.followed else None)[1]
            moves = self._moves(moves_size) if config.record else self._moves_none()
            ntasks = plan.tasks.shape[0]
            # (the last argument, a fed launch's count of tasks ready, is not read: any pointer)
            args = (tasks, np.int32(ntasks), counter, inputs.base, inputs.tsel, rows, moves,
                    np.int32(scoring.match), np.int32(scoring.mismatch), np.int32(scoring.gap), counter)
            # the column checkpoints the kernel stores and the walks read (held until collected),
            # at offsets planned and sent with the batch's first copy (_inputs); a batch a score
            # call planned has none: laid out here once, uploaded in a pinned copy of their own on
            # the upload stream (a pageable one would hold the host until the compute stream
            # reached it). Laid out and copied here for every launch instead, the 10-set traced
            # call's launch stage went 6 -> 37-45 ms on the H100 (a host wait, not isolated further).
            checkpoints: tuple = ()
            if config.checkpoint_blocks:
                if inputs.checkpoints is None:
                    at, size = checkpoint_layout(plan, config.checkpoint_blocks, config.followed)
                    inputs.checkpoints = (UPLOADS.upload("checkpoints", [at], streams.upload)[0], size)
                    compute.wait_event(streams.upload.record())
                ck_at, size = inputs.checkpoints
                checkpoints = (cp.empty(max(size, 1), dtype=dtype), ck_at)
            grid = launch.grid(ntasks, sms, config.blocks_per_sm)
            follow_grid = launch.grid(follow_tasks.shape[0], sms, config.follow_blocks_per_sm)
            if len(kernels) > 1:
                streams.follow.wait_event(compute.record())  # counters zeroed, rows filled, moves allocated
            start = compute.record()
            device.function(KERNEL_FILE, kernels[0], names, defines)((grid,), (THREADS,), args + checkpoints)
            events = (start, compute.record())
            if len(kernels) > 1:
                with streams.follow:
                    device.function(KERNEL_FILE, kernels[1], names, defines)(
                        (follow_grid,), (THREADS,),
                        (follow_tasks, np.int32(follow_tasks.shape[0]), counter[2:]) + args[3:])
                events += (streams.follow.record(),)
                if not config.followed:  # a chain launch's walk reads the moves its follower records
                    compute.wait_event(events[-1])
        rest()
        # the walks' tasks (with a follower: uploaded by ``rest``)
        walked = (inputs.followed.walked if config.followed and not config.recompute and inputs.followed is not None
                  else inputs.tasks)
        return Queued(inputs, storage, used, rows, counter, moves, walked, events, checkpoints=checkpoints)

    def _row_storage(self, config: LaunchConfig, elements: int) -> tuple[Any, int, Any]:
        """(storage, its bytes, the storage as scores) of a launch's ``elements`` row elements
        (4 GB for a launch of 4.5 paper sets), all EMPTY (plan.empty: words written become
        final), filled on its own stream, which the compute stream waits for; the job holds it
        until it is collected, when no stream uses it any more (kernels on other streams than
        its allocation's)."""
        streams = self.streams()
        dtype = launch.score_dtype(config.ctype)
        nbytes = elements * dtype.itemsize
        storage, filled = self._rows.take(nbytes, streams.fill)
        streams.compute.wait_event(filled)
        return storage, nbytes, storage[:nbytes].view(dtype)

    def _moves(self, words: int) -> Any:
        """A recording launch's move storage of ``words`` (poisoned on the current stream in checked
        runs), in a buffer of the call's size (Split.moves) or more: a kept buffer
        (self._move_storage) where one is large enough, else a new one from the moves' own arena
        of CuPy's pool (Streams.moves: no other storage splits a freed one). The job holds the
        moves until it is collected (then _collect gives the buffer back), when the host has
        waited for every kernel that uses them."""
        buffer, _ = self._move_storage.take(max(4 * words, self._moves_each), self.streams().moves)
        moves = buffer[:4 * words].view(np.uint32)
        self._move_buffers[id(moves)] = buffer
        if self.poison:
            moves.fill(MOVES_POISON)
        return moves

    def _moves_none(self):
        """The moves argument of launches that record none."""
        if self._no_moves is None:
            self._no_moves = device.cupy().zeros(1, dtype=np.uint32)
        return self._no_moves

    def _trace_launch(self, inputs: _Inputs, flat: FlatCases, rows, moves, tasks, config: LaunchConfig,
                      defines: dict, scoring: Scoring, best: tuple | None, error,
                      checkpoints: tuple = ()) -> tuple[Traced, tuple]:
        """Queue trace_chains, one launch per walk of ``launch.walks``: one warp per case walks
        the moves (their strips' lane rows and move offsets in ``tasks``). The walks run after the
        wavefront and its finals, each on a walk stream of its own (Streams.walks), beside one
        another and the next launch's kernel, except the followed cases', whose moves a follower
        records: theirs runs on the follower's stream right after it, beside the others' walks.
        A walk that recomputes moves (config.recompute) sweeps strips, waits bounded by the
        wavefront's error word ``error`` (none: every row it reads is written before it starts).
        Its records are planned once per cached batch while the wavefront runs, and uploaded in
        a pinned copy on the upload stream that the walks wait for (a pageable copy on the
        compute stream would hold the host until the wavefront ends). ``checkpoints``: the column
        checkpoints and their offsets the score kernel stored (config.checkpoint_blocks), where
        the walks' sweeps start. Returns the outputs and the parts ((table rows, the event after
        its walk))."""
        cp = device.cupy()
        long = config.followed
        streams = self.streams()
        if inputs.trace is None or inputs.trace.followed != long:
            info = _walk_records(inputs.plan, flat, config, inputs.followed if long else None, self.tuning)
            inputs.trace = DeviceTrace(long, info, *UPLOADS.upload("inputs", [info.exons, info.cases, info.strips],
                                                                   streams.upload))
            streams.compute.wait_event(streams.upload.record())
        info, exons, table, strips = inputs.trace.info, inputs.trace.exons, inputs.trace.cases, inputs.trace.strips
        C = info.cases.shape[0]
        traced = Traced(cp.empty(2 * C, dtype=cp.int32), cp.empty(4 * info.exons.shape[0], dtype=cp.int32),
                        cp.empty(info.ops_size, dtype=cp.uint8))
        if self.poison:
            traced.ops.fill(OP_POISON)
            traced.out_case.fill(-1)
        made = streams.compute.record()  # the outputs made (and poisoned) after the wavefront
        per_block = TRACE_BLOCK_THREADS // WARP
        kernel = device.function(KERNEL_FILE, config.names[-1], config.names, defines)
        # global ends: the kernel reads no final scores (any pointers of the right types)
        best_score, best_col = best if best is not None else (rows, traced.out_case)
        parts = []
        for k, (a, b) in enumerate(zip(info.bounds[:-1], info.bounds[1:])):
            stream = streams.walks[k % WALK_STREAMS]
            walk_tasks = tasks
            if long and b == C:  # the followed cases, walked last: after the follower
                stream = streams.follow
                if config.recompute:  # their strips by rank in the follower's tasks (trace_inputs)
                    assert inputs.followed is not None
                    walk_tasks = inputs.followed.follow
            stream.wait_event(made)
            with stream:
                kernel(((b - a + per_block - 1) // per_block,), (TRACE_BLOCK_THREADS,),
                       (table[a:b], np.int32(b - a), exons, strips, walk_tasks, rows, inputs.base, inputs.tsel,
                        moves, traced.ops, traced.out_case[2 * a:2 * b], traced.out_exon, np.int32(scoring.match),
                        np.int32(scoring.mismatch), np.int32(scoring.gap), best_score, best_col, error) + checkpoints)
                parts.append(Part((a, b), stream.record()))
        return traced, tuple(parts)

    def _collect(self, job: _Job, part: int = 0) -> tuple[np.ndarray | None, tuple | None]:
        """Wait for one part of one launch only (not what is queued after it) and copy to the
        host on the collect stream: with the first part the final scores (in input order, valid
        until the next launch's), then the part's last rows or traced paths. The next part's
        copies are queued behind its walk before this part is waited for, so that they run while
        the host builds this part's records (a traced paper set's parts: 0.3 ms of the H100 host
        each, copied after the last one's records were built). A kernel fault surfaces as
        CUDARuntimeError; a bounded wait that ran out raises RuntimeError with the last part;
        after the last part the launch's row storage is given back."""
        cp = device.cupy()
        copy = self.streams().collect
        if job.gathered is not None:  # (one part) every exon's last row (host traceback)
            copy.wait_event(job.parts[part].ready)
            self._free_waiting(job.parts[part].ready)
            finals = self._pinned.copy("finals", job.finals, copy)
            exon_rows: tuple | None = cp.asnumpy(job.gathered.rows, stream=copy), job.gathered.starts
            counts = cp.asnumpy(job.counter, stream=copy)
        else:
            got = job.copies.pop(part, None) or self._copies(job, part)
            if part + 1 < len(job.parts):
                job.copies[part + 1] = self._copies(job, part + 1)
            self._free_waiting(got.done)
            got.done.synchronize()
            finals, exon_rows, counts = got.finals, got.traced, got.counts
        if part == len(job.parts) - 1:
            assert counts is not None  # (the last part's copies hold them)
            if counts[1::2].any():
                raise RuntimeError("gpu: a wavefront wait ran out of time (a row hand-off never came)")
            self._rows.give(job.storage, job.used)
            if job.config.record:
                self._move_storage.give(self._move_buffers.pop(id(job.moves)), 0)
        return finals, exon_rows

    def _copies(self, job: _Job, part: int) -> Copied:
        """One part of a launch's outputs (without a host traceback) queued for copying on the
        collect stream, behind the part's last kernel: with the first part the final scores,
        with a device walk's its paths (~9 MB for a data set: through pinned buffers, one per
        part and output)."""
        copy = self.streams().collect
        (a, b), event = job.parts[part].rows, job.parts[part].ready
        copy.wait_event(event)
        finals = self._pinned.copy("finals", job.finals, copy, blocking=False) if part == 0 else None
        # the whole (contiguous) counter array: a strided view's copy would be a CuPy kernel
        counts = self._pinned.copy("counts", job.counter, copy, blocking=False) if part == len(job.parts) - 1 else None
        traced = None
        if job.traced is not None:
            assert job.inputs.trace is not None
            ends = job.inputs.trace.info.ops_end()
            lo, hi = (int(ends[a - 1]) if a else 0), int(ends[b - 1])
            t = job.traced
            traced = tuple(self._pinned.copy((part, i), x, copy, blocking=False) for i, x in enumerate(
                (t.out_case[2 * a:2 * b], t.out_exon, t.ops[lo:hi]))) + (lo,)
        return Copied(finals, traced, counts, copy.record())

    def _gather(self, pieces: Gather, rows, config: LaunchConfig, defines: dict,
                threads: int = GATHER_THREADS) -> Gathered:
        """``pieces`` of row storage (a block of ``threads`` per piece), consecutive on the
        device, and where each piece starts."""
        cp = device.cupy()
        src, dst, length, host_dst = pieces
        out = cp.empty(int(host_dst[-1]), dtype=rows.dtype)
        E = src.size
        gather = device.function(KERNEL_FILE, config.names[-2], config.names, defines)
        gather((max(1, min(E, GATHER_BLOCKS)),), (threads,), (rows, src, dst, length, np.int32(E), out))
        return Gathered(out, host_dst)

    def _finals(self, finals: Gather, last_rows: Gather, rows, config: LaunchConfig, defines: dict) -> tuple:
        """Queue what the host receives of every exon's final score S(last, n): (the scores, in
        input order (``finals``), None), or with free ends (max_j S(last, j) per exon in the
        plan's order, (it, its first column)), read from the exons' ``last_rows``."""
        if config.free_ends:  # max_j S(last, j) per exon (plan order) and its first column
            best = self._row_maxima(last_rows, rows, config, defines)
            return best[0], best
        # by our gather kernel: CuPy's fancy indexing would cost a fresh process its NVRTC start
        return self._gather(finals, rows, config, defines, FINALS_THREADS).rows, None

    def _row_maxima(self, last_rows: Gather, rows, config: LaunchConfig, defines: dict) -> tuple:
        """Free target ends: (each exon's final score max_j S(last, j), the first column j reaching
        it), exons in the plan's order, on the device (last_row_max, one warp per exon)."""
        cp = device.cupy()
        src, _, length, _ = last_rows
        E = src.size
        best = cp.empty(E, dtype=rows.dtype)
        col = cp.empty(E, dtype=cp.int32)
        kernel = device.function(KERNEL_FILE, config.finals_kernel, config.names, defines)
        per_block = GATHER_THREADS // WARP
        kernel((max(1, min((E + per_block - 1) // per_block, GATHER_BLOCKS)),), (GATHER_THREADS,),
               (rows, src, length, np.int32(E), best, col))
        return best, col

    def _work(self, cases: Sequence[TestCase], scoring: Scoring, traceback: bool) -> list[Work]:
        """The launches of a call: cases grouped by score type, each group in consecutive runs
        that fit the call's share of device memory (launch.batches); remembered for the last
        list of cases of each scoring and traceback choice while the memory they take stays
        free (a caller alternating score and traced calls on a data set plans each once: 4 ms
        for the paper set). Launches that record moves (device traceback) also keep within
        Tuning.move_budget."""
        return self._split(cases, scoring, traceback).launches

    def _split(self, cases: Sequence[TestCase], scoring: Scoring, traceback: bool) -> Split:
        """``_work``'s launches, with what they need of the device memory free now (kept row
        storage counted as free: it is let go when the launches would not fit beside it)."""
        free = device.memory_budget(self.memory_cap) + self._held()
        last = self._split_before(cases, scoring, traceback)
        kept = self._move_storage.largest()  # (launches take these where they fit: counted)

        def planned(moves_at_least: int) -> Split:
            split = self._plan_launches(FlatCases.of(cases), scoring, traceback, free, moves_at_least)
            self._works[scoring, traceback] = (tuple(cases), split)
            return split

        if last is not None and last.needs <= free and (not last.moves or kept <= last.moves):
            split = last
        else:
            split = planned(kept)
        if split.moves:  # kept move storage its launches cannot use goes (freed by settle_pool, not mid-call)
            self._move_storage.drop_below(split.moves)
        if self._held() + split.needs > free:
            self._let_go()  # kept storage would crowd out the launches: let go for them
            if split.moves > 0 < kept:  # its move size counted kept buffers, gone now: the launches' own
                split = planned(0)
        self._moves_each = split.moves
        self._keep_moves(split, traceback)
        # what the launches take anew (but row storage from the row blocks let go: _row_bytes), freed
        # in CuPy's pool now, not by its fallback mid-call
        if device.settle_pool(split.needs - self._held() - self._rows.loose_serves(self._row_bytes(split, traceback))):
            self._rows.forget_loose()
            self._move_storage.forget_loose()
        return split

    def _row_bytes(self, split: Split, traceback: bool) -> list[int]:
        """Bytes of row storage each launch of ``split`` takes (_launch: launch.launch_rows at its
        rows per lane, which bounds its plan's; 0.02-0.04 ms for 1-10 paper sets)."""
        out = []
        for work, flat in zip(split.launches, split.flats):
            R = launch.launch_widths(len(flat), work.ctype, traceback and self.on_device(work.ctype), self.tuning,
                                     self.rows_per_lane)[0]
            out.append(launch.launch_rows(flat, R) * launch.score_dtype(work.ctype).itemsize)
        return out

    def _keep_moves(self, split: Split, traceback: bool) -> None:
        """The call's move storage made now, before its first kernel: a buffer of Split.moves for
        each recording launch held at once (launch.queued_at_most), kept ones reused, the others
        from the free blocks of the moves' arena of CuPy's pool where one is large enough, else
        from the device (where it has no room, the arena's free blocks, all smaller, go first:
        FilledBuffers; here, not mid-call). Made as each launch came (_moves), they counted as
        bytes the device must have free, and settle_pool freed the whole pool where it had less:
        a 1-set traced call after a score call (which let the kept storage go) freed 73 GB, the
        last traced call's free 17 GB move blocks among them, and made 11.9 GB again (SOLVE_PROBE
        seed 1504000, pool model; 132 against ~29 ms, H100). A fed recording launch
        (Tuning.feed_record: a call's only launch) takes the feed's bound instead (feed.Sizes):
        none made for it."""
        if not split.moves or (self.tuning.feed_record and len(split.launches) == 1):
            return
        recording = [int(traceback and self.on_device(w.ctype)) for w in split.launches]
        self._move_storage.reserve(launch.queued_at_most(split.sizes, split.room, recording), split.moves,
                                   self.streams().moves)

    def _split_before(self, cases: Sequence[TestCase], scoring: Scoring, traceback: bool) -> Split | None:
        """The Split remembered of the last call with this scoring and traceback where it had these
        very case objects (a data set solved again), else None."""
        last = self._works.get((scoring, traceback))
        # the same case objects: a C-level loop (0.2 against 0.6 ms for 10,100 cases)
        if last is not None and len(last[0]) == len(cases) and all(map(operator.is_, last[0], cases)):
            return last[1]
        return None

    def _launches(self, cases: Sequence[TestCase], scoring: Scoring,
                  traceback: bool) -> tuple[int, Launches]:
        """(the device bytes the call's launches queued at once may take, its launches: each
        one's work, cases as arrays, device bytes, whether it is the call's only launch). A call
        without traceback on cases not split before is split as it goes (_streamed), else by _split."""
        if traceback or self._split_before(cases, scoring, traceback) is not None:
            split = self._split(cases, scoring, traceback)
            only = len(split.launches) == 1
            return split.room, ((w, f, s, only) for w, f, s in zip(split.launches, split.flats, split.sizes))
        free = device.memory_budget(self.memory_cap) + self._held()
        share, in_flight = launch.memory_split(0, free, IN_FLIGHT)
        if self._held() + min(share * in_flight, free) > free:
            self._let_go()  # kept storage would crowd out the launches: let go for them
        return share * in_flight, self._streamed(cases, scoring, free, share)

    def _streamed(self, cases: Sequence[TestCase], scoring: Scoring, free: int, share: int) -> Launches:
        """The launches of a call without traceback on never-seen cases, each made as soon as
        its last case is split: the cases are split chunk by chunk (_split_chunk) and cut into
        launches as they come (launch.Cutter), so that the first launch is planned and its
        kernel runs while the host splits the rest (10 sets: the split of 10,100 cases, 15-23
        ms of Python, came before the first launch's planning). int-score launches in order,
        then those of cases with int64 scores (plan_launches). Remembered as _split's split."""
        tuning, C = self.tuning, len(cases)
        cutter = launch.Cutter(share, C, tuning)
        parts: list[tuple[FlatCases, np.ndarray, int]] = []  # the open launch's runs: cases, indices, bytes
        wide: list[tuple[FlatCases, np.ndarray]] = []  # cases with int64 scores: launched last
        made: list[tuple[Work, FlatCases, int]] = []

        def close(only: bool) -> tuple[Work, FlatCases, int, bool]:
            flat = FlatCases.join([p[0] for p in parts])
            sel = np.concatenate([p[1] for p in parts])
            size = sum(p[2] for p in parts)
            parts.clear()
            if only and tuning.feed_shares:  # a fed launch: its long chains first (feed.py)
                first = launch.long_chains_first(flat, np.arange(len(flat)), tuning)
                flat, sel = flat.select(first), sel[first]
            made.append((self._launch_work("int", sel.tolist(), cases), flat, size))
            return made[-1] + (only,)

        pos, chunk = 0, SPLIT_FIRST
        while pos < C:
            end = C if C - pos < chunk + SPLIT_LEAST else pos + chunk
            flat = self._split_chunk(cases, pos, end)
            w = launch.wide_scores(flat, scoring, tuning, self.rows_per_lane)
            idx = np.arange(len(flat))
            if w.any():
                wide.append((flat.select(np.flatnonzero(w)), pos + np.flatnonzero(w)))
                idx = np.flatnonzero(~w)
                flat = flat.select(idx)
            rows, sizes = launch.score_sizes(flat, free, tuning, self.rows_per_lane)
            a = 0
            while a < len(flat):
                k = cutter.take(rows[a:], sizes[a:])
                parts.append((flat.select(np.arange(a, a + k)), pos + idx[a:a + k], int(sizes[a:a + k].sum())))
                a += k
                if a < len(flat):  # the launch is full: the next cases start another
                    yield close(False)
            pos = end
            chunk = max(SPLIT_LEAST, int(cutter.estimate() * 1.05) + 32)  # a little over: one chunk a launch
        if parts:
            yield close(not made and not wide)
        if wide:
            flat = FlatCases.join([f for f, _ in wide])
            sel = np.concatenate([i for _, i in wide])
            split = self._plan_launches(flat, scoring, False, free)
            for work, sub, size in zip(split.launches, split.flats, split.sizes):
                made.append((self._launch_work(work.ctype, sel[work.sel].tolist(), cases), sub, size))
                yield made[-1] + (len(made) == 1 and len(split.launches) == 1,)
        sizes_made = [m[2] for m in made]
        room = share * IN_FLIGHT
        self._works[scoring, False] = (tuple(cases), Split(room, [m[0] for m in made], [m[1] for m in made],
                                                            sizes_made,
                                                            min(launch.queued_at_most(sizes_made, room), free)))

    def _split_chunk(self, cases: Sequence[TestCase], a: int, b: int) -> FlatCases:
        """Cases [a, b) of a call as arrays (a step of _streamed): from their columns where the
        call's cases have them (records.CaseSet)."""
        return FlatCases.of(cases.window(a, b) if isinstance(cases, CaseSet) else cases[a:b])

    @staticmethod
    def _launch_work(ctype: str, sel: list[int], cases: Sequence[TestCase]) -> Work:
        """A launch of the call's cases ``sel``."""
        batch = list(map(cases.__getitem__, sel))
        return Work(ctype, sel, batch, CaseIds(batch))

    def _plan_launches(self, flat: FlatCases, scoring: Scoring, traceback: bool, free: int,
                       moves_at_least: int = 0) -> Split:
        room, work, sizes, moves = launch.plan_launches(flat, scoring, traceback, free, self.on_device, self.tuning,
                                                        self.rows_per_lane, moves_at_least)
        launches = [self._launch_work(ctype, sel, flat.cases) for ctype, sel in work]
        return Split(room, launches, [flat.select(w.sel) for w in launches], sizes,
                     min(launch.queued_at_most(sizes, room), free), moves)

    def solve_many(self, cases: Sequence[TestCase], scoring: Scoring = Scoring(),
                   traceback: bool = True) -> list[Result]:
        """Cases grouped by score type, each group in launches that fit the device memory.
        The host plans (or finds in the cache) and queues launch i+1 while the GPU runs launch
        i, collecting older launches only when launch i+1 would not fit beside them
        (Split.room), and builds launch i's results while the GPU runs the next."""
        refuse_free_ends(scoring, self.name)  # only where switched off: solvers.GLOBAL_ENDS_ONLY
        with collection_paused() as settle, self._packing():
            return self._solve_many(cases, scoring, traceback, settle)

    def _solve_many(self, cases: Sequence[TestCase], scoring: Scoring, traceback: bool,
                    settle: Callable[[], None]) -> list[Result]:
        self.timing = dict.fromkeys(STAGES, 0.0)
        self.fed_ms = None
        t0 = called = time.perf_counter()
        room, launches = self._launches(cases, scoring, traceback)
        self.timing["split"] += time.perf_counter() - t0
        results: list[Result | None] = [None] * len(cases)
        queued: deque[_InFlight] = deque()
        events = []
        fed: tuple[_FedClock, tuple, tuple] | None = None  # the call's fed launch (its only one): clock, events, feeds
        t_prev, l_prev = time.perf_counter(), loading.seconds()

        later: list[Callable[[], None]] = []  # a collected launch's parts' records and Results, to build

        def finish(now: bool = True) -> None:
            # A launch's score time is the wall time since the previous launch's scores
            # arrived, so the launches' times add up to the call's. A launch in parts (its
            # device walks) gives the host each part's results while the GPU still walks the next.
            # Not ``now`` (collected to make room for a launch): its parts' records and Results
            # are left in ``later``, built once that launch is queued (built_later).
            nonlocal t_prev, l_prev
            q = queued.popleft()
            job = q.job
            made = q.made if q.made is not None else pending(q)
            for part, rows in enumerate(p.rows for p in job.parts):
                t1 = time.perf_counter()
                got, exon_rows = self._collect(job, part)
                t2 = time.perf_counter()
                if part == 0:
                    l2 = loading.seconds()  # kernels compiled or loaded meanwhile: not the launch's time
                    t_score, t_prev, l_prev = t2 - t_prev - (l2 - l_prev), t2, l2
                    scored = outputs.scores(job.inputs.exons, made, got, t_score, job.config.free_ends)
                self.timing["finals"] += t2 - t1
                self.timing["traceback"] += time.perf_counter() - t2
                step = partial(build, q, made, scored, t_score, rows, exon_rows)
                if now:
                    step()
                else:
                    later.append(step)

        def build(q: _InFlight, made: outputs.Pending, scored: tuple, t_score: float, rows: tuple[int, int],
                  exon_rows: tuple | None) -> None:  # one collected part's records and Results
            t2 = time.perf_counter()
            job = q.job
            which: Sequence[int] = range(*rows)
            if exon_rows is None:
                traced = None
            elif job.traced is not None:
                info = job.inputs.trace.info
                which = info.order[rows[0]:rows[1]].tolist()
                traced = outputs.device_traceback(info, rows, *exon_rows, leading=not scoring.free_ends)
            else:
                traced = outputs.host_traceback(q.work.batch, job.inputs.exons, *exon_rows, scoring)
            t3 = time.perf_counter()
            outputs.results(made, scored, t_score, traced, which)  # (in ``results`` since ``pending``)
            self.timing["traceback"] += t3 - t2
            self.timing["results"] += time.perf_counter() - t3

        def built_later() -> None:
            while later:
                later.pop(0)()

        def pending(q: _InFlight) -> outputs.Pending:
            t0 = time.perf_counter()
            made = outputs.pending(self.name, q.work.batch, q.job.inputs.exons)
            for c, result in zip(q.work.sel, made.results):
                results[c] = result
            self.timing["results"] += time.perf_counter() - t0
            return made

        def make_room(size: int) -> None:
            # older launches collected until this one fits beside the rest (their storage given
            # back), their records and Results built once it is queued: its kernels wait for no
            # Python objects. A part's outputs are read from pinned buffers that the next
            # collection reuses (GpuSolver._copies): what an earlier one left is built first.
            for _ in range(launch.collected_first([q.size for q in queued], size, room)):
                built_later()
                finish(now=False)

        try:
            while True:
                t0 = time.perf_counter()
                got = next(launches, None)  # (a streamed split: the cases of the next launch split now)
                self.timing["split"] += time.perf_counter() - t0
                if got is None:
                    break
                w, sub, size, only = got
                # planned, then queued once it fits: the host plans it while the GPU still runs the
                # launches before (two of the largest size fit at once)
                early = not launch.collected_first([q.size for q in queued], size, room)
                job = self._launch(w, sub, scoring, traceback, feed=only, make_room=lambda s=size: make_room(s),
                                   early=early)
                events.append(job.events)
                built_later()  # (what make_room collected for it)
                if job.clock is not None:
                    fed = (job.clock, job.events, job.feeds)
                if queued and queued[-1].made is None:  # the launch before: results made ready while the GPU runs
                    queued[-1].made = pending(queued[-1])
                queued.append(_InFlight(job, w, size))
        except BaseException:
            # a later launch failed (a bad letter found planning it, a case found too large as the
            # split goes): the queued kernels end before their storage goes back to CuPy's pool
            launches.close()
            later.clear()
            for stream in (self.streams().compute, self.streams().follow, *self.streams().walks):
                stream.synchronize()
            self._move_buffers.clear()  # (the queued launches' move storage goes with them)
            raise
        if queued and queued[-1].made is None:  # the last launch's too, before the collector's pass
            queued[-1].made = pending(queued[-1])
        t0 = time.perf_counter()
        # the collector's pass while the GPU runs the last launches, not while the host plans: what
        # the Results made by pending count is collected here, and the pass after the call finds
        # little made since (a cold paper set: 0.3-0.7 ms of the H100 host after its kernel)
        settle()
        self.timing["results"] += time.perf_counter() - t0
        while queued:
            finish()
            if queued:  # what the launch's results made, while the GPU runs the next ones
                settle()
        cp = device.cupy()
        device.check(cp)
        self._rows.refill(self.streams().fill)  # beside the caller's next steps
        settle()  # what the last parts made (traced records): no collection due after the call
        self.kernel_ms = [cp.cuda.get_elapsed_time(*pair[:2]) for pair in events]
        self.fed_ms = fed[0].timeline(called, *fed[1:]) if fed is not None else None
        self.span_ms = max(cp.cuda.get_elapsed_time(events[0][0], e[-1]) for e in events) if events else 0.0
        return results  # type: ignore[return-value]

    def solve(self, case: TestCase, scoring: Scoring = Scoring(), traceback: bool = True) -> Result:
        return self.solve_many([case], scoring, traceback)[0]
