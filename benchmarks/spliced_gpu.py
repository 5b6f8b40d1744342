"""`gpu` (spliced) on the issue-12 shapes, per kernel configuration: a table of median times.

Columns: paper-shaped set (1,010 cases) score, cold (plan built and uploaded) and warm (the
same case list again: plan and device inputs cached); 10 paper-shaped sets in one call, warm;
IL1RAPL1-shaped score; the paper set and IL1RAPL1 with traceback (chains and alignments, traced
on the device); the launches' kernel time of each (the wavefront's; traceback time is the
rest). ``--sweep`` also times fields of launch.Tuning (chain_blocks_per_sm,
score_blocks_per_sm, follow_blocks_per_sm, walk_shares, long_chain_share: 2 follows no chain, late_folds) at other
values (``--sweep NAME ...``: only the fields named). (plan.MIN_LANE_ROWS is a kernel constant:
another value compiles other kernels; change it in plan.py.)
``--tail`` times the paper set (score and traced) without its longest dependent chains (the
five cases of its K = 622 base) and those cases alone: whether the launch ends on its critical
path. Needs a GPU:
    PYTHONPATH=src python3 benchmarks/spliced_gpu.py [--sweep [NAME ...]] [--tail] [--repeats 5]
"""

from __future__ import annotations

import argparse
import functools
import statistics

from splicedalign.core.timing import time_repeats
from splicedalign.gpu import device
from splicedalign.workloads.spliced.gpu.launch import Tuning, tuning_of
from splicedalign.workloads.spliced.gpu.solver import GpuSolver
from splicedalign.workloads.spliced.synthetic import il1rapl1_case, paper_set, paper_sets

SWEEP = (
    {},
    {"chain_blocks_per_sm": 2},
    {"score_blocks_per_sm": 3},
    {"follow_blocks_per_sm": 2},
    {"walk_shares": (0.1,)},
    {"walk_shares": (0.05, 0.1, 0.2)},
    {"long_chain_share": 0.25},
    {"long_chain_share": 2.0},
    {"late_folds": False},
)
FIELDS = sorted({k for change in SWEEP for k in change})


def median_time(fn, repeats: int, before=None) -> tuple[float, float]:
    """(median seconds, median kernel ms) of ``repeats`` calls after one warm-up call
    (core.timing.time_repeats; ``before`` runs untimed before each)."""
    ks = []

    def run():
        results, k = fn()
        ks.append(k)
        return results
    timing, _ = time_repeats(run, repeats, before=before)
    return timing.median, statistics.median(ks[1:])  # ks[0]: the warm-up


def call(gpu: GpuSolver, cases, traceback: bool = False):
    """One ``solve_many`` of ``cases``, returning (its results, its launches' kernel ms): what
    median_time times."""
    def run():
        return gpu.solve_many(cases, traceback=traceback), sum(gpu.kernel_ms)
    return run


def measure(repeats: int, paper, sets10, il1, tuning: Tuning) -> dict[str, tuple[float, float]]:
    gpu = GpuSolver(tuning=tuning)
    score = functools.partial(call, gpu)
    return {
        "paper cold": median_time(score(paper), repeats, gpu.clear_cache),
        "paper warm": median_time(score(paper), repeats),
        "10 sets warm": median_time(score(sets10), max(1, repeats // 2)),
        "IL1RAPL1": median_time(score([il1]), repeats),
        "paper trace": median_time(score(paper, traceback=True), repeats),
        "IL1 trace": median_time(score([il1], traceback=True), repeats),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sweep", nargs="*", choices=["all", *FIELDS],
                    help="also time the other values of every swept Tuning field, or of those named")
    ap.add_argument("--tail", action="store_true")
    args = ap.parse_args()
    paper = paper_set()
    sets10 = paper_sets(10)
    il1 = il1rapl1_case()
    cells = {"paper cold": sum(c.cells for c in paper), "10 sets warm": sum(c.cells for c in sets10),
             "IL1RAPL1": il1.cells}
    cells["paper warm"] = cells["paper trace"] = cells["paper cold"]
    cells["IL1 trace"] = cells["IL1RAPL1"]
    info = device.device_info()
    print(f"device: {info['name']} ({info['sms']} SMs)")
    print(f"{'configuration':<44}{'work':<14}{'ms':>9}{'kernel ms':>11}{'GCUPS':>8}")
    names = {"all"} if args.sweep == [] else set(args.sweep or ())  # a bare --sweep: all
    sweep = [c for c in SWEEP if not c or "all" in names or names & set(c)] if names else [{}]
    for change in sweep:
        label = ", ".join(f"{k}={v}" for k, v in change.items()) or "shipped"
        try:
            rows = measure(args.repeats, paper, sets10, il1, tuning_of(change))
        except Exception as exc:  # one configuration failing must not hide the others
            print(f"{label:<44}{type(exc).__name__}: {exc}")
            continue
        for work, (t, k) in rows.items():
            print(f"{label:<44}{work:<14}{t*1e3:>9.2f}{k:>11.2f}{cells[work]/t/1e9:>8.0f}", flush=True)
    if args.tail:
        longest = max(c.K for c in paper)
        parts = {"paper set": paper, "without K max": [c for c in paper if c.K < longest],
                 "K max only": [c for c in paper if c.K == longest]}
        gpu = GpuSolver()
        for traceback in (False, True):
            for part, cases in parts.items():
                t, k = median_time(call(gpu, cases, traceback), args.repeats)
                label = "tail: " + part + (" traced" if traceback else "")
                work = sum(c.cells for c in cases)
                print(f"{label:<44}{len(cases):<14}{t*1e3:>9.2f}{k:>11.2f}{work/t/1e9:>8.0f}", flush=True)


if __name__ == "__main__":
    main()
