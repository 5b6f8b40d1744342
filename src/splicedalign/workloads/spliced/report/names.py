"""Names of the spliced benchmark's figures, without matplotlib: the pipeline plans its
outputs from these when it starts, and importing the plotting module costs about a second."""

from __future__ import annotations

from collections.abc import Sequence

STATIC = ("fig07_intra_parallelism", "fig09_inter_parallelism", "fig10_estimated_times",
          "fig13_actual_times", "fig14_speedups", "fig15_scalability")


def overlay_name(solver: str) -> str:
    """Figs. 17-19: one estimated-vs-actual overlay per solver."""
    return f"fig17_19_estimated_vs_actual_{solver}"


def plot_names(solvers: Sequence[str]) -> list[str]:
    return [*STATIC, *(overlay_name(s) for s in solvers)]
