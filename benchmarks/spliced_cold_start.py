"""One-case latency in a fresh process: what the first solve adds, split into its parts.

    python benchmarks/spliced_cold_start.py [--case hs_FAU-hs_X65923.1] [--solver sequential] [--runs 5]

Each run starts two new interpreters that load one bundled case and solve it three times with
traceback; the first solve's extra time over the later ones is what a fresh ``splicedalign
align`` pays before its answer (issue 12 target 6). The first interpreter solves as a user's
process does ("first-call stall"); the second does numba's first-call work one step at a time
before its first solve, so each part is timed on its own:

- ``scipy.linalg``: numba's first compiled call imports its CPU implementations, among them
  ``numba.np.arraymath``, whose import-time BLAS check imports ``scipy.linalg`` when SciPy is
  installed (it is in this machine's base image; splicedalign does not use it). Plain imports.
- NRT: numba compiles its small reference-counting runtime with LLVM once per process.
- implementation registries: the rest of numba's lazy imports (``numba.cpython.*``,
  ``numba.np.*``, ``numba.typed.*``, ...) and installing them into its target. Plain imports.
- cache loading: the first solve after these, less a warm solve: reading the kernels' index and
  object code from numba's on-disk cache (``cache=True``) and linking it. ``compiled`` counts
  kernels numba had to compile (cache misses: should be 0), ``from_cache`` the ones it loaded.

Both use the garbage-collection settings of a CLI process
(``splicedalign.core.collection.tune_short_process``). A third interpreter runs the CLI
(``splicedalign.cli.main``) twice in one process: the first align's extra over the second is
everything a fresh process adds (imports of numpy, numba and splicedalign, numba's first-call
work, cache loading), with the cyclic GC's pauses in it; around it, the interpreter's start and
its exit (module teardown). The last rows time ``python -m splicedalign.cli align`` end to end
and a process that only imports numpy and numba, the floor of any numba-based first align. Each
row is the median of the fresh processes, with their min and max; the runs interleave, so
machine load shifts every row alike.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PROBE = r"""
import json, sys, time
from splicedalign.core.collection import tune_short_process
tune_short_process()  # the garbage-collection settings of a CLI process
from splicedalign.workloads.spliced.datasets import read_manifest
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import get_solver
from splicedalign.workloads.spliced import cpu_kernels
entry = next(e for e in read_manifest(sys.argv[1]) if e.case == sys.argv[2])
case, solver = entry.load(), get_solver(sys.argv[3])
parts = {}
if sys.argv[4] == "split":
    from numba.core.registry import cpu_target
    from numba.core.runtime import nrt
    t = time.perf_counter()
    try:
        import scipy.linalg.cython_blas
    except ImportError:
        pass
    parts["scipy"] = time.perf_counter() - t
    t = time.perf_counter()
    nrt.rtsys.initialize(cpu_target.target_context)
    parts["nrt"] = time.perf_counter() - t
    t = time.perf_counter()
    cpu_target.target_context.refresh()
    parts["registries"] = time.perf_counter() - t
before = set(sys.modules)
times = []
for _ in range(3):
    t = time.perf_counter()
    solver.solve(case, Scoring(), True)
    times.append(time.perf_counter() - t)
kernels = [f for f in vars(cpu_kernels).values() if hasattr(f, "stats")]
print(json.dumps({"times": times, "parts": parts, "scipy_in_first": "scipy.linalg" in set(sys.modules) - before,
                  "hits": sum(sum(f.stats.cache_hits.values()) for f in kernels),
                  "misses": sum(sum(f.stats.cache_misses.values()) for f in kernels)}))
"""

CLI_PROBE = r"""
import time
started = time.time()
import gc, json, sys
pause, since = [0.0], [0.0]
def collected(phase, info):
    if phase == "start":
        since[0] = time.perf_counter()
    else:
        pause[0] += time.perf_counter() - since[0]
gc.callbacks.append(collected)
times, t = [], time.perf_counter()
from splicedalign.cli import main
for _ in range(2):
    main(sys.argv[1:])
    times.append(time.perf_counter() - t)
    gc_first = gc_first if len(times) > 1 else pause[0]
    t = time.perf_counter()
print(json.dumps({"times": times, "gc_first": gc_first, "started": started, "ended": time.time()}), flush=True)
"""

FLOOR = "import numpy, numba"
TARGET_S = 0.3  # issue 12 target 6: a fresh first align adds < 0.3 s of compilation


def probe(args: argparse.Namespace, mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, args.manifest, args.case, args.solver, mode],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", default=str(REPO / "resources" / "bundled" / "cases.tsv"))
    ap.add_argument("--case", default="hs_FAU-hs_X65923.1")
    ap.add_argument("--solver", default="sequential")
    ap.add_argument("--runs", type=int, default=5, help="fresh processes per row (the median is shown)")
    args = ap.parse_args()
    entry_row = next(line.split("\t") for line in Path(args.manifest).read_text().splitlines()
                     if line.startswith(args.case + "\t"))
    root = Path(args.manifest).parent
    align = ["-q", "align", "--base", str(root / entry_row[1]), "--target", str(root / entry_row[2]),
             "--exons", str(root / entry_row[3]), "--solver", args.solver, "--format", "json", "-o", os.devnull]
    rows: dict[str, list[float]] = {}
    natural = []
    for _ in range(args.runs):
        nat, split = probe(args, "natural"), probe(args, "split")
        spawned = time.time()
        cli = json.loads(subprocess.run([sys.executable, "-c", CLI_PROBE, *align], capture_output=True, text=True,
                                        check=True).stdout)
        exited = time.time()
        natural.append(nat)
        warm = min(nat["times"][1:])
        for name, value in [("first solve", nat["times"][0]), ("warm solve", warm),
                            ("first-call stall (first - warm)", nat["times"][0] - warm),
                            ("  scipy.linalg import (numba's BLAS check)", split["parts"]["scipy"]),
                            ("  numba NRT compile", split["parts"]["nrt"]),
                            ("  numba implementation registries", split["parts"]["registries"]),
                            ("  kernel cache loading", split["times"][0] - min(split["times"][1:])),
                            ("CLI: interpreter start", cli["started"] - spawned),
                            ("CLI: first align in a fresh process", cli["times"][0]),
                            ("CLI: second align in that process", cli["times"][1]),
                            ("  first - second (imports, first call)", cli["times"][0] - cli["times"][1]),
                            ("  cyclic GC pauses in the first", cli["gc_first"]),
                            ("CLI: exit (interpreter teardown)", exited - cli["ended"]),
                            ("CLI align, end to end (wall)", wall([sys.executable, "-m", "splicedalign.cli", *align])),
                            ("floor: python -c 'import numpy, numba'", wall([sys.executable, "-c", FLOOR]))]:
            rows.setdefault(name, []).append(value)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {args.case}, {args.solver}, with traceback; median (min-max) of {args.runs} fresh processes; "
          f"load average {load:.2f}")
    print(f"# kernels compiled {natural[0]['misses']}, loaded from the on-disk cache {natural[0]['hits']}; "
          f"scipy.linalg imported by the first solve: {'yes' if natural[0]['scipy_in_first'] else 'no'}")
    print(f"{'part':<44} {'median_s':>9} {'min_s':>8} {'max_s':>8}")
    for name, values in rows.items():
        print(f"{name:<44} {statistics.median(values):>9.3f} {min(values):>8.3f} {max(values):>8.3f}")
    med = {name: statistics.median(values) for name, values in rows.items()}
    compiled = med["  numba NRT compile"] + med["  kernel cache loading"]
    imports = med["  scipy.linalg import (numba's BLAS check)"] + med["  numba implementation registries"]
    stall = med["first-call stall (first - warm)"]
    print(f"# target 6 (< {TARGET_S} s of compilation): compilation and cache loading {compiled:.3f} s: "
          f"{'met' if natural[0]['misses'] == 0 and compiled < TARGET_S else 'missed'}; plain imports numba does "
          f"at the first call {imports:.3f} s; whole first-call stall {stall:.3f} s "
          f"({'under' if stall < TARGET_S else 'over'} {TARGET_S} s)")


if __name__ == "__main__":
    main()
