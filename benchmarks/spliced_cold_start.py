"""One-case latency in a fresh process: what the first solve adds (compilation, cache loading).

    python benchmarks/spliced_cold_start.py [--case hs_FAU-hs_X65923.1] [--solver sequential] [--runs 3]

Each run starts a new interpreter that loads one bundled case and solves it three times with
traceback; the first solve's extra time over the later ones is what a fresh ``splicedalign
align`` pays before its answer. The table splits it: kernels compiled (numba cache misses,
should be 0: every CPU kernel is ``cache=True``) and loaded from the on-disk cache, and the
import of ``scipy.linalg`` that numba's first compiled call triggers when SciPy is installed
(its BLAS check). The last column times the CLI itself (``splicedalign align``) end to end.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PROBE = r"""
import json, sys, time
from splicedalign.workloads.spliced.datasets import read_manifest
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import get_solver
from splicedalign.workloads.spliced import cpu_kernels
entry = next(e for e in read_manifest(sys.argv[1]) if e.case == sys.argv[2])
case, solver = entry.load(), get_solver(sys.argv[3])
before = set(sys.modules)
times = []
for _ in range(3):
    t = time.perf_counter()
    solver.solve(case, Scoring(), True)
    times.append(time.perf_counter() - t)
kernels = [f for f in vars(cpu_kernels).values() if hasattr(f, "stats")]
print(json.dumps({"times": times, "scipy": "scipy.linalg" in set(sys.modules) - before,
                  "hits": sum(sum(f.stats.cache_hits.values()) for f in kernels),
                  "misses": sum(sum(f.stats.cache_misses.values()) for f in kernels)}))
"""

SCIPY = "import time; t = time.perf_counter(); import scipy.linalg; print(time.perf_counter() - t)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", default=str(REPO / "resources" / "bundled" / "cases.tsv"))
    ap.add_argument("--case", default="hs_FAU-hs_X65923.1")
    ap.add_argument("--solver", default="sequential")
    ap.add_argument("--runs", type=int, default=3, help="fresh processes (the median is shown)")
    args = ap.parse_args()
    probes, clis, scipy = [], [], []
    entry_row = next(line.split("\t") for line in Path(args.manifest).read_text().splitlines()
                     if line.startswith(args.case + "\t"))
    root = Path(args.manifest).parent
    cli = ["splicedalign", "-q", "align", "--base", str(root / entry_row[1]), "--target", str(root / entry_row[2]),
           "--exons", str(root / entry_row[3]), "--solver", args.solver, "--format", "json"]
    for _ in range(args.runs):
        out = subprocess.run([sys.executable, "-c", PROBE, args.manifest, args.case, args.solver],
                             capture_output=True, text=True, check=True).stdout
        probes.append(json.loads(out))
        t = time.perf_counter()
        subprocess.run(cli, capture_output=True, check=True)
        clis.append(time.perf_counter() - t)
        try:
            scipy.append(float(subprocess.run([sys.executable, "-c", SCIPY], capture_output=True, text=True,
                                              check=True).stdout))
        except subprocess.CalledProcessError:
            scipy.append(0.0)
    first = statistics.median(p["times"][0] for p in probes)
    warm = statistics.median(min(p["times"][1:]) for p in probes)
    print(f"# {args.case}, {args.solver}, with traceback, median of {args.runs} fresh processes")
    print(f"{'first_s':>8} {'warm_s':>8} {'first_extra_s':>14} {'compiled':>9} {'from_cache':>11} "
          f"{'scipy_import_s':>15} {'extra_minus_scipy_s':>20} {'cli_wall_s':>11}")
    scipy_s = statistics.median(scipy) if probes[0]["scipy"] else 0.0
    print(f"{first:>8.3f} {warm:>8.4f} {first - warm:>14.3f} {probes[0]['misses']:>9} {probes[0]['hits']:>11} "
          f"{scipy_s:>15.3f} {first - warm - scipy_s:>20.3f} {statistics.median(clis):>11.3f}")


if __name__ == "__main__":
    main()
