"""The host planning of never-seen spliced work on the device machine's CPUs (no GPU used): this
tree against baseline trees' ``src`` (``NAME=SRC``), each in fresh processes taking turns. Per
process: compiled passes loaded on a small set, then a paper set and 10 sets made (fresh case
objects, as a user's loading leaves the heap), then build_plan of a fresh paper set and of the
first launch of fresh 10 sets, twice each (the first right after the sets were made: the
"first call" of a process), wall ms per call and per pass.
    PYTHONPATH=src python3 scripts/device_spliced_plan.py main=/path/to/main/src --processes 2
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
import json, sys, time
from splicedalign.workloads.spliced.gpu import launch, plan
from splicedalign.workloads.spliced.gpu import flat as gpu_flat
from splicedalign.workloads.spliced.gpu.flat import FlatCases
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.synthetic import paper_set, paper_sets
seed = int(sys.argv[1])
NAMES = ("_exon_union", "checked_letters", "_exon_order", "_fold_writers", "_slots", "_launch_order", "_row_offsets",
         "_case_counts", "_interleave", "_in_slot_order", "_write_tasks")
spent = {}
def timed(name, f):
    def run(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            spent[name] = spent.get(name, 0.0) + (time.perf_counter() - t) * 1e3
    return run
for name in NAMES:
    if hasattr(plan, name):
        setattr(plan, name, timed(name, getattr(plan, name)))
def planned(cases, first_launch):
    spent.clear()
    t = time.perf_counter()
    flat = FlatCases.of(cases)
    if first_launch:
        _, work, _, _ = launch.plan_launches(flat, Scoring(), False, 60 << 30, lambda ctype: True)
        flat = flat.select(work[0][1])
    split = (time.perf_counter() - t) * 1e3
    _ = flat.first
    config = launch.configure(flat, "int", True, True, True)
    t = time.perf_counter()
    plan.build_plan(flat, config.rows_per_lane, config.floors, config.late, config.entry)
    return {"split": split, "build_plan": (time.perf_counter() - t) * 1e3, "cases": len(flat)} | dict(spent)
planned(paper_set(seed + 99, bases=20), False)  # compiled passes loaded
works = [("10 sets", paper_sets(10, seed + 10 * i), True) for i in range(2)]
works = [w for pair in zip(works, [("1 set", paper_set(seed + 50 + i), False) for i in range(2)]) for w in pair]
out = [(name, planned(cases, first)) for name, cases, first in works]
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="*", metavar="NAME=SRC")
    ap.add_argument("--processes", type=int, default=2)
    args = ap.parse_args()
    import numba
    trees = {"new": str(Path(__file__).resolve().parents[1] / "src")}
    trees |= {k: str(Path(v).resolve()) for k, v in (t.split("=", 1) for t in args.trees)}
    runs: dict[str, list] = {k: [] for k in trees}
    for i in range(args.processes):
        for name in (list(trees) if i % 2 == 0 else list(reversed(trees))):
            env = dict(os.environ, PYTHONPATH=trees[name])
            got = subprocess.run([sys.executable, "-c", PROBE, str(1000 + 100 * i)], env=env, capture_output=True,
                                 text=True, check=True)
            runs[name].append(json.loads(got.stdout))
    print(f"host planning, {os.cpu_count()} CPUs, numba {numba.get_num_threads()} threads; wall ms per build_plan "
          f"(first call of each process first):")
    for name, procs in runs.items():
        for work in ("10 sets", "1 set"):
            calls = [c for p in procs for w, c in p if w == work]
            firsts = [[c for w, c in p if w == work][0] for p in procs]
            keys = [k for k in calls[0] if k not in ("cases",)]
            print(f"  {name} {work} ({calls[0]['cases']} cases): " + "; ".join(
                f"{k} {statistics.median(c[k] for c in calls if k in c):.2f}"
                f" (first {'/'.join(f'{f.get(k, 0):.1f}' for f in firsts)})" for k in keys))


if __name__ == "__main__":
    main()
