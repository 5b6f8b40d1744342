"""Progress of long solves, reported through the ``splicedalign`` logger (the CLI shows INFO
on stderr, ``-q`` silences it; the pipeline's logs capture it)."""

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
    handler._splicedalign = True  # type: ignore[union-attr]
    log.addHandler(handler)
    log.setLevel(level)


def duration(seconds: float) -> str:
    """'42s', '3m07s', '2h05m': a time for people to read."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class Progress:
    """Progress of one long run: a line once it has run ``delay`` seconds, then at most every
    ``interval`` seconds, e.g. ``align [sequential]: 312/1,010 cases, 41.5% of 8.61e+10 cells,
    1.21 GCUPS, ETA 48s`` (items only when ``total_items`` is given; the ETA from the cell
    rate so far). Short runs say nothing; ``finish`` closes a run that said something with
    its total time. Call ``update`` from one thread."""

    def __init__(self, what: str, total_cells: int, total_items: int | None = None, unit: str = "cases",
                 interval: float = 5.0, delay: float = 2.0):
        self.what, self.total, self.items, self.unit = what, max(1, total_cells), total_items, unit
        self.interval, self.delay = interval, delay
        self.start = time.perf_counter()
        self.last: float | None = None  # when the last line was said (None: none yet)

    def _line(self, done_cells: int, done_items: int | None, now: float) -> str:
        elapsed = max(now - self.start, 1e-9)
        rate = done_cells / elapsed
        counted = self.items is not None and done_items is not None
        parts = [f"{done_items:,}/{self.items:,} {self.unit}"] if counted else []
        parts.append(f"{100 * done_cells / self.total:.1f}% of {self.total:.3g} cells")
        parts.append(f"{rate / 1e9:.3g} GCUPS")
        if done_cells < self.total:
            parts.append(f"ETA {duration((self.total - done_cells) / rate) if rate > 0 else '?'}")
        return ", ".join(parts)

    def update(self, done_cells: int, detail: str = "", done_items: int | None = None) -> None:
        now = time.perf_counter()
        if now - self.start < self.delay or (self.last is not None and now - self.last < self.interval):
            return
        self.last = now
        log.info("%s: %s%s", self.what, self._line(done_cells, done_items, now), f" ({detail})" if detail else "")

    def finish(self, done_cells: int | None = None, done_items: int | None = None) -> None:
        """The closing line (total time, rate), only when the run said something before."""
        if self.last is None:
            return
        now = time.perf_counter()
        log.info("%s: done, %s in %s", self.what,
                 self._line(self.total if done_cells is None else done_cells,
                            self.items if done_items is None else done_items, now),
                 duration(now - self.start))
