"""The paper's figures, redrawn from the tables (matplotlib Agg, PNG and SVG)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from splicedalign.report.figures import pyplot, save
from splicedalign.workloads.spliced.report.names import overlay_name
from splicedalign.workloads.spliced.report.tables import BASELINE, MODEL_OF, UNITS

plt = pyplot()
FORMATS = ("png", "svg")
MIN_PERCENT = 0.1  # Fig. 7 cuts the tail of bars under 0.1 % of exons; so do we, saying what it sums to


def _histogram(par: pd.DataFrame, kind: str, xlabel: str, ylabel: str, title: str) -> plt.Figure:
    d = par[par.kind == kind].reset_index(drop=True)
    big = d.index[d.percent >= MIN_PERCENT]
    shown = d.iloc[: big.max() + 1] if len(big) else d.iloc[:0]
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.bar(shown.label.astype(str), shown.percent, color="tab:blue")
    hidden = d.percent.sum() - shown.percent.sum()
    if hidden > 0:
        title += f"\n(tail of bars under {MIN_PERCENT} % omitted; it sums to {hidden:.2f} %)"
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.tick_params(axis="x", labelrotation=90 if len(shown) > 12 else 0, labelsize=7)
    fig.tight_layout()
    return fig


def _lines(order: pd.DataFrame, columns: dict[str, str], ylabel: str, title: str, xlabel: str,
           log: bool = True) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(9, 4.5))
    x = range(len(order))
    for label, col in columns.items():
        ax.plot(x, order[col], marker=".", markersize=3, linewidth=0.8, label=label)
    if log:
        ax.set_yscale("log")
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.legend()
    fig.tight_layout()
    return fig


def _available(cases: pd.DataFrame, solvers: Sequence[str]) -> list[str]:
    return [s for s in solvers if f"{s}_seconds" in cases and cases[f"{s}_seconds"].notna().any()]


def _empty(title: str) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.text(0.5, 0.5, "n/a: no measurements", ha="center", va="center")
    ax.set(title=title)
    ax.set_axis_off()
    return fig


def draw_all(cases: pd.DataFrame, parallelism: pd.DataFrame, solvers: Sequence[str], out: str | Path) -> list[Path]:
    """Write every figure of ``names.plot_names(solvers)`` in each of FORMATS; returns the PNG paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ran = _available(cases, solvers)
    by_seq = cases.sort_values("est_seq", kind="stable")
    timing_key = f"{BASELINE}_seconds" if BASELINE in ran else (f"{ran[0]}_seconds" if ran else "est_seq")
    by_time = cases.sort_values(timing_key, kind="stable")
    figs = {
        "fig07_intra_parallelism": _histogram(parallelism, "intra", "exon length (cells computable in parallel)",
                                              "% of exons", "Potential intra-exon parallelism, average test case"),
        "fig09_inter_parallelism": _histogram(parallelism, "inter", "exons per group", "% of groups",
                                              "Potential inter-exon parallelism, average test case"),
        "fig10_estimated_times": _lines(by_seq, {"sequential (Eq. 3)": "est_seq", "intra-exon (Eq. 4)": "est_intra",
                                                 "intra+inter-exon (Eq. 5)": "est_intra_inter"},
                                        "estimated time (cell units)", "Estimated execution times",
                                        "test cases ordered by sequential estimate"),
        "fig13_actual_times": _lines(by_time, {s: f"{s}_seconds" for s in ran}, "seconds", "Actual execution times",
                                     f"test cases ordered by {timing_key.removesuffix('_seconds')} time")
        if ran else _empty("Actual execution times"),
    }
    faster = [s for s in ran if s != BASELINE]
    figs["fig14_speedups"] = (
        _lines(by_time, {s: f"{s}_speedup" for s in faster}, f"speedup vs {BASELINE}",
               f"Speedup wrt. {BASELINE}", f"test cases ordered by {BASELINE} time", log=False)
        if faster and BASELINE in ran else _empty(f"Speedup wrt. {BASELINE}"))
    fig, ax = plt.subplots(figsize=(7, 5))
    for s in ran:
        d = cases[cases[f"{s}_seconds"].notna()]
        ax.scatter(d.m * d.n, d[f"{s}_seconds"], s=8, label=s)
    ax.set(xscale="log", yscale="log", xlabel="m × n", ylabel="seconds", title="Execution time vs m × n")
    if ran:
        ax.legend()
    fig.tight_layout()
    figs["fig15_scalability"] = fig
    for s in solvers:
        units = MODEL_OF.get(s, UNITS[0])
        if s not in ran:
            figs[overlay_name(s)] = _empty(f"{s}: estimated vs actual")
            continue
        d = cases[cases[f"{s}_seconds"].notna()].sort_values(units, kind="stable")
        fig, ax = plt.subplots(figsize=(9, 4.5))
        ax.plot(range(len(d)), d[units], color="tab:blue", linewidth=0.8, label=f"estimated ({units})")
        ax.set(yscale="log", xlabel=f"test cases ordered by {units}", ylabel=f"{units} (cell units)",
               title=f"Estimated and actual execution times overlapped: {s}")
        ax2 = ax.twinx()
        ax2.plot(range(len(d)), d[f"{s}_seconds"], color="tab:red", linewidth=0.8, label="actual (seconds)")
        ax2.set(yscale="log", ylabel="seconds")
        fig.legend(loc="upper left", bbox_to_anchor=(0.08, 0.9))
        fig.tight_layout()
        figs[overlay_name(s)] = fig
    for name, f in figs.items():
        save(f, *(out / f"{name}.{fmt}" for fmt in FORMATS))
    return [out / f"{name}.png" for name in figs]
