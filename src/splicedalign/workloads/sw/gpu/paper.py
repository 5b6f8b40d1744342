"""``sw-scan``: paper 003's design (one block per database sequence, per row a parallel max
then a block-wide prefix-max scan; slices of at most 512 columns). Kernel: paper.cu."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.gpu import device
from splicedalign.workloads.sw.gpu.device_db import DeviceDatabase
from splicedalign.workloads.sw.gpu.plan import DEFINES, SCAN_WIDTHS, scan_classes, scan_profile
from splicedalign.workloads.sw.records import Database, Query, Scoring

KERNEL_FILE = Path(__file__).with_name("paper.cu")
NAMES = tuple(f"sw_scan<{width}>" for width in SCAN_WIDTHS)  # one per block width (scan_classes)


class SwScanSolver:
    name = "sw-scan"

    def __init__(self) -> None:
        self.cp = device.cupy()

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        if scoring.affine:
            raise SolverUnavailable("sw-scan is paper 003's linear-gap design: it takes --gap only "
                                    "(use the gpu solver for affine gaps)")
        cp = self.cp
        ddb = DeviceDatabase.upload(cp, db)
        out = cp.full(max(1, len(db)), device.POISON, dtype=cp.int32)
        m = query.length
        prof = cp.asarray(scan_profile(query.codes, scoring))
        classes = scan_classes(db)
        for width, seqs in classes:
            name = NAMES[SCAN_WIDTHS.index(width)]
            kernel = device.function(KERNEL_FILE, name, (name,), DEFINES)
            column = cp.zeros(seqs.size * m, dtype=cp.int32)
            kernel((int(seqs.size),), (width,),
                   (ddb.codes, ddb.offsets, cp.asarray(seqs), prof, np.int32(m), np.int32(scoring.gap_extend), column,
                    out))
        device.check(cp)
        scores = cp.asnumpy(out)[: len(db)].astype(np.int64)
        scores[db.lengths == 0] = 0
        if np.any(scores == device.POISON):
            raise RuntimeError("sw-scan: a database sequence was not scored (kernel fault)")
        return scores
