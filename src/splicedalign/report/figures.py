"""Matplotlib for files only (the Agg backend: cluster nodes have no display), imported on
first use because importing it costs about a second."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def pyplot() -> Any:
    """``matplotlib.pyplot`` with the Agg backend selected."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig: Any, *paths: str | Path, dpi: int = 120) -> None:
    """Write ``fig`` to each path (the format follows the suffix), then close it."""
    for path in paths:
        fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
