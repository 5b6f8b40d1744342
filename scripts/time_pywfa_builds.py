"""pywfa's one-core times on issue 26's side rows for several builds of pywfa on one host (is the peer
timed at its best?): e.g. the wheel built elsewhere against one built on this host by
scripts/pywfa_native.sh (-march=native, as a user's `pip install pywfa` builds it). Each build is a
folder holding pywfa (--sites NAME=DIR); the rows are timed by ``peers.time_pywfa`` (the side rows'
one definition: fresh processes, the aligner kept, exact, memory mode high) with that folder first
on the timing processes' PYTHONPATH; the builds take turns, --rounds times. Prints each row's
median per build (the processes' min-max) and the ratio to the first build; every score equal
across builds, every CIGAR re-scored. Run with the first build importable (PYTHONPATH):

  PYTHONPATH=src:/tmp/site_wheel python3 scripts/time_pywfa_builds.py \
      --sites wheel=/tmp/site_wheel native=/tmp/site_native --out /tmp/builds.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from splicedalign.core.timing import Timing
from splicedalign.workloads.nw.peers import PROCESSES, PywfaJob, time_pywfa
from splicedalign.workloads.nw.synthetic import ISSUE26_COSTS, case_pair


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sites", nargs="+", required=True, help="NAME=DIR: a folder holding a pywfa build")
    parser.add_argument("--cases", nargs="*", default=["100000-1", "30368-10", "100000-5", "1000000-1"],
                        help="linear rows")
    parser.add_argument("--affine-cases", nargs="*", default=["100000-1", "30368-10"], help="gap-affine rows")
    parser.add_argument("--processes", type=int, default=PROCESSES)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    sites = [site.split("=", 1) for site in args.sites]
    rows = [(case, "linear", tb) for case in args.cases for tb in (False, True)]
    rows += [(case, "affine", tb) for case in args.affine_cases for tb in (False, True)]
    pairs = {case: case_pair(case) for case in dict.fromkeys(args.cases + args.affine_cases)}
    jobs = [PywfaJob(pairs[case].a, pairs[case].b, ISSUE26_COSTS[costs], tb) for case, costs, tb in rows]
    base = os.environ.get("PYTHONPATH", "")
    times: dict[str, list[list[float]]] = {name: [[] for _ in rows] for name, _ in sites}  # process medians, ms
    scores: dict[tuple[str, str], set[int]] = {}
    for round_ in range(args.rounds):
        for name, folder in sites:
            os.environ["PYTHONPATH"] = os.pathsep.join([folder, base]).rstrip(os.pathsep)
            where = subprocess.run([sys.executable, "-c", "import pywfa.align as a; print(a.__file__)"],
                                   capture_output=True, text=True, check=True).stdout.strip()
            t0 = time.perf_counter()
            timed = time_pywfa(jobs, processes=args.processes)
            print(f"round {round_ + 1} {name}: {where}, {time.perf_counter() - t0:.1f} s", flush=True)
            for k, ((case, costs, _), timing) in enumerate(zip(rows, timed)):
                times[name][k] += [v * 1e3 for v in timing.wall.runs]
                scores.setdefault((case, costs), set()).add(timing.score)
    os.environ["PYTHONPATH"] = base
    fails = [f"{case} {costs}: scores differ {got}" for (case, costs), got in scores.items() if len(got) > 1]
    for fail in fails:
        print("FAIL " + fail)
    first = sites[0][0]
    print("\n| case | costs | mode | " + " | ".join(f"{name} ms (process min-max)" for name, _ in sites)
          + " | " + " | ".join(f"{name} / {first}" for name, _ in sites[1:]) + " |")
    print("|---" * (3 + 2 * len(sites) - 1) + "|")
    table = []
    for k, (case, costs, tb) in enumerate(rows):
        timed = {name: Timing(tuple(times[name][k])) for name, _ in sites}
        medians = {name: timed[name].median for name, _ in sites}
        table.append({"case": case, "costs": costs, "mode": "align" if tb else "score", "median_ms": medians,
                      "process_ms": {name: times[name][k] for name, _ in sites}})
        print(f"| {case} | {costs} | {'CIGAR' if tb else 'score'} | "
              + " | ".join(f"{medians[name]:.2f} ({timed[name].min:.2f}-{timed[name].max:.2f})" for name, _ in sites)
              + " | " + " | ".join(f"{medians[name] / medians[first]:.2f}" for name, _ in sites[1:]) + " |")
    if args.out:
        args.out.write_text(json.dumps({"sites": dict(sites), "rows": table, "fails": fails}, indent=1))
    return 1 if fails else 0


if __name__ == "__main__":
    raise SystemExit(main())
