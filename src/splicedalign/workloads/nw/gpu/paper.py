"""``nw-tiles``: paper 002's CUDA design (paper.cu): the whole cost table in device memory,
16 x 16 tiles, one launch per anti-diagonal of tiles, one thread per tile row. The traceback,
serial in the paper, walks the table from the corner on the host, a 256 x 256 block of it at a
time (backtrack.trace_checkpoints reading the table's rows and columns)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.gpu import device
from splicedalign.workloads.nw.backtrack import trace_checkpoints
from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.gpu.common import gib, screen
from splicedalign.workloads.nw.records import Costs, Pair, Result

KERNEL_FILE = Path(__file__).with_name("paper.cu")
NAMES = ("tiles_diagonal", "tiles_borders")
TILE = 16
DEFINES = {"TILE": TILE}  # paper.defines.h
TRACE_BLOCK = 256


class TilesSolver:
    name = "nw-tiles"

    def __init__(self) -> None:
        self.cp = device.cupy()
        self.kernel_ms = 0.0

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True, mode: str = "global") -> Result:
        answer = screen(pair, costs, mode, self.name, traceback)
        if answer is not None:
            return answer
        cp = self.cp
        need = (pair.n + 1) * (pair.m + 1) * 4
        if need > 0.9 * device.free_memory():
            raise SolverUnavailable(f"nw-tiles keeps the whole table: {gib(need)} for {pair.n:,} x {pair.m:,}, "
                                    f"{gib(device.free_memory())} free on the device; use gpu")
        t0 = time.perf_counter()
        diagonal = device.function(KERNEL_FILE, "tiles_diagonal", NAMES, DEFINES)
        borders = device.function(KERNEL_FILE, "tiles_borders", NAMES, DEFINES)
        match, mismatch, indel = costs.as_tuple()
        a, b = cp.asarray(pair.a), cp.asarray(pair.b)
        table = cp.empty((pair.n + 1, pair.m + 1), dtype=cp.int32)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        longest = max(pair.n, pair.m) + 1
        borders(((longest + 255) // 256,), (256,), (table, np.int32(pair.n), np.int32(pair.m), np.int32(indel)))
        tile_rows, tile_cols = -(-pair.n // TILE), -(-pair.m // TILE)
        for d in range(tile_rows + tile_cols - 1):
            first = max(0, d - tile_cols + 1)
            count = min(tile_rows - 1, d) - first + 1
            diagonal((count,), (TILE,), (table, a, b, np.int32(pair.n), np.int32(pair.m), np.int32(d),
                                         np.int32(first), np.int32(match), np.int32(mismatch), np.int32(indel)))
        stop.record()
        stop.synchronize()
        device.check(cp)
        self.kernel_ms = cp.cuda.get_elapsed_time(start, stop)
        score = int(table[pair.n, pair.m].get())
        cigar = None
        if traceback:
            ops = trace_checkpoints(
                pair.a, pair.b, costs, TRACE_BLOCK,
                lambda k, c0, c1: table[k * TRACE_BLOCK, c0:c1 + 1].get().astype(np.int64),
                TRACE_BLOCK,
                lambda q, r0, r1: table[r0:r1 + 1, q * TRACE_BLOCK].get().astype(np.int64))
            cigar = cigar_string(ops)
        return Result(score, pair.cells, self.name, time.perf_counter() - t0, cigar)
