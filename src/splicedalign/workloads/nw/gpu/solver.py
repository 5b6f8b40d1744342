"""``gpu`` (ours): one pair in strips of 32 * R rows, one warp per strip, rows in registers
(strips.cu). Score only: two boundary rows in device memory (linear). Alignment: the kernel
keeps every strip's bottom row and the cost columns every C columns; then one warp walks the
path back block by block, recomputing each block on its path with its moves in shared memory
(nw_walk), or, with ``trace="host"``, the host does the same (traceback.trace_checkpoints)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.gpu import device
from splicedalign.workloads.nw.backtrack import trace_checkpoints
from splicedalign.workloads.nw.gpu.batch import BatchSolver
from splicedalign.workloads.nw.gpu.common import free_bytes, gib, screen
from splicedalign.workloads.nw.records import OP_DEL, OP_INS, Costs, Pair, Result, check_mode, cigar_string

KERNEL_FILE = Path(__file__).with_name("strips.cu")
GROUP = 4  # columns per step (an int4 of a boundary row)
PAD_A, PAD_B = 6, 7  # codes of padding rows / columns: equal to nothing
ROWS_PER_LANE = (4, 8, 16)
VARIANTS = tuple(f"nw_strips<{r}, {p}>" for r in ROWS_PER_LANE for p in ("true", "false")) + tuple(
    f"nw_walk<{r}>" for r in ROWS_PER_LANE)
# hand-off between strips (strips.cu): publish every PUBLISH groups, wait for WINDOW_MIN
HANDOFF = {"PUBLISH": 16, "WINDOW_MIN": 16}
DEFINES = {"GROUP": GROUP, **HANDOFF}  # strips.defines.h; other hand-offs (tests) compile with NVRTC
TRACES = ("device", "host")
THREADS = 128
CHECKPOINT_SHARE = 0.6  # of free device memory the alignment's checkpoints may take
HOST_CHECKPOINT_BYTES = 1 << 30  # up to this much, checkpoints are copied to the host at once


def rows_per_lane(n: int, traceback: bool) -> int:
    """Rows per lane R (strips of 32 R rows), as measured on an H200 (docs/gpu-nw.md, run 2).
    Score: R = 16 everywhere (fewer strips, fewer hand-offs: 30,368 in 7.5 ms against 8.2 at
    R = 8; 10^6 in 0.46 s against 0.83). Alignment: R = 8 up to 65,536 rows (smaller blocks to
    walk: 30,368 in 24.7 ms against 31.0 at R = 16), R = 16 above (10^6: 1.28 s against 1.46)."""
    if traceback and n <= 65_536:
        return 8
    return 16


def byte_costs(costs: Costs) -> bool:
    return all(-128 <= c <= 127 for c in (costs.match, costs.mismatch))


class GpuSolver:
    name = "gpu"

    def __init__(self, rows_per_lane: int | None = None, prmt: bool | None = None, poison: bool = False,
                 cols_every: int | None = None, trace: str = "device", handoff: dict[str, int] | None = None) -> None:
        if trace not in TRACES:
            raise ValueError(f"trace must be one of {TRACES}")
        self.cp = device.cupy()
        self.rows_per_lane = rows_per_lane
        self.prmt = prmt
        self.poison = poison  # fill boundary rows / checkpoints with POISON first
        self.cols_every = cols_every
        self.trace_on = trace
        self.defines = {**DEFINES, **(handoff or {})}
        self.kernel_ms = 0.0  # the sweep (nw_strips) of the last solve
        self.walk_ms = 0.0  # the alignment walk (nw_walk) of the last solve
        self.batch: BatchSolver | None = None

    def kernel(self, name: str) -> Any:
        """A shipped kernel instance (VARIANTS), compiled alone on first use."""
        assert name in VARIANTS, name
        return device.function(KERNEL_FILE, name, (name,), self.defines)

    def solve_many(self, pairs: Sequence[Pair], costs: Costs, traceback: bool = True,
                   mode: str = "global") -> list[Result]:
        """A batch (``nw --pairs``): many pairs per launch in certified bands (batch.py), the
        pairs no band takes by ``solve``; answers in input order."""
        check_mode(mode)
        if self.batch is None:
            self.batch = BatchSolver(self.solve, self.name)
        return self.batch.solve_many(pairs, costs, traceback, mode)

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True, mode: str = "global") -> Result:
        answer = screen(pair, costs, mode, self.name, traceback)
        if answer is not None:
            return answer
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
        return Result(score, pair.cells, self.name, time.perf_counter() - t0, cigar)

    def columns_every(self, pair: Pair, span: int, strips: int) -> int:
        """Columns between checkpoint columns: ``span`` (square blocks) or the smallest multiple of
        it whose checkpoints fit; SolverUnavailable when even the rows do not fit."""
        if self.cols_every:
            return self.cols_every
        budget = CHECKPOINT_SHARE * free_bytes(self.cp)
        row_bytes = strips * (pair.m + GROUP) * 4
        every = span
        while row_bytes + 4 * pair.n * (pair.m // every) > budget:
            if every > pair.m:
                raise SolverUnavailable(
                    f"gpu: the alignment of {pair.n:,} x {pair.m:,} needs {gib(row_bytes)} of checkpoint rows, "
                    f"{gib(free_bytes(self.cp))} free on the device; use --score-only")
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
        if smem > 48 * 1024:
            walk.max_dynamic_shared_size_bytes = smem
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
