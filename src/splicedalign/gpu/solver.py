"""``gpu``: every case of a batch in one persistent wavefront launch (kernels/wavefront.cu).

The GPU computes all exons' last rows; the host gets the exons' final scores, and for
traceback the last rows, from which ``trace_chain`` recomputes only the chain's exons.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import numpy as np

from splicedalign.case import Result, Scoring, TestCase
from splicedalign.gpu import device, launch
from splicedalign.gpu.plan import Plan, build_plan, byte_profile_ok, score_ctype, WARP
from splicedalign.solvers.base import LastRowSolver
from splicedalign.solvers.kernels_cpu import profile, score_dtype
from splicedalign.traceback import trace_chain

KERNEL_FILE = "wavefront.cu"
COMPARE_ROWS_PER_LANE = (4, 8)  # compiled for the int compare-profile variant
WIDE_ROWS_PER_LANE = 4  # the int64 variants (8 rows would spill registers)
# PIPE (last template argument): how rows are handed between tasks, see kernels/wavefront.cu.
PIPELINE = True  # the default hand-off (device run 3: faster, identical); GpuSolver(pipeline=...) overrides it
_SHAPES = tuple(("int", r, "true") for r in launch.RUN_ROWS_PER_LANE) + tuple(
    ("int", r, "false") for r in COMPARE_ROWS_PER_LANE) + (
    ("long long", WIDE_ROWS_PER_LANE, "true"), ("long long", WIDE_ROWS_PER_LANE, "false"))
VARIANTS = tuple(f"wavefront<{t}, {r}, 4, {b}, {p}>" for t, r, b in _SHAPES for p in ("false", "true")) + (
    "gather_rows<int>", "gather_rows<long long>")
THREADS = 256
TRACE_THREADS = os.cpu_count() or 1


def variant(ctype: str, rows_per_lane: int, bytes_profile: bool, pipeline: bool = PIPELINE) -> tuple[int, str]:
    """(rows per lane, kernel name) of the compiled variant that runs this configuration: the
    plan must be built with the rows per lane the kernel is compiled for."""
    if ctype != "int":
        rows_per_lane = WIDE_ROWS_PER_LANE
    elif not bytes_profile and rows_per_lane not in COMPARE_ROWS_PER_LANE:
        rows_per_lane = COMPARE_ROWS_PER_LANE[0]
    flag = lambda b: "true" if b else "false"  # noqa: E731
    return rows_per_lane, f"wavefront<{ctype}, {rows_per_lane}, 4, {flag(bytes_profile)}, {flag(pipeline)}>"


class GpuSolver(LastRowSolver):
    name = "gpu"

    def __init__(self, rows_per_lane: int | None = None, poison: bool = False,
                 byte_profile: bool | None = None, pipeline: bool | None = None) -> None:
        self.rows_per_lane = rows_per_lane
        self.pipeline = PIPELINE if pipeline is None else pipeline  # kernel hand-off variant
        self.byte_profile = byte_profile  # None: PRMT byte profile whenever the scoring fits
        self.poison = poison  # fill row storage with POISON first (checks that all is written)
        self.kernel_ms: list[float] = []  # device time of each launch of the last call
        self._events: list = []
        self._counters: list = []
        self.timing: dict[str, float] = {}  # host seconds of the last call, by stage

    def _launch(self, cases: Sequence[TestCase], scoring: Scoring, R: int, ctype: str):
        """Run one batch; returns (plan, device row storage)."""
        cp = device.cupy()
        t0 = time.perf_counter()
        use_bytes = byte_profile_ok(scoring) and self.byte_profile is not False
        R, name = variant(ctype, R, use_bytes, self.pipeline)
        plan: Plan = build_plan(cases, R)
        self.timing["plan"] += time.perf_counter() - t0
        dtype = np.int32 if ctype == "int" else np.int64
        kernel = device.function(KERNEL_FILE, name, VARIANTS)
        tasks = cp.asarray(plan.tasks)
        base = cp.asarray(plan.base)
        tsel = (cp.asarray(plan.target).astype(cp.int32) * 0x1111) | 0x8880  # PRMT selectors
        rows = cp.empty(plan.rows_size, dtype=dtype)
        if self.poison:
            rows.fill(device.POISON)
        flags = cp.zeros(plan.tasks.shape[0], dtype=cp.int32)
        counter = cp.zeros(2, dtype=cp.int32)  # task counter, error word (a wait ran out)
        warps = plan.tasks.shape[0]
        per_block = THREADS // WARP
        grid = max(1, min((warps + per_block - 1) // per_block, device.device_info()["sms"] * 8))
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        kernel((grid,), (THREADS,),
               (tasks, np.int32(warps), counter, base, tsel, rows, flags,
                np.int32(scoring.match), np.int32(scoring.mismatch), np.int32(scoring.gap)))
        stop.record()
        self._events.append((start, stop))
        self._counters.append(counter)
        return plan, rows

    def _finals(self, plan: Plan, rows) -> np.ndarray:
        cp = device.cupy()
        at = plan.last_row + plan.n[plan.exon_case]
        finals = cp.asnumpy(rows[cp.asarray(at)]).astype(np.int64)
        if self.pipeline and int(cp.asnumpy(self._counters[-1][1:2])[0]):
            raise RuntimeError("gpu: a wavefront wait ran out of time (a row hand-off never came)")
        return finals

    def _exon_rows(self, plan: Plan, rows, ctype: str) -> tuple[np.ndarray, np.ndarray]:
        """Every exon's last row on the host, consecutive, and where each exon's row starts."""
        cp = device.cupy()
        length = plan.n[plan.exon_case] + 1
        dst = np.concatenate(([0], np.cumsum(length)))
        out = cp.empty(int(dst[-1]), dtype=rows.dtype)
        E = length.size
        gather = device.function(KERNEL_FILE, f"gather_rows<{ctype}>", VARIANTS)
        gather((min(E, 65_535),), (256,), (rows, cp.asarray(plan.last_row), cp.asarray(dst[:-1]),
                                             cp.asarray(length.astype(np.int32)), np.int32(E), out))
        return cp.asnumpy(out), dst

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

    def solve_many(self, cases: Sequence[TestCase], scoring: Scoring = Scoring(),
                   traceback: bool = True) -> list[Result]:
        cp = device.cupy()
        R = self.rows_per_lane or launch.rows_per_lane(cases)
        self._events, self._counters = [], []
        self.timing = {"plan": 0.0, "launch": 0.0, "finals": 0.0, "traceback": 0.0, "results": 0.0}
        results: list[Result | None] = [None] * len(cases)
        by_type: dict[str, list[int]] = {}
        for i, c in enumerate(cases):
            by_type.setdefault(score_ctype(c.m, c.n, scoring, WARP * R), []).append(i)
        for ctype, idx in by_type.items():
            for part in launch.batches([cases[i] for i in idx], R):
                sel = [idx[i] for i in part]
                batch = [cases[i] for i in sel]
                tb = time.perf_counter()
                plan, rows = self._launch(batch, scoring, R, ctype)
                t1 = time.perf_counter()
                finals = self._finals(plan, rows)
                exon_rows = self._exon_rows(plan, rows, ctype) if traceback else None
                device.check(cp)
                del rows
                t2 = time.perf_counter()
                self.timing["launch"] += t1 - tb
                self.timing["finals"] += t2 - t1
                traced = self._trace(batch, plan, *exon_rows, scoring) if traceback else None
                t3 = time.perf_counter()
                self.timing["traceback"] += t3 - t2
                for i, r in zip(sel, self._results(batch, plan, finals, t2 - tb, traced)):
                    results[i] = r
                self.timing["results"] += time.perf_counter() - t3
        self.kernel_ms = [cp.cuda.get_elapsed_time(a, b) for a, b in self._events]
        return results  # type: ignore[return-value]

    def solve(self, case: TestCase, scoring: Scoring = Scoring(), traceback: bool = True) -> Result:
        return self.solve_many([case], scoring, traceback)[0]

    def last_rows(self, case: TestCase, scoring: Scoring, prof: np.ndarray) -> np.ndarray:
        cp = device.cupy()
        R = self.rows_per_lane or launch.rows_per_lane([case])
        self._events, self._counters = [], []
        self.timing = {"plan": 0.0}
        ctype = score_ctype(case.m, case.n, scoring, WARP * R)
        plan, rows = self._launch([case], scoring, R, ctype)
        host, _ = self._exon_rows(plan, rows, ctype)
        device.check(cp)
        if self.pipeline and int(cp.asnumpy(self._counters[-1][1:2])[0]):
            raise RuntimeError("gpu: a wavefront wait ran out of time (a row hand-off never came)")
        return host.reshape(case.K, case.n + 1).astype(prof.dtype)
