"""Progress of long solves, reported through the ``splicedalign`` logger (the CLI shows INFO
on stderr; the pipeline's logs capture it). Reports at most every ``interval`` seconds."""

from __future__ import annotations

import logging
import time

log = logging.getLogger("splicedalign")


class Progress:
    def __init__(self, what: str, total_cells: int, interval: float = 5.0):
        self.what, self.total, self.interval = what, max(1, total_cells), interval
        self.start = self.last = time.perf_counter()

    def update(self, done_cells: int, detail: str = "") -> None:
        now = time.perf_counter()
        if now - self.last < self.interval:
            return
        self.last = now
        rate = done_cells / (now - self.start) / 1e6
        log.info("%s: %.1f%% of %.3g cells, %.0f MCUPS%s", self.what, 100 * done_cells / self.total,
                 self.total, rate, f" ({detail})" if detail else "")
