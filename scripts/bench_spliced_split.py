"""The `gpu` solver's split of a never-seen call on this machine's CPU (no GPU used): FlatCases.of
+ launch.plan_launches + FlatCases.select per launch (GpuSolver._split's host work) of fresh
10 paper sets, this tree against baseline trees' ``src`` (``NAME=SRC``), fresh processes
taking turns. Per process: compiled passes loaded on a small set, then for each seed the sets
made and split once (the first call after making them, as a user's call; the cyclic collector
paused as in solve_many). Prints wall and process-CPU ms, median (min) over seeds. ``--plan``:
then each launch planned as a never-seen launch is (GpuSolver._inputs and _rest: build_plan, the
gathers' inputs) and its uploads packed (device.pack, into a kept host buffer: no pinned memory
here), timed whole and for launch 1 alone (a streamed 10-set call's GPU waits for its planning).
``--streamed``: a score call's split as it goes instead (GpuSolver._streamed, every launch made,
none planned, H100-sized free memory): 10 sets (ms to the first launch, to the second, to the
end) and 1 set (its one launch made, configured and its Feeder made: what runs before the fed
kernel's set-up; then its step 0 planned and window 0 written into host staging: what the fed
kernel waits for).
    PYTHONPATH=src python3 scripts/bench_spliced_split.py main=/path/to/main/src --threads 1 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

PROBE = r"""
import gc, json, sys, time
import numba
import numpy as np
from splicedalign.gpu import device
from splicedalign.workloads.spliced.gpu import launch, plan, solver
from splicedalign.workloads.spliced.gpu.flat import FlatCases
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.synthetic import paper_sets
numba.set_num_threads(int(sys.argv[1]))
planned, kept = sys.argv[2] == "plan", {}
def planning(flat, ctype):
    config = launch.configure(flat, ctype, True, False, True)
    p = plan.build_plan(flat, config.rows_per_lane, config.floors, config.late, config.entry)
    gathers = solver._gather_inputs(p, config.last_rows)[0]
    arrays = [p.tasks, p.base_letters, p.target_letters, p.letter_cases(), plan.LETTER_CODES] + gathers
    offsets, end = device._packed([a.nbytes for a in arrays])
    if kept.get("buffer") is None or kept["buffer"].size < end:
        kept["buffer"] = np.empty(1 << max(24, (end - 1).bit_length()), np.uint8)
    device.pack(kept["buffer"], [np.ascontiguousarray(a).reshape(-1).view(np.uint8) for a in arrays], offsets)
def split(cases):
    gc.disable()
    t, c = time.perf_counter(), time.process_time()
    flat = FlatCases.of(cases)
    _, work, _, _ = launch.plan_launches(flat, Scoring(), not planned, 80 << 30, lambda ctype: True)
    flats = [flat.select(sel) for _, sel in work]
    out = {"wall": (time.perf_counter() - t) * 1e3, "cpu": (time.process_time() - c) * 1e3, "launches": len(flats)}
    if planned:
        times = []
        for f, (ctype, _) in zip(flats, work):
            s = time.perf_counter()
            planning(f, ctype)
            times.append((time.perf_counter() - s) * 1e3)
        out |= {"plan": sum(times), "plan1": times[1 if len(times) > 1 else 0]}
    gc.enable()
    return out
split(paper_sets(1, 999))  # compiled passes loaded
print(json.dumps([split(paper_sets(10, int(seed))) for seed in sys.argv[3:]]))
"""


# One process of --streamed: fresh cases split as a score call on an 80 GB device splits them.
STREAMED = r"""
import gc, json, sys, time
import numba
import numpy as np
from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu.feed import Feeder
from splicedalign.workloads.spliced.gpu.plan import NFIELDS
from splicedalign.workloads.spliced.gpu.solver import IN_FLIGHT, GpuSolver
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.synthetic import paper_set, paper_sets
numba.set_num_threads(int(sys.argv[1]))
FREE = 79 << 30
STAGING = [np.zeros((0, NFIELDS), np.int32), np.zeros(0, np.uint8), np.zeros(0, np.int32)]
def split(cases):
    solver = GpuSolver()
    gc.disable()
    t, c = time.perf_counter(), time.process_time()
    share, _ = launch.memory_split(0, FREE, IN_FLIGHT)
    marks, step0 = [], 0.0
    for work, flat, size, only in solver._streamed(cases, Scoring(), FREE, share):
        if only:
            config = solver._configure(flat, work.ctype, Scoring(), False)
            fed = Feeder.of(flat, config, solver.tuning)
        marks.append((time.perf_counter() - t) * 1e3)
    out = {"wall": (time.perf_counter() - t) * 1e3, "cpu": (time.process_time() - c) * 1e3, "launches": len(marks),
           "first": marks[0], "second": marks[1] if len(marks) > 1 else marks[0]}
    if len(marks) == 1:  # the fed launch's step 0, into staging kept and touched (as the solver's pinned one)
        sizes = fed.sizes()
        if STAGING[0].shape[0] < sizes.tasks or STAGING[1].size < sizes.base or STAGING[2].size < sizes.tsel:
            STAGING[:] = [np.ones((2 * sizes.tasks, NFIELDS), np.int32), np.ones(2 * sizes.base, np.uint8),
                          np.ones(2 * sizes.tsel, np.int32)]
        s = time.perf_counter()
        next(fed.steps(*STAGING))
        out["step0"] = (time.perf_counter() - s) * 1e3
    gc.enable()
    return out
split(paper_set(999))  # compiled passes loaded
split(paper_sets(3, 990))
print(json.dumps([split(paper_sets(10, int(seed))) for seed in sys.argv[2:]] + [split(paper_set(int(seed) + 5))
                                                                               for seed in sys.argv[2:]]))
"""


def turns(args, trees: dict[str, str], per: int, probe: str, *flags: str) -> Iterator[tuple[int, dict]]:
    """Per numba thread count: each tree's calls ({tree: [call, ...]}) from ``args.processes``
    fresh processes a tree, the trees taking turns (``python -c probe THREADS *flags *SEEDS``)."""
    for threads in args.threads:
        got: dict[str, list[dict]] = {name: [] for name in trees}
        for p in range(args.processes):
            seeds = [str(args.seed + 10 * (p * per + i)) for i in range(per)]
            for name, src in (list(trees.items()) if p % 2 == 0 else list(trees.items())[::-1]):
                env = dict(os.environ, PYTHONPATH=src)
                out = subprocess.run([sys.executable, "-c", probe, str(threads), *flags, *seeds], env=env, check=True,
                                     capture_output=True, text=True).stdout
                got[name] += json.loads(out)
        yield threads, got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baselines", nargs="*", help="NAME=SRC: a baseline tree's src folder")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="numba threads (default 1 2)")
    parser.add_argument("--seeds", type=int, default=6, help="fresh 10-set calls per tree and thread count")
    parser.add_argument("--seed", type=int, default=200)
    parser.add_argument("--processes", type=int, default=2, help="processes per tree and thread count (turns)")
    parser.add_argument("--plan", action="store_true",
                        help="also plan each launch of a score call (build_plan, the gathers) and pack its uploads")
    parser.add_argument("--streamed", action="store_true", help="a score call's split as it goes (10 sets, 1 set)")
    args = parser.parse_args()
    trees = {"this": str(Path(__file__).resolve().parents[1] / "src")}
    trees |= dict(b.split("=", 1) for b in args.baselines)
    per = -(-args.seeds // args.processes)
    print(f"seeds: 10 sets from {args.seed} to {args.seed + 10 * (args.processes * per - 1)} by 10"
          + (" (1 set: each + 5)" if args.streamed else ""), flush=True)
    if args.streamed:
        return streamed(args, trees, per)
    rows = []
    for threads, got in turns(args, trees, per, PROBE, "plan" if args.plan else "-"):
        for name, calls in got.items():
            wall, cpu = [c["wall"] for c in calls], [c["cpu"] for c in calls]
            planned = [f"{statistics.median(c[k] for c in calls):.2f} ({min(c[k] for c in calls):.2f})"
                       for k in ("plan", "plan1") if args.plan]
            rows.append((name, threads, len(calls), statistics.median(wall), min(wall), statistics.median(cpu),
                         calls[0]["launches"], planned))
    more = " plan+pack ms median (min) | launch 1's |" if args.plan else ""
    print(f"| tree | numba threads | calls | split wall ms median (min) | CPU ms median | launches |{more}")
    print("|---|---:|---:|---:|---:|---:|" + ("---:|---:|" if args.plan else ""))
    for name, threads, n, wall, low, cpu, launches, planned in rows:
        print(f"| {name} | {threads} | {n} | {wall:.2f} ({low:.2f}) | {cpu:.2f} | {launches} |"
              + "".join(f" {p} |" for p in planned))


def streamed(args, trees: dict[str, str], per: int) -> None:
    """--streamed: the trees' split as it goes, in fresh processes taking turns."""
    rows = []
    for threads, got in turns(args, trees, per, STREAMED):
        for name, calls in got.items():
            ten, one = [c for c in calls if c["launches"] > 1], [c for c in calls if c["launches"] == 1]
            med = lambda key, of: statistics.median(c[key] for c in of)  # noqa: E731
            rows.append((name, threads, len(ten), med("first", ten), med("second", ten), med("wall", ten),
                         med("cpu", ten), ten[0]["launches"], med("wall", one), min(c["wall"] for c in one),
                         med("step0", one), min(c["step0"] for c in one)))
    print("| tree | numba threads | calls | 10 sets: first launch ms | second | end | CPU | launches "
          "| 1 set: split + configure + Feeder ms median (min) | its step 0 + window 0 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, threads, n, first, second, wall, cpu, launches, one, low, step0, step0_low in rows:
        print(f"| {name} | {threads} | {n} | {first:.2f} | {second:.2f} | {wall:.2f} | {cpu:.2f} | {launches} "
              f"| {one:.3f} ({low:.3f}) | {step0:.3f} ({step0_low:.3f}) |")


if __name__ == "__main__":
    main()
