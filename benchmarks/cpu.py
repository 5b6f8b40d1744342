"""CPU solver benchmark: cells, seconds (median of repeats, JIT warm-up excluded) and MCUPS.

    python benchmarks/cpu.py [--repeats 5] [--cases 60] [--threads N]

Cases: a slice of the paper-shaped synthetic set (SPEC §6 shape: avg n≈1,460, Σ|b|≈7,700),
solved one by one (score only, then with traceback), and the IL1RAPL1-shaped case.
"""

from __future__ import annotations

import argparse
import os
import platform

import numba

from splicedalign.workloads.spliced import synthetic
from splicedalign.workloads.spliced.bench import timed_batch
from splicedalign.workloads.spliced.records import Scoring


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cases", type=int, default=60, help="first N cases of the paper-shaped set")
    ap.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    ap.add_argument("--no-large", action="store_true", help="skip the IL1RAPL1-shaped case")
    args = ap.parse_args()
    numba.set_num_threads(args.threads)
    scoring = Scoring()
    paper = synthetic.paper_set()[: args.cases]
    workloads = [(f"paper-shaped x{len(paper)}", paper)]
    if not args.no_large:
        workloads.append(("IL1RAPL1-shaped", [synthetic.il1rapl1_case()]))
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"numba {numba.__version__}, {args.threads} thread(s), median of {args.repeats}")
    print(f"{'workload':<22} {'solver':<11} {'mode':<10} {'cells':>14} {'seconds':>9} {'MCUPS':>8}")
    for label, cases in workloads:
        cells = sum(c.cells for c in cases)
        for name in ("sequential", "multicore"):
            for traceback in (False, True):
                # one untimed pass over the cases (JIT warm-up), then the median of the repeats
                secs = timed_batch(name, cases, scoring, args.repeats, traceback)["seconds"]
                mode = "traceback" if traceback else "score"
                print(f"{label:<22} {name:<11} {mode:<10} {cells:>14,} {secs:>9.3f} {cells / secs / 1e6:>8.0f}")


if __name__ == "__main__":
    main()
