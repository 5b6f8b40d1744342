"""``gpu``: every case of a batch in one persistent wavefront launch (wavefront.cu).

The GPU computes all exons' last rows; the host gets the exons' final scores. Traceback: with
``device_trace``, the wavefront also records every cell's move and one warp per case walks its
chain over them (``trace_chains``): the host gets each chain and its ops; otherwise the host
gets every exon's last row and ``trace_chain`` recomputes the chain's exons on a thread pool.
Both make the same choices.
"""

from __future__ import annotations

import operator
import os
import time
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from splicedalign.core.collection import collection_paused
from splicedalign.gpu import device
from splicedalign.workloads.spliced.backtrack import chain_alignments_many, trace_chain
from splicedalign.workloads.spliced.base import LastRowSolver, refuse_free_ends
from splicedalign.workloads.spliced.cpu_kernels import profile, score_dtype
from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu.plan import (
    DENSE_LANE_ROWS, MIN_BLOCKS_PER_SM, MODE_FOLLOW, MODE_RECORD, MODE_SCORE, THREADS, TRACE_BLOCK_THREADS,
    TRACE_CASE_FIELDS, WARP, EMPTY_BYTE, Plan, TraceInputs, build_plan, byte_profile_ok, entry_folds, followed_tasks,
    kernel_defines, least_lane_rows, score_ctype, selectors, trace_inputs)
from splicedalign.workloads.spliced.records import Result, Scoring, TestCase

KERNEL_FILE = Path(__file__).with_name("wavefront.cu")
GATHER_THREADS = 256
GATHER_BLOCKS = 65_535  # the gather loops over exons grid-stride; more blocks add nothing
TRACE_THREADS = os.cpu_count() or 1
# Launches queued at once (each holds its row storage on the device): two let the host work on
# one launch while the GPU runs the other.
IN_FLIGHT = 2
ROW_STORAGE_KEPT = IN_FLIGHT + 1  # launches' row storage kept filled between calls (GpuSolver._rows)
CACHE_BATCHES = 8  # planned batches kept with their device inputs, most recently used
STAGES = ("plan", "launch", "finals", "traceback", "results")  # host seconds of a call, by stage
# Default traceback: on the device (moves recorded by the wavefront, trace_chains) for int
# scores, which the device check compares with the host traceback on every case (docs/gpu.md);
# launches with int64 scores trace on the host unless a solver is made with device_trace=True
# (no checked case needed int64 scores).
DEVICE_TRACE = True
OP_POISON = 0xFF  # what unwritten op bytes hold in checked runs (no op has this code)
MOVES_POISON = 0xFFFFFFFF  # unwritten moves in checked runs: every cell "left", a wrong path


def variant(ctype: str, rows_per_lane: int, bytes_profile: bool, mode: int = MODE_SCORE,
            followed: bool = False) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
    """(rows per lane, the wavefront kernels a launch of this configuration runs, every kernel
    compiled with them: those, then the gather and the trace kernel). ``mode`` (plan.MODE_*):
    MODE_FOLLOW runs the MODE_SCORE kernel and its follower; ``followed``: the MODE_RECORD kernel
    and a follower for its longest chains (launch.long_chains). The plan must be built with the
    rows per lane the kernel holds; NVRTC compiles a variant on its first use only."""
    if ctype != "int":
        rows_per_lane = launch.WIDE_ROWS_PER_LANE
    profile_kind = "true" if bytes_profile else "false"
    wave = lambda m: f"wavefront<{ctype}, {rows_per_lane}, {profile_kind}, {m}>"  # noqa: E731
    if mode == MODE_FOLLOW or followed:
        kernels = (wave(MODE_SCORE if mode == MODE_FOLLOW else mode), wave(MODE_FOLLOW))
    else:
        kernels = (wave(mode),)
    return rows_per_lane, kernels, kernels + (f"gather_rows<{ctype}>", f"trace_chains<{ctype}>")


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


@dataclass
class _Inputs:
    """A planned batch with its inputs on the device (cached per batch of case objects)."""
    cases: tuple[TestCase, ...]  # held so that the ids in the cache key stay theirs
    plan: Plan
    tasks: object
    base: object
    tsel: object
    at: object  # row-storage offset of every exon's final score S(last, n), in input order
    gather: tuple  # each exon's last row: source offsets, destinations, lengths; host destinations
    ready: object  # event: the uploads are done
    long: list[int]  # its longest chains (launch.long_chains), found once per planned batch
    # device traceback: (the followed cases it was planned for, TraceInputs, exons, cases, strips on the device)
    trace: tuple | None = None
    # a recording launch's longest chains: (their case indices, the launch's, the follower's and
    # the walks' tasks on the device, the move storage's size; plan.followed_tasks)
    followed: tuple | None = None


@dataclass
class _Job:
    """One queued launch: what collecting it needs, and its inputs kept alive until then."""
    sel: list[int]
    inputs: _Inputs
    storage: object  # the launch's row storage (from GpuSolver._rows), given back once collected
    used: int  # bytes of it the launch may write
    moves: object  # its move storage: held until collected (a follower and a walk use it on another stream)
    finals: object
    counter: object
    gathered: tuple | None
    traced: tuple | None  # device traceback: out_case, out_exon, ops on the device
    events: tuple  # (kernel start, kernel end) and, where a follower runs, its end
    # collected in parts: ((first, end) rows of the trace table, or cases, and the event after
    # which they are ready) each: one per device walk of a recording launch (launch.walks), so
    # that the host builds one walk's records while the GPU walks the next; else one
    parts: tuple


class GpuSolver(LastRowSolver):
    name = "gpu"

    def __init__(self, rows_per_lane: int | None = None, poison: bool = False,
                 byte_profile: bool | None = None, device_trace: bool | None = None) -> None:
        self.rows_per_lane = rows_per_lane  # None: launch.launch_rows_per_lane of each launch
        self.device_trace = device_trace  # None: DEVICE_TRACE for int scores (on_device)
        self.byte_profile = byte_profile  # None: PRMT byte profile whenever the scoring fits
        self.poison = poison  # fill moves and traceback outputs with poison first (all must be written)
        self.kernel_ms: list[float] = []  # device time of each launch of the last call
        self.timing: dict[str, float] = {}  # host seconds of the last call, by stage
        self._cache: OrderedDict[tuple, _Inputs] = OrderedDict()
        self._works: dict[tuple, tuple] = {}  # (scoring, traceback): (the last list of cases, its work)
        self._streams: tuple | None = None
        self._no_moves = None  # the moves argument of launches that record none
        self._pinned = device.PinnedBuffers()  # the traceback's outputs, reused per call
        # Row storage kept for the next launches: a collected launch's is filled with EMPTY
        # again once the call's kernels are done, so the next call's launches find it ready
        # (a launch of 4 GB waited 1.6 ms for its fill). A call of up to ROW_STORAGE_KEPT
        # launches fills none while its kernels run.
        self._rows = device.FilledBuffers(EMPTY_BYTE, ROW_STORAGE_KEPT)

    def _widest(self) -> int:
        """The most rows per lane a launch of this solver may hold."""
        return self.rows_per_lane or max(launch.ROWS_PER_LANE, launch.CHAIN_ROWS_PER_LANE)

    def on_device(self, ctype: str) -> bool:
        """Whether a launch with scores of ``ctype`` traces back on the device."""
        return DEVICE_TRACE and ctype == "int" if self.device_trace is None else self.device_trace

    def clear_cache(self) -> None:
        """Forget planned batches (the next call plans and uploads again)."""
        self._cache.clear()
        self._works.clear()
        self._rows.clear()

    def _stream_pair(self) -> tuple:
        """(compute, upload, follow, fill) streams, kept for the solver's life: uploads of the
        next batch do not wait for the running kernel, a follower runs beside its score kernel,
        row storage is filled beside kernels, and CuPy's per-stream pools reuse device
        buffers."""
        if self._streams is None:
            cp = device.cupy()
            self._streams = tuple(cp.cuda.Stream(non_blocking=True) for _ in range(4))
        return self._streams

    def _inputs(self, cases: Sequence[TestCase], R: int, ctype: str, ids: CaseIds | None = None) -> _Inputs:
        """The batch's plan and device inputs: from the cache when this very list of case
        objects was planned before with this shape (a data set solved again), else planned and
        uploaded on the upload stream."""
        key = (R, ctype, ids or CaseIds(cases))  # each case's lane-rows floor follows from these
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        cp = device.cupy()
        t0 = time.perf_counter()
        late = launch.late_folds(cases)  # folds off the chains: late, and written by entry rows where they can
        plan = build_plan(cases, R, launch.lane_rows_floor(cases, R, least_lane_rows(ctype)), late,
                          late & entry_folds(ctype, R))
        self.timing["plan"] += time.perf_counter() - t0
        length = plan.n[plan.exon_case] + 1
        dst = np.concatenate(([0], np.cumsum(length)))
        at = np.empty_like(plan.last_row)  # the finals arrive in input order: no scatter on the host
        at[plan.input_index] = plan.last_row + plan.n[plan.exon_case]
        upload = self._stream_pair()[1]
        with upload:
            inputs = _Inputs(
                tuple(cases), plan, cp.asarray(plan.tasks), cp.asarray(plan.base), cp.asarray(selectors(plan.target)),
                cp.asarray(at),
                (cp.asarray(plan.last_row), cp.asarray(dst[:-1]), cp.asarray(length.astype(np.int32)), dst),
                upload.record(), launch.long_chains(cases))
        self._cache[key] = inputs
        while len(self._cache) > CACHE_BATCHES:
            self._cache.popitem(last=False)
        return inputs

    def _launch(self, sel: list[int], cases: Sequence[TestCase], scoring: Scoring, ctype: str,
                traceback: bool, on_device: bool, ids: CaseIds | None = None) -> _Job:
        """Queue one launch on the compute stream: kernel, the gather of its exons' final scores,
        and for traceback either the kernel variant that records moves and trace_chains
        (``on_device``) or the gather of every exon's last row. Waits for nothing on the device."""
        cp = device.cupy()
        use_bytes = byte_profile_ok(scoring) and self.byte_profile is not False
        record = traceback and on_device
        width = self.rows_per_lane or launch.launch_rows_per_lane(len(cases))
        R = variant(ctype, width, use_bytes)[0]
        # A launch bound by its dependent chains (few cases) records moves in a follower on
        # the SMs the chain leaves idle; a throughput-bound one in its score kernel (the
        # recording kernel exists for throughput widths only: wider ones always follow).
        follow = record and (launch.chain_bound(len(cases)) or R > DENSE_LANE_ROWS)
        mode = MODE_FOLLOW if follow else MODE_RECORD if record else MODE_SCORE
        inputs = self._inputs(cases, R, ctype, ids)
        # a throughput launch that records leaves its longest chains' moves to a follower (the
        # kernel computes those strips at score speed)
        long = inputs.long if record and not follow else []
        _, kernels, names = variant(ctype, width, use_bytes, mode, followed=bool(long))
        t0 = time.perf_counter()
        defines = kernel_defines()
        plan = inputs.plan
        compute, _, follow_stream, fill = self._stream_pair()
        compute.wait_event(inputs.ready)
        # Row storage (4 GB for a launch of 4.5 paper sets) all EMPTY (plan.empty: words written
        # become final), filled on its own stream; the job holds it until it is collected, when
        # no stream uses it any more (kernels on other streams than its allocation's).
        dtype = np.dtype(np.int32 if ctype == "int" else np.int64)
        used = plan.rows_size * dtype.itemsize
        storage, filled = self._rows.take(used, fill)
        compute.wait_event(filled)
        rows = storage[:used].view(dtype)
        sms = device.device_info()["sms"]
        ntasks = plan.tasks.shape[0]
        with compute:
            # task counter and error word (a wait ran out) of each kernel, zeroed on the stream
            # that runs them (a non-blocking stream does not wait for the default one)
            counter = cp.zeros(2 * len(kernels), dtype=cp.int32)
            tasks = follow_tasks = walked = inputs.tasks
            moves_size = plan.moves_size
            if long:
                if inputs.followed is None or inputs.followed[0] != tuple(long):
                    *copies, size = followed_tasks(plan, long, least_lane_rows(ctype))
                    inputs.followed = (tuple(long), *map(cp.asarray, copies), size)
                tasks, follow_tasks, walked, moves_size = inputs.followed[1:]
            if record:
                moves = cp.empty(moves_size, dtype=cp.uint32)
                if self.poison:
                    moves.fill(MOVES_POISON)
            else:
                if self._no_moves is None:
                    self._no_moves = cp.zeros(1, dtype=cp.uint32)
                moves = self._no_moves
            args = (tasks, np.int32(ntasks), counter, inputs.base, inputs.tsel, rows, moves,
                    np.int32(scoring.match), np.int32(scoring.mismatch), np.int32(scoring.gap))
            # A follower beside a chain-bound kernel and the kernel must both be resident (the
            # follower waits on rows only the kernel writes): together at most the
            # MIN_BLOCKS_PER_SM blocks that fit. A follower of long chains takes the SMs the
            # recording kernel leaves in its tail, with fewer blocks per SM than fit, so that
            # the kernel keeps room if the follower starts first (launch.FOLLOW_BLOCKS_PER_SM).
            per_sm = launch.blocks_per_sm(len(cases))
            grid = launch.grid(ntasks, sms, min(per_sm, MIN_BLOCKS_PER_SM // 2) if follow else per_sm)
            follow_grid = launch.grid(follow_tasks.shape[0], sms, launch.FOLLOW_BLOCKS_PER_SM) if long else grid
            if len(kernels) > 1:
                follow_stream.wait_event(compute.record())  # counters zeroed, rows filled, moves allocated
            start = compute.record()
            device.function(KERNEL_FILE, kernels[0], names, defines)((grid,), (THREADS,), args)
            events = (start, compute.record())
            if len(kernels) > 1:
                with follow_stream:
                    device.function(KERNEL_FILE, kernels[1], names, defines)(
                        (follow_grid,), (THREADS,),
                        (follow_tasks, np.int32(follow_tasks.shape[0]), counter[2:]) + args[3:])
                events += (follow_stream.record(),)
                if not long:  # a chain launch's walk reads the moves its follower records
                    compute.wait_event(events[-1])
            finals = rows[inputs.at]
            gathered = traced = None
            if record:
                traced, parts = self._trace_launch(inputs, cases, rows, moves, walked, names[-1], names, defines,
                                                   scoring, long)
            else:
                if traceback:
                    gathered = self._gather(inputs, rows, names[-2], names, defines)
                parts = (((0, len(cases)), compute.record()),)
        self.timing["launch"] += time.perf_counter() - t0
        return _Job(sel, inputs, storage, used, moves, finals, counter, gathered, traced, events, parts)

    def _trace_launch(self, inputs: _Inputs, cases: Sequence[TestCase], rows, moves, tasks, name: str,
                      names: tuple[str, ...], defines: dict, scoring: Scoring,
                      long: list[int]) -> tuple[tuple, tuple]:
        """Queue trace_chains, one launch per walk of ``launch.walks``: one warp per case walks
        the moves (their strips' lane rows and move offsets in ``tasks``). The walks run on the
        compute stream after the wavefront, except the ``long`` cases', whose moves a follower
        records: theirs runs on the follower's stream right after it, beside the others' walks.
        Its records are planned and uploaded once per cached batch. Returns the outputs and the
        parts ((table rows, the event after its walk))."""
        cp = device.cupy()
        if inputs.trace is None or inputs.trace[0] != tuple(long):
            info = trace_inputs(inputs.plan, cases, launch.walks(cases, long))
            inputs.trace = (tuple(long), info, cp.asarray(info.exons), cp.asarray(info.cases), cp.asarray(info.strips))
        _, info, exons, table, strips = inputs.trace
        C = info.cases.shape[0]
        out_case = cp.empty(2 * C, dtype=cp.int32)
        out_exon = cp.empty(4 * info.exons.shape[0], dtype=cp.int32)
        ops = cp.empty(info.ops_size, dtype=cp.uint8)
        if self.poison:
            ops.fill(OP_POISON)
            out_case.fill(-1)
        compute, _, follow_stream, _ = self._stream_pair()
        made = compute.record()  # the outputs made (and poisoned) after the wavefront
        per_block = TRACE_BLOCK_THREADS // WARP
        kernel = device.function(KERNEL_FILE, name, names, defines)
        parts = []
        for a, b in zip(info.bounds[:-1], info.bounds[1:]):
            stream = compute
            if long and b == C:  # the followed cases, walked last: after the follower and `made`
                stream = follow_stream
                stream.wait_event(made)
            with stream:
                kernel(((b - a + per_block - 1) // per_block,), (TRACE_BLOCK_THREADS,),
                       (table[a:b], np.int32(b - a), exons, strips, tasks, rows, inputs.base, inputs.tsel,
                        moves, ops, out_case[2 * a:2 * b], out_exon, np.int32(scoring.gap)))
                parts.append(((a, b), stream.record()))
        return (out_case, out_exon, ops), tuple(parts)

    def _collect(self, job: _Job, part: int = 0) -> tuple[np.ndarray | None, tuple | None]:
        """Wait for one part of one launch only (not what is queued after it) and copy to the
        host on the upload stream: with the first part the final scores (in input order, valid
        until the next launch's), then the part's last rows or traced paths. A kernel fault
        surfaces as CUDARuntimeError; a bounded wait that ran out raises RuntimeError with the
        last part; after the last part the launch's row storage is given back."""
        cp = device.cupy()
        copy = self._stream_pair()[1]
        (a, b), event = job.parts[part]
        copy.wait_event(event)
        finals = self._pinned.copy("finals", job.finals, copy) if part == 0 else None
        last = part == len(job.parts) - 1
        error = cp.asnumpy(job.counter[1::2], stream=copy) if last else None
        # (last rows, their offsets) or, traced on the device, (out_case, out_exon, ops, first op)
        exon_rows = None
        if job.gathered is not None:
            exon_rows = cp.asnumpy(job.gathered[0], stream=copy), job.gathered[1]
        elif job.traced is not None:  # ~9 MB for a data set: through pinned buffers
            out_case, out_exon, ops = job.traced
            ends = job.inputs.trace[1].cases[:, TRACE_CASE_FIELDS.index("ops")]
            lo, hi = (int(ends[a - 1]) if a else 0), int(ends[b - 1])
            exon_rows = tuple(self._pinned.copy((part, i), x, copy) for i, x in enumerate(
                (out_case[2 * a:2 * b], out_exon, ops[lo:hi]))) + (lo,)
        copy.synchronize()
        if last:
            if error.any():
                raise RuntimeError("gpu: a wavefront wait ran out of time (a row hand-off never came)")
            self._rows.give(job.storage, job.used)
        return finals, exon_rows

    def _gather(self, inputs: _Inputs, rows, name: str, names: tuple[str, ...], defines: dict):
        """Every exon's last row, consecutive on the device, and where each exon's row starts."""
        cp = device.cupy()
        src, dst, length, host_dst = inputs.gather
        out = cp.empty(int(host_dst[-1]), dtype=rows.dtype)
        E = src.size
        gather = device.function(KERNEL_FILE, name, names, defines)
        gather((max(1, min(E, GATHER_BLOCKS)),), (GATHER_THREADS,), (rows, src, dst, length, np.int32(E), out))
        return out, host_dst

    def _trace(self, batch: Sequence[TestCase], plan: Plan, host: np.ndarray, dst: np.ndarray,
               scoring: Scoring) -> list[tuple]:
        """(chain, alignment, seconds) per case: ``trace_chain`` on a thread pool (its compiled
        kernels release the GIL), each case from its exons' last rows."""
        def one(c: int) -> tuple:
            t0 = time.perf_counter()
            case = batch[c]
            dtype = score_dtype(case.m, case.n, scoring)
            a, b = plan.exon_start[c], plan.exon_start[c + 1]
            last = host[dst[a]:dst[b]].reshape(b - a, case.n + 1).astype(dtype, copy=False)
            chain, alignment = trace_chain(case, scoring, last, profile(case.target_codes, scoring, dtype))
            return chain, alignment, time.perf_counter() - t0
        with ThreadPoolExecutor(max_workers=TRACE_THREADS) as pool:
            return list(pool.map(one, range(len(batch))))

    @staticmethod
    def _traced(info: TraceInputs, rows: tuple[int, int], out_case: np.ndarray, out_exon: np.ndarray,
                ops: np.ndarray, first_op: int) -> list[tuple]:
        """(chain, alignment, seconds) per case of the trace table's ``rows`` (cases
        info.order[rows]) from trace_chains' output (a case's chain exons in trace order at its
        first exon slots, its ops forward at the end of its region; ``ops`` from op
        ``first_op`` on), built for those cases at once; their seconds apportioned by ops."""
        t0 = time.perf_counter()
        table = info.cases[rows[0]:rows[1]]
        lengths, totals = out_case.reshape(-1, 2).T
        traced = chain_alignments_many(info.records, table[:, TRACE_CASE_FIELDS.index("exon0")], lengths, totals,
                                       out_exon.reshape(-1, 4), table[:, TRACE_CASE_FIELDS.index("ops")] - first_op,
                                       ops)
        share = (time.perf_counter() - t0) / max(1, int(totals.sum()))
        return [(chain, alignment, share * t) for (chain, alignment), t in zip(traced, totals.tolist())]

    def _shells(self, batch: Sequence[TestCase], plan: Plan) -> tuple[list[Result], np.ndarray]:
        """The batch's ``Result``s before its scores arrive (made while the GPU runs): every field
        that does not depend on them, and the array of exons' final scores in input order that
        ``_fill`` writes, of which each result's ``last_row_scores`` is a view."""
        by_input = np.empty(plan.input_index.size, dtype=np.int64)
        heads, ends, cells = plan.exon_start[:-1].tolist(), plan.exon_start[1:].tolist(), plan.cells.tolist()
        count = len(batch)
        return [Result.made(case.name, self.name, 0, cells[c], 0.0, None, None, by_input[heads[c]:ends[c]],
                            {"seconds_score": 0.0, "seconds_traceback": 0.0, "batch_cases": count,
                             "batch_seconds_score": 0.0})
                for c, case in enumerate(batch)], by_input

    @staticmethod
    def _scores(plan: Plan, finals: np.ndarray, by_input: np.ndarray, t_score: float) -> tuple[list, list]:
        """Once per launch, from its exons' final scores in input order: each result's
        ``last_row_scores`` (the views of ``by_input``), and each case's score (its exons are
        consecutive in either order) and share of the launch's time (by cells)."""
        by_input[:] = finals
        return (np.maximum.reduceat(by_input, plan.exon_start[:-1]).tolist(),
                (plan.cells * (t_score / plan.cells.sum())).tolist())

    @staticmethod
    def _fill(shells: list[Result], scores: list, shares: list, t_score: float, traced: list[tuple] | None,
              which: Sequence[int]) -> None:
        """Complete the results of the cases ``which`` of one batch (``traced`` in that order)
        from its ``_scores``."""
        for k, c in enumerate(which):
            fields = shells[c].__dict__
            extra = fields["extra"]
            fields["score"] = scores[c]
            fields["seconds"] = extra["seconds_score"] = shares[c]
            extra["batch_seconds_score"] = t_score
            if traced:
                fields["chain"], fields["alignment"], t_trace = traced[k]
                fields["seconds"] += t_trace
                extra["seconds_traceback"] = t_trace

    def _work(self, cases: Sequence[TestCase], scoring: Scoring,
              traceback: bool) -> list[tuple[str, list[int], list[TestCase], CaseIds]]:
        """(score type, case indices, those cases, their CaseIds) of each launch; remembered for
        the last list of cases of each scoring and traceback choice (a caller alternating score
        and traced calls on a data set plans each once: 4 ms for the paper set on the device
        host, docs/gpu.md run AY).
        Launches that record moves (device traceback) also keep within launch.MOVE_BUDGET."""
        last = self._works.get((scoring, traceback))
        # the same case objects: a C-level loop (0.2 against 0.6 ms for 10,100 cases)
        if last is not None and len(last[0]) == len(cases) and all(map(operator.is_, last[0], cases)):
            return last[1]
        strip_rows = WARP * self._widest()
        by_type: dict[str, list[int]] = {}
        for i, c in enumerate(cases):
            by_type.setdefault(score_ctype(c.m, c.n, scoring, strip_rows), []).append(i)
        work = []
        for ctype, idx in by_type.items():
            budget = launch.MOVE_BUDGET if traceback and self.on_device(ctype) else None
            for part in launch.batches([cases[i] for i in idx], self.rows_per_lane or launch.ROWS_PER_LANE,
                                       move_budget=budget):
                sel = [idx[i] for i in part]
                if budget and self.rows_per_lane is None and launch.chain_bound(len(sel)):
                    # a chain launch holds more rows per lane than the batches assumed: its
                    # move storage checked again at that width
                    work += [(ctype, [sel[i] for i in sub]) for sub in launch.batches(
                        [cases[i] for i in sel], launch.CHAIN_ROWS_PER_LANE, move_budget=budget)]
                else:
                    work.append((ctype, sel))
        batches = [[cases[i] for i in sel] for _, sel in work]
        work = [(ctype, sel, batch, CaseIds(batch)) for (ctype, sel), batch in zip(work, batches)]
        self._works[scoring, traceback] = (tuple(cases), work)
        return work

    def solve_many(self, cases: Sequence[TestCase], scoring: Scoring = Scoring(),
                   traceback: bool = True) -> list[Result]:
        """Cases grouped by score type, each group in launches whose row storage fits. Up to
        IN_FLIGHT launches are queued at once: the host plans (or finds in the cache) and
        queues launch i+1, and builds launch i's results, while the GPU runs launch i."""
        refuse_free_ends(scoring, self.name)
        with collection_paused() as settle:
            return self._solve_many(cases, scoring, traceback, settle)

    def _solve_many(self, cases: Sequence[TestCase], scoring: Scoring, traceback: bool,
                    settle: Callable[[], None]) -> list[Result]:
        self.timing = dict.fromkeys(STAGES, 0.0)
        work = self._work(cases, scoring, traceback)
        results: list[Result | None] = [None] * len(cases)
        queued: deque[tuple] = deque()  # (job, its cases, its results made ahead, their finals)
        events = []
        t_prev = time.perf_counter()

        def finish() -> None:
            # A launch's score time is the wall time since the previous launch's scores
            # arrived, so the launches' times add up to the call's. Its results were made when
            # it was queued (while the GPU runs) and are completed once its scores arrive.
            # A launch in parts (its device walks) gives the host each part's results while the
            # GPU still walks the next.
            nonlocal t_prev
            job, batch, shells, by_input = queued.popleft()
            plan = job.inputs.plan
            for part, (rows, _) in enumerate(job.parts):
                t1 = time.perf_counter()
                finals, exon_rows = self._collect(job, part)
                t2 = time.perf_counter()
                if part == 0:
                    t_score, t_prev = t2 - t_prev, t2
                    scores, shares = self._scores(plan, finals, by_input, t_score)
                which: Sequence[int] = range(*rows)
                if exon_rows is None:
                    traced = None
                elif job.traced is not None:
                    info = job.inputs.trace[1]
                    which = info.order[rows[0]:rows[1]].tolist()
                    traced = self._traced(info, rows, *exon_rows)
                else:
                    traced = self._trace(batch, plan, *exon_rows, scoring)
                t3 = time.perf_counter()
                self._fill(shells, scores, shares, t_score, traced, which)
                for c in which:
                    results[job.sel[c]] = shells[c]
                self.timing["finals"] += t2 - t1
                self.timing["traceback"] += t3 - t2
                self.timing["results"] += time.perf_counter() - t3

        for ctype, sel, batch, ids in work:
            job = self._launch(sel, batch, scoring, ctype, traceback, self.on_device(ctype), ids)
            events.append(job.events)
            t0 = time.perf_counter()
            queued.append((job, batch, *self._shells(batch, job.inputs.plan)))
            settle()  # the collector's pass over them while the GPU runs, not after the call
            self.timing["results"] += time.perf_counter() - t0
            if len(queued) >= IN_FLIGHT:
                finish()
        while queued:
            finish()
        cp = device.cupy()
        device.check(cp)
        self._rows.refill(self._stream_pair()[3])  # beside the caller's next steps
        settle()  # what the last parts made (traced records): no collection due after the call
        self.kernel_ms = [cp.cuda.get_elapsed_time(*pair[:2]) for pair in events]
        return results  # type: ignore[return-value]

    def solve(self, case: TestCase, scoring: Scoring = Scoring(), traceback: bool = True) -> Result:
        return self.solve_many([case], scoring, traceback)[0]

    def last_rows(self, case: TestCase, scoring: Scoring, prof: np.ndarray) -> np.ndarray:
        refuse_free_ends(scoring, self.name)
        self.timing = dict.fromkeys(STAGES, 0.0)
        ctype = score_ctype(case.m, case.n, scoring, WARP * self._widest())
        _, (host, _) = self._collect(self._launch([0], [case], scoring, ctype, traceback=True, on_device=False))
        device.check(device.cupy())
        self._rows.refill(self._stream_pair()[3])
        return host.reshape(case.K, case.n + 1).astype(prof.dtype)
