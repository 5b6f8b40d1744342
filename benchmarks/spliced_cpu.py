"""CPU solver benchmark: cells, seconds (median of repeats after a JIT warm-up; min-max beside
it), MCUPS and speedup of ``multicore`` over ``sequential``.

    python benchmarks/spliced_cpu.py [--repeats 5] [--cases 0] [--threads N] [--no-large]
                                     [--no-paper] [--no-traceback] [--scaling]

Workloads: the paper-shaped synthetic set (SPEC §6 shape; ``--cases N`` takes a seeded
random sample of N cases, 0 = all 1,010) through each solver's batch call ``solve_many``
(``multicore`` runs the cases in parallel, one per core), score only and with traceback; and
the IL1RAPL1-shaped case alone (``multicore``: its columns cut into one strip per thread, the
strips run as a pipeline). ``--scaling`` adds the IL1RAPL1-shaped case's score-only
``multicore`` time at 1, 2, 4, ... threads up to ``--threads``.
"""

from __future__ import annotations

import argparse
import os
import platform

import numba
import numpy as np

from splicedalign.workloads.spliced import synthetic
from splicedalign.workloads.spliced.bench import timed_batch
from splicedalign.workloads.spliced.cpu_kernels import score_dtype
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import get_solver


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cases", type=int, default=0, help="sample of N paper-shaped cases (0 = all)")
    ap.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    ap.add_argument("--no-large", action="store_true", help="skip the IL1RAPL1-shaped case")
    ap.add_argument("--no-paper", action="store_true", help="skip the paper-shaped set")
    ap.add_argument("--no-traceback", action="store_true", help="score only")
    ap.add_argument("--scaling", action="store_true", help="IL1RAPL1-shaped multicore at 1, 2, 4, ... threads")
    args = ap.parse_args()
    numba.set_num_threads(args.threads)
    scoring = Scoring()
    workloads = []
    if not args.no_paper:
        paper = synthetic.paper_set()
        if args.cases:
            pick = np.random.default_rng(12).choice(len(paper), args.cases, replace=False)
            paper = [paper[i] for i in sorted(pick)]
        workloads.append((f"paper-shaped x{len(paper)}", paper))
    if not args.no_large or args.scaling:
        large = synthetic.il1rapl1_case()
    if not args.no_large:
        workloads.append(("IL1RAPL1-shaped", [large]))
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"numba {numba.__version__} ({args.threads} thread(s)), median of {args.repeats}")
    print(f"{'workload':<22} {'solver':<11} {'mode':<10} {'cells':>15} {'seconds':>9} {'min-max':>15} "
          f"{'MCUPS':>7} {'speedup':>8}")
    for label, cases in workloads:
        cells = sum(c.cells for c in cases)
        for traceback in (False,) if args.no_traceback else (False, True):
            base = None
            for name in ("sequential", "multicore"):
                # one untimed pass over the cases (JIT warm-up), then the median of the repeats
                rec = timed_batch(name, cases, scoring, args.repeats, traceback)
                secs = rec["seconds"]
                base = base or secs
                mode = "traceback" if traceback else "score"
                spread = f"{rec['seconds_min']:.3f}-{rec['seconds_max']:.3f}"
                print(f"{label:<22} {name:<11} {mode:<10} {cells:>15,} {secs:>9.3f} {spread:>15} "
                      f"{cells / secs / 1e6:>7.0f} {base / secs:>7.2f}x", flush=True)
    if args.scaling:
        scaling(large, scoring, args.repeats, args.threads)


def scaling(case, scoring: Scoring, repeats: int, threads: int) -> None:
    """Score-only multicore time of one case against sequential's at 1, 2, 4, ... threads,
    and whether multicore's last rows (every column; at the most threads also the score,
    chain and alignment) equal sequential's."""
    base = timed_batch("sequential", [case], scoring, repeats, False)["seconds"]
    want = get_solver("sequential").solve(case, scoring, traceback=True)
    dtype = score_dtype(case.m, case.n, scoring)
    rows = get_solver("sequential").last_rows(case, scoring, dtype)
    print(f"# {case.name}: sequential {base:.3f} s; multicore by thread count")
    print(f"{'threads':>7} {'seconds':>9} {'min-max':>15} {'speedup':>8}  identical")
    counts = sorted({1 << i for i in range(threads.bit_length())} | {threads})
    for t in counts:
        numba.set_num_threads(t)
        rec = timed_batch("multicore", [case], scoring, repeats, False)
        same = np.array_equal(get_solver("multicore").last_rows(case, scoring, dtype), rows)
        if t == threads:
            got = get_solver("multicore").solve(case, scoring, traceback=True)
            same = same and (got.score, got.chain, got.alignment) == (want.score, want.chain, want.alignment)
            same = same and np.array_equal(got.last_row_scores, want.last_row_scores)
        print(f"{t:>7} {rec['seconds']:>9.3f} {rec['seconds_min']:.3f}-{rec['seconds_max']:.3f} "
              f"{base / rec['seconds']:>7.2f}x  {'yes' if same else 'NO'}", flush=True)
    print(f"# numba threading layer: {numba.threading_layer()}")
    numba.set_num_threads(threads)


if __name__ == "__main__":
    main()
