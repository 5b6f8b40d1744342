"""The `gpu` solver's split of a never-seen call on this machine's CPU (no GPU used): FlatCases.of
+ launch.plan_launches + FlatCases.select per launch (GpuSolver._split's host work) of fresh
10 paper sets, this tree against baseline trees' ``src`` (``NAME=SRC``), fresh processes
taking turns. Per process: compiled passes loaded on a small set, then for each seed the sets
made and split once (the first call after making them, as a user's call; the cyclic collector
paused as in solve_many). Prints wall and process-CPU ms, median (min) over seeds.
    PYTHONPATH=src python3 scripts/bench_spliced_split.py main=/path/to/main/src --threads 1 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import gc, json, sys, time
import numba
from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu.flat import FlatCases
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.synthetic import paper_sets
numba.set_num_threads(int(sys.argv[1]))
def split(cases):
    gc.disable()
    t, c = time.perf_counter(), time.process_time()
    flat = FlatCases.of(cases)
    _, work, _ = launch.plan_launches(flat, Scoring(), True, 80 << 30, lambda ctype: True)
    flats = [flat.select(sel) for _, sel in work]
    out = {"wall": (time.perf_counter() - t) * 1e3, "cpu": (time.process_time() - c) * 1e3, "launches": len(flats)}
    gc.enable()
    return out
split(paper_sets(1, 999))  # compiled passes loaded
print(json.dumps([split(paper_sets(10, int(seed))) for seed in sys.argv[2:]]))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baselines", nargs="*", help="NAME=SRC: a baseline tree's src folder")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="numba threads (default 1 2)")
    parser.add_argument("--seeds", type=int, default=6, help="fresh 10-set calls per tree and thread count")
    parser.add_argument("--seed", type=int, default=200)
    parser.add_argument("--processes", type=int, default=2, help="processes per tree and thread count (turns)")
    args = parser.parse_args()
    trees = {"this": str(Path(__file__).resolve().parents[1] / "src")}
    trees |= dict(b.split("=", 1) for b in args.baselines)
    per = -(-args.seeds // args.processes)
    rows = []
    for threads in args.threads:
        got: dict[str, list[dict]] = {name: [] for name in trees}
        for p in range(args.processes):
            seeds = [str(args.seed + 10 * (p * per + i)) for i in range(per)]
            for name, src in (list(trees.items()) if p % 2 == 0 else list(trees.items())[::-1]):
                env = dict(os.environ, PYTHONPATH=src)
                out = subprocess.run([sys.executable, "-c", PROBE, str(threads), *seeds], env=env, check=True,
                                     capture_output=True, text=True).stdout
                got[name] += json.loads(out)
        for name, calls in got.items():
            wall, cpu = [c["wall"] for c in calls], [c["cpu"] for c in calls]
            rows.append((name, threads, len(calls), statistics.median(wall), min(wall), statistics.median(cpu),
                         calls[0]["launches"]))
    print("| tree | numba threads | calls | split wall ms median (min) | CPU ms median | launches |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, threads, n, wall, low, cpu, launches in rows:
        print(f"| {name} | {threads} | {n} | {wall:.2f} ({low:.2f}) | {cpu:.2f} | {launches} |")


if __name__ == "__main__":
    main()
