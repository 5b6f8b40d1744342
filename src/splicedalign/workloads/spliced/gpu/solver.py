"""``gpu``: every case of a batch in one persistent wavefront launch (wavefront.cu).

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

from splicedalign.gpu import device
from splicedalign.workloads.spliced.backtrack import trace_chain
from splicedalign.workloads.spliced.base import LastRowSolver
from splicedalign.workloads.spliced.cpu_kernels import profile, score_dtype
from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu.plan import (
    THREADS, WARP, Plan, build_plan, byte_profile_ok, kernel_defines, score_ctype, selectors)
from splicedalign.workloads.spliced.records import Result, Scoring, TestCase

KERNEL_FILE = Path(__file__).with_name("wavefront.cu")
GATHER_THREADS = 256
GATHER_BLOCKS = 65_535  # the gather loops over exons grid-stride; more blocks add nothing
TRACE_THREADS = os.cpu_count() or 1
STAGES = ("plan", "launch", "finals", "traceback", "results")  # host seconds of a call, by stage


def variant(ctype: str, rows_per_lane: int, bytes_profile: bool) -> tuple[int, str, tuple[str, ...]]:
    """(rows per lane, kernel name, names compiled with it) of the wavefront variant that runs
    this configuration. The plan must be built with the rows per lane the kernel holds; NVRTC
    compiles a variant (with its gather kernel) on its first use only."""
    if ctype != "int":
        rows_per_lane = launch.WIDE_ROWS_PER_LANE
    name = f"wavefront<{ctype}, {rows_per_lane}, {'true' if bytes_profile else 'false'}>"
    return rows_per_lane, name, (name, f"gather_rows<{ctype}>")


class GpuSolver(LastRowSolver):
    name = "gpu"

    def __init__(self, rows_per_lane: int = launch.ROWS_PER_LANE, poison: bool = False,
                 byte_profile: bool | None = None) -> None:
        self.rows_per_lane = rows_per_lane
        self.byte_profile = byte_profile  # None: PRMT byte profile whenever the scoring fits
        self.poison = poison  # fill row storage with POISON first (checks that all is written)
        self.kernel_ms: list[float] = []  # device time of each launch of the last call
        self.timing: dict[str, float] = {}  # host seconds of the last call, by stage

    def _run(self, cases: Sequence[TestCase], scoring: Scoring, ctype: str, traceback: bool
             ) -> tuple[Plan, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
        """One launch: plan, uploads, kernel; then the exons' final scores (and for traceback
        their last rows, gathered on the device) on the host. A kernel fault surfaces in the
        synchronization as CUDARuntimeError; a bounded wait that ran out raises RuntimeError."""
        cp = device.cupy()
        t0 = time.perf_counter()
        use_bytes = byte_profile_ok(scoring) and self.byte_profile is not False
        R, name, names = variant(ctype, self.rows_per_lane, use_bytes)
        plan = build_plan(cases, R)
        t1 = time.perf_counter()
        defines = kernel_defines()
        kernel = device.function(KERNEL_FILE, name, names, defines)
        tasks = cp.asarray(plan.tasks)
        base = cp.asarray(plan.base)
        tsel = cp.asarray(selectors(plan.target))
        at = cp.asarray(plan.last_row + plan.n[plan.exon_case])
        rows = cp.empty(plan.rows_size, dtype=np.int32 if ctype == "int" else np.int64)
        if self.poison:
            rows.fill(device.POISON)
        ntasks = plan.tasks.shape[0]
        flags = cp.zeros(ntasks, dtype=cp.int32)
        counter = cp.zeros(2, dtype=cp.int32)  # task counter, error word (a wait ran out)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        kernel((launch.grid(ntasks, device.device_info()["sms"]),), (THREADS,),
               (tasks, np.int32(ntasks), counter, base, tsel, rows, flags,
                np.int32(scoring.match), np.int32(scoring.mismatch), np.int32(scoring.gap)))
        stop.record()
        gathered = self._gather(plan, rows, names[1], names, defines) if traceback else None
        t2 = time.perf_counter()
        finals = cp.asnumpy(rows[at]).astype(np.int64)
        error = int(cp.asnumpy(counter[1:2])[0])
        exon_rows = (cp.asnumpy(gathered[0]), gathered[1]) if gathered is not None else None
        device.check(cp)
        self.kernel_ms.append(cp.cuda.get_elapsed_time(start, stop))
        if error:
            raise RuntimeError("gpu: a wavefront wait ran out of time (a row hand-off never came)")
        self.timing["plan"] += t1 - t0
        self.timing["launch"] += t2 - t1
        self.timing["finals"] += time.perf_counter() - t2
        return plan, finals, exon_rows

    def _gather(self, plan: Plan, rows, name: str, names: tuple[str, ...], defines: dict):
        """Every exon's last row, consecutive on the device, and where each exon's row starts."""
        cp = device.cupy()
        length = plan.n[plan.exon_case] + 1
        dst = np.concatenate(([0], np.cumsum(length)))
        out = cp.empty(int(dst[-1]), dtype=rows.dtype)
        E = length.size
        gather = device.function(KERNEL_FILE, name, names, defines)
        gather((min(E, GATHER_BLOCKS),), (GATHER_THREADS,),
               (rows, cp.asarray(plan.last_row), cp.asarray(dst[:-1]), cp.asarray(length.astype(np.int32)),
                np.int32(E), out))
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

    def solve_many(self, cases: Sequence[TestCase], scoring: Scoring = Scoring(),
                   traceback: bool = True) -> list[Result]:
        """Cases grouped by score type, each group in launches whose row storage fits."""
        self.kernel_ms = []
        self.timing = dict.fromkeys(STAGES, 0.0)
        strip_rows = WARP * self.rows_per_lane
        by_type: dict[str, list[int]] = {}
        for i, c in enumerate(cases):
            by_type.setdefault(score_ctype(c.m, c.n, scoring, strip_rows), []).append(i)
        results: list[Result | None] = [None] * len(cases)
        for ctype, idx in by_type.items():
            for part in launch.batches([cases[i] for i in idx], self.rows_per_lane):
                sel = [idx[i] for i in part]
                batch = [cases[i] for i in sel]
                t0 = time.perf_counter()
                plan, finals, exon_rows = self._run(batch, scoring, ctype, traceback)
                t1 = time.perf_counter()
                traced = self._trace(batch, plan, *exon_rows, scoring) if exon_rows is not None else None
                t2 = time.perf_counter()
                for i, r in zip(sel, self._results(batch, plan, finals, t1 - t0, traced)):
                    results[i] = r
                self.timing["traceback"] += t2 - t1
                self.timing["results"] += time.perf_counter() - t2
        return results  # type: ignore[return-value]

    def solve(self, case: TestCase, scoring: Scoring = Scoring(), traceback: bool = True) -> Result:
        return self.solve_many([case], scoring, traceback)[0]

    def last_rows(self, case: TestCase, scoring: Scoring, prof: np.ndarray) -> np.ndarray:
        self.kernel_ms = []
        self.timing = dict.fromkeys(STAGES, 0.0)
        ctype = score_ctype(case.m, case.n, scoring, WARP * self.rows_per_lane)
        _, _, (host, _) = self._run([case], scoring, ctype, traceback=True)
        return host.reshape(case.K, case.n + 1).astype(prof.dtype)
