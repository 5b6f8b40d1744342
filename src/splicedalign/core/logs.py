"""Progress of long solves, reported through the ``splicedalign`` logger (the CLI shows INFO
on stderr; the pipeline's logs capture it). Reports at most every ``interval`` seconds."""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

log = logging.getLogger("splicedalign")


def log_to(path: str | Path | None = None, level: int = logging.INFO,
           fmt: str = "%(asctime)s %(levelname)s %(message)s") -> None:
    """Send the package's messages at ``level`` and above to ``path`` (stderr when None),
    replacing the handler an earlier call installed (so repeated calls do not stack)."""
    for handler in [h for h in log.handlers if getattr(h, "_splicedalign", False)]:
        log.removeHandler(handler)
        handler.close()
    handler = logging.FileHandler(path) if path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(fmt))
    handler._splicedalign = True  # type: ignore[attr-defined]
    log.addHandler(handler)
    log.setLevel(level)


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
