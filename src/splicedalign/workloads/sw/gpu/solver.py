"""``gpu`` (ours): inter-sequence database search, CUDASW++ 4.0 style (inter.cu): groups of T
threads per database sequence (per pair of sequences with 16-bit lanes), R query rows per
thread in registers, sequences sorted by length; pairs whose scores could exceed 16 bits run
in a 32-bit launch."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from splicedalign.gpu import device
from splicedalign.workloads.sw.gpu.device_db import DeviceDatabase
from splicedalign.workloads.sw.gpu.plan import (
    BLOCK, CODES, DEFINES, SMEM_LIMIT, choose_shape, inter_profile, padded_rows, split_point,
)
from splicedalign.workloads.sw.records import Database, Query, Scoring

KERNEL_FILE = Path(__file__).with_name("inter.cu")


class GpuSolver:
    name = "gpu"

    def __init__(self, shape: tuple[int, int] | None = None, wide_only: bool = False) -> None:
        """``shape`` (R, T) overrides the choice of plan.choose_shape; ``wide_only`` runs every
        pair with 32-bit lanes (for measurements)."""
        self.cp = device.cupy()
        self.shape = shape
        self.wide_only = wide_only

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        """Host to host: the database is uploaded on every call."""
        return self.scores_resident(query, db, DeviceDatabase.upload(self.cp, db), scoring)

    def scores_resident(self, query: Query, db: Database, ddb: DeviceDatabase, scoring: Scoring) -> np.ndarray:
        """Scores against a database already on the device (``ddb`` holds ``db``), as a
        search service keeps it between queries."""
        cp = self.cp
        out = cp.full(max(1, len(db)), device.POISON, dtype=cp.int32)
        k = len(db) if self.wide_only else split_point(ddb.sorted_lengths, scoring, query.length)
        # wide (32-bit) pairs are the longest: order[:k]; the rest go two per group on 16 bits
        for lanes, a, b in (("Lane32", 0, k), ("Lane16x2", k, len(db))):
            if b > a:
                self._launch(ddb, a, b, lanes, query, scoring, out)
        device.check(cp)
        scores = cp.asnumpy(out)[: len(db)].astype(np.int64)
        if np.any(scores == device.POISON):
            raise RuntimeError("gpu: a database sequence was not scored (kernel fault)")
        return scores

    def _launch(self, ddb: DeviceDatabase, a: int, b: int, lanes: str, query: Query, scoring: Scoring,
                out) -> None:
        """One launch over the sequences order[a:b] (longest first)."""
        cp = self.cp
        lengths = ddb.sorted_lengths[a:b]
        R, T = self.shape or choose_shape(query.length, float(lengths.mean()))
        per_group = 2 if lanes == "Lane16x2" else 1
        mpad = padded_rows(query.length, (R, T))
        dtype = np.int16 if per_group == 2 else np.int32
        prof = cp.asarray(inter_profile(query.codes, scoring, mpad, dtype))
        smem = CODES * mpad * np.dtype(dtype).itemsize
        use_smem = smem <= SMEM_LIMIT
        name = f"sw_inter<{lanes}, {R}, {T}, {'true' if use_smem else 'false'}>"
        kernel = device.function(KERNEL_FILE, name, (name,), DEFINES)
        count = b - a
        groups = -(-count // per_group)
        passes = mpad // (R * T)
        stride = int(lengths[0]) if passes > 1 else 1  # a group's bottom row, per buffer
        scratch = cp.empty(max(1, groups * 2 * stride), dtype=cp.uint32 if per_group == 2 else cp.int32)
        blocks = -(-groups * T // BLOCK)
        kernel((blocks,), (BLOCK,),
               (ddb.codes, ddb.offsets, ddb.order[a:b], np.int32(count), prof, np.int32(mpad),
                np.int32(scoring.gap), scratch, np.int64(stride), out),
               shared_mem=smem if use_smem else 0)
