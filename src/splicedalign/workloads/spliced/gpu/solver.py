"""``gpu``: every case of a batch in one persistent wavefront launch (kernels/wavefront.cu).

The GPU computes all exons' last rows; the host gets the exons' final scores, and for
traceback the last rows, from which ``trace_chain`` recomputes only the chain's exons.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

import numpy as np

from splicedalign.workloads.spliced.records import Result, Scoring, TestCase
from splicedalign.gpu import device
from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu.plan import Plan, build_plan, byte_profile_ok, score_ctype, WARP
from splicedalign.workloads.spliced.base import LastRowSolver
from splicedalign.workloads.spliced.cpu_kernels import profile, score_dtype
from splicedalign.workloads.spliced.backtrack import trace_chain

KERNEL_FILE = Path(__file__).with_name("wavefront.cu")
COMPARE_ROWS_PER_LANE = (4, 8)  # compiled for the int compare-profile variant
WIDE_ROWS_PER_LANE = 4  # the int64 variants (8 rows would spill registers)
# H (last template argument): how rows are handed between tasks, see kernels/wavefront.cu:
# 0 = per-step entry loads, 1 = entry windows (device run 3), 2 = windows plus the fused fold
# entry (device run 4: identical, (b) kernel 25.0 -> 22.1 ms). GpuSolver(handoff=...) overrides it.
HANDOFF = 2
HANDOFFS = (0, 1, 2)
# A batch of many cases is launched in up to CHUNKS chunks (cases round-robin, each chunk a
# launch of its own on one stream): the host plans chunk i+1 and builds chunk i-1's results
# while the GPU runs chunk i. Chunks of fewer than MIN_CHUNK_CASES cases are not worth a launch.
# Off by default: device run 4 measured 4 chunks' kernels at 43 ms against 17 ms for one launch
# (each launch is bound by its longest case's dependent chain, docs/gpu.md).
CHUNKS = 1
MIN_CHUNK_CASES = 64
_SHAPES = tuple(("int", r, "true") for r in launch.RUN_ROWS_PER_LANE) + tuple(
    ("int", r, "false") for r in COMPARE_ROWS_PER_LANE) + (
    ("long long", WIDE_ROWS_PER_LANE, "true"), ("long long", WIDE_ROWS_PER_LANE, "false"))
VARIANTS = tuple(f"wavefront<{t}, {r}, 4, {b}, {h}>" for t, r, b in _SHAPES for h in HANDOFFS) + (
    "gather_rows<int>", "gather_rows<long long>")
THREADS = 256
TRACE_THREADS = os.cpu_count() or 1


def variant(ctype: str, rows_per_lane: int, bytes_profile: bool, handoff: int = HANDOFF) -> tuple[int, str]:
    """(rows per lane, kernel name) of the compiled variant that runs this configuration: the
    plan must be built with the rows per lane the kernel is compiled for."""
    if ctype != "int":
        rows_per_lane = WIDE_ROWS_PER_LANE
    elif not bytes_profile and rows_per_lane not in COMPARE_ROWS_PER_LANE:
        rows_per_lane = COMPARE_ROWS_PER_LANE[0]
    flag = "true" if bytes_profile else "false"
    return rows_per_lane, f"wavefront<{ctype}, {rows_per_lane}, 4, {flag}, {handoff}>"


def chunks(count: int, most: int) -> list[list[int]]:
    """Indices 0..count-1 in up to ``most`` round-robin chunks (similar mixes of case shapes)
    of at least MIN_CHUNK_CASES cases each."""
    k = max(1, min(most, count // MIN_CHUNK_CASES))
    return [list(range(i, count, k)) for i in range(k)]


class GpuSolver(LastRowSolver):
    name = "gpu"

    def __init__(self, rows_per_lane: int | None = None, poison: bool = False,
                 byte_profile: bool | None = None, handoff: int | None = None,
                 chunks: int = CHUNKS) -> None:
        self.rows_per_lane = rows_per_lane
        self.handoff = HANDOFF if handoff is None else handoff  # kernel hand-off variant H
        assert self.handoff in HANDOFFS
        self.chunks = chunks  # most launches a batch is split into for host/device overlap
        self.byte_profile = byte_profile  # None: PRMT byte profile whenever the scoring fits
        self.poison = poison  # fill row storage with POISON first (checks that all is written)
        self.kernel_ms: list[float] = []  # device time of each launch of the last call
        self._events: list = []
        self.timing: dict[str, float] = {}  # host seconds of the last call, by stage

    def _launch(self, cases: Sequence[TestCase], scoring: Scoring, R: int, ctype: str,
                traceback: bool) -> dict:
        """Plan one chunk and queue its work on the current stream: uploads, kernel, the gather
        of its exons' final scores (and last rows for traceback), and their copies to the host.
        Returns what `_collect` needs; nothing here waits for the GPU."""
        cp = device.cupy()
        t0 = time.perf_counter()
        use_bytes = byte_profile_ok(scoring) and self.byte_profile is not False
        R, name = variant(ctype, R, use_bytes, self.handoff)
        plan: Plan = build_plan(cases, R, fused_entry=self.handoff == 2)
        self.timing["plan"] += time.perf_counter() - t0
        dtype = np.int32 if ctype == "int" else np.int64
        kernel = device.function(KERNEL_FILE, name, VARIANTS)
        # Pageable uploads go through the copy stream, so that they do not wait for the
        # kernel of the previous chunk on the compute stream.
        with self._copy:
            tasks = cp.asarray(plan.tasks)
            base = cp.asarray(plan.base)
            target = cp.asarray(plan.target)
            at = cp.asarray(plan.last_row + plan.n[plan.exon_case])
            uploaded = self._copy.record()
        self._compute.wait_event(uploaded)
        with self._compute:
            tsel = (target.astype(cp.int32) * 0x1111) | 0x8880  # PRMT selectors
            rows = cp.empty(plan.rows_size, dtype=dtype)
            if self.poison:
                rows.fill(device.POISON)
            flags = cp.zeros(plan.tasks.shape[0], dtype=cp.int32)
            counter = cp.zeros(2, dtype=cp.int32)  # task counter, error word (a wait ran out)
            warps = plan.tasks.shape[0]
            per_block = THREADS // WARP
            grid = max(1, min((warps + per_block - 1) // per_block, device.device_info()["sms"] * 8))
            start = self._compute.record()
            kernel((grid,), (THREADS,),
                   (tasks, np.int32(warps), counter, base, tsel, rows, flags,
                    np.int32(scoring.match), np.int32(scoring.mismatch), np.int32(scoring.gap)))
            stop = self._compute.record()
            self._events.append((start, stop))
            finals = rows[at]
            gathered = self._gather(plan, rows, ctype) if traceback else None
            done = self._compute.record()
        del rows  # reused by the pool only for later work on the compute stream: safe
        # The uploads belong to the copy stream's pool: they must outlive this chunk's kernel,
        # or the next chunk's uploads could overwrite them while it runs.
        return {"plan": plan, "finals": finals, "counter": counter, "gathered": gathered, "done": done,
                "inputs": (tasks, base, target, at)}

    def _collect(self, job: dict) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
        """Wait for one chunk only (not the chunks queued after it) and copy its final scores (and
        last rows) to the host, on the copy stream. A kernel fault surfaces in the stream
        synchronization as CUDARuntimeError."""
        cp = device.cupy()
        copy = self._copy
        copy.wait_event(job["done"])
        finals = cp.asnumpy(job["finals"], stream=copy)
        error = cp.asnumpy(job["counter"][1:2], stream=copy)
        exon_rows = None
        if job["gathered"] is not None:
            out, dst = job["gathered"]
            exon_rows = cp.asnumpy(out, stream=copy), dst
        copy.synchronize()
        if int(error[0]):
            raise RuntimeError("gpu: a wavefront wait ran out of time (a row hand-off never came)")
        return finals.astype(np.int64), exon_rows

    def _gather(self, plan: Plan, rows, ctype: str):
        """Every exon's last row, consecutive on the device, and where each exon's row starts."""
        cp = device.cupy()
        length = plan.n[plan.exon_case] + 1
        dst = np.concatenate(([0], np.cumsum(length)))
        out = cp.empty(int(dst[-1]), dtype=rows.dtype)
        E = length.size
        gather = device.function(KERNEL_FILE, f"gather_rows<{ctype}>", VARIANTS)
        gather((min(E, 65_535),), (256,), (rows, cp.asarray(plan.last_row), cp.asarray(dst[:-1]),
                                             cp.asarray(length.astype(np.int32)), np.int32(E), out))
        return out, dst

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

    def _results(self, batch: Sequence[TestCase], plan: Plan, finals: np.ndarray, t_score: float,
                 traced: list[tuple] | None) -> list[Result]:
        """Results of one batch, as ``make_result`` forms them, with the per-exon work (input
        order, best score, cells) done for the whole batch at once."""
        K = np.diff(plan.exon_start)
        heads = plan.exon_start[:-1]
        by_input = np.empty_like(finals)
        by_input[np.concatenate([c.order for c in batch]) + np.repeat(heads, K)] = finals
        score = np.maximum.reduceat(finals, heads).tolist()
        L = np.concatenate([c.last_sorted - c.first_sorted for c in batch]) + 1
        cells = (np.add.reduceat(L, heads) * plan.n).tolist()
        total = sum(cells)
        out = []
        for c, case in enumerate(batch):
            share = t_score * cells[c] / total  # a batch's time, apportioned by cells
            chain, alignment, t_trace = traced[c] if traced else (None, None, 0.0)
            out.append(Result(case=case.name, solver=self.name, score=score[c], cells=cells[c],
                              seconds=share + t_trace, chain=chain, alignment=alignment,
                              last_row_scores=by_input[heads[c]:heads[c] + K[c]],
                              extra={"seconds_score": share, "seconds_traceback": t_trace,
                                     "batch_cases": len(batch), "batch_seconds_score": t_score}))
        return out

    def _streams(self) -> None:
        """One compute and one copy stream per solver, kept across calls: CuPy's memory pool
        keeps freed blocks per stream, so device buffers are reused from call to call."""
        if not hasattr(self, "_compute"):
            cp = device.cupy()
            self._compute = cp.cuda.Stream(non_blocking=True)
            self._copy = cp.cuda.Stream(non_blocking=True)

    def solve_many(self, cases: Sequence[TestCase], scoring: Scoring = Scoring(),
                   traceback: bool = True) -> list[Result]:
        cp = device.cupy()
        R = self.rows_per_lane or launch.rows_per_lane(cases)
        self._events = []
        self._streams()
        self.timing = {"plan": 0.0, "launch": 0.0, "finals": 0.0, "traceback": 0.0, "results": 0.0}
        results: list[Result | None] = [None] * len(cases)
        by_type: dict[str, list[int]] = {}
        for i, c in enumerate(cases):
            by_type.setdefault(score_ctype(c.m, c.n, scoring, WARP * R), []).append(i)
        parts = [[idx[i] for i in part] for ctype, idx in by_type.items()
                 for part in launch.batches([cases[i] for i in idx], R)]
        ctypes = [score_ctype(cases[p[0]].m, cases[p[0]].n, scoring, WARP * R) for p in parts]
        work = [(ctype, [part[i] for i in chunk]) for ctype, part in zip(ctypes, parts)
                for chunk in chunks(len(part), self.chunks)]
        pending: list[tuple[list[int], dict]] = []
        t_prev = time.perf_counter()

        def finish() -> None:
            # The oldest queued chunk: its results are built while the GPU runs later chunks.
            # Its score time is the wall time since the previous chunk's scores arrived, so the
            # chunks' times add up to the call's.
            nonlocal t_prev
            sel, job = pending.pop(0)
            t1 = time.perf_counter()
            finals, exon_rows = self._collect(job)
            t2 = time.perf_counter()
            self.timing["finals"] += t2 - t1
            batch = [cases[i] for i in sel]
            traced = self._trace(batch, job["plan"], *exon_rows, scoring) if traceback else None
            t3 = time.perf_counter()
            self.timing["traceback"] += t3 - t2
            for i, r in zip(sel, self._results(batch, job["plan"], finals, t2 - t_prev, traced)):
                results[i] = r
            t_prev = t2
            self.timing["results"] += time.perf_counter() - t3

        for ctype, sel in work:
            tb = time.perf_counter()
            pending.append((sel, self._launch([cases[i] for i in sel], scoring, R, ctype, traceback)))
            self.timing["launch"] += time.perf_counter() - tb
            if len(pending) > 1:
                finish()
        while pending:
            finish()
        device.check(cp)
        self.kernel_ms = [cp.cuda.get_elapsed_time(a, b) for a, b in self._events]
        return results  # type: ignore[return-value]

    def solve(self, case: TestCase, scoring: Scoring = Scoring(), traceback: bool = True) -> Result:
        return self.solve_many([case], scoring, traceback)[0]

    def last_rows(self, case: TestCase, scoring: Scoring, prof: np.ndarray) -> np.ndarray:
        R = self.rows_per_lane or launch.rows_per_lane([case])
        self._events = []
        self._streams()
        self.timing = {"plan": 0.0}
        ctype = score_ctype(case.m, case.n, scoring, WARP * R)
        _, (host, _) = self._collect(self._launch([case], scoring, R, ctype, traceback=True))
        device.check(device.cupy())
        return host.reshape(case.K, case.n + 1).astype(prof.dtype)
