"""Benchmark of the primer solvers on paper-shaped synthetic instances (seeded), printing one
table: median of --repeats timed runs after --warmup, GCUPS, comparisons/s, speedup vs
sequential. Solvers must agree exactly on each case (else it stops naming the case).

  python benchmarks/primer.py --shape table1 --scale 16 --solvers sequential edlib
  python benchmarks/primer.py --shape table1 --scale 16 --extrapolate   # seconds scaled by cells

--extrapolate adds, per solver, a row for the unscaled shape with seconds multiplied by the
cells ratio (the unscaled cells are not computed: the ratio is scale^2 times the measured
cells/(m n) density ratio, taken as 1) - marked "(extrap.)". CPU numbers depend on the
machine: say which (this script prints the CPU count and numba threads)."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace

import numba

from splicedalign.workloads.primer.bench import add_speedups, check_agreement, format_table, measure
from splicedalign.workloads.primer.synthetic import SHAPES, shaped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", default="table1", choices=sorted(SHAPES))
    ap.add_argument("--scale", type=int, default=16, help="divide m and n by this (1 = the paper's shape)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--solvers", nargs="+", default=["sequential", "multicore", "edlib"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--extrapolate", action="store_true", help="add rows for the unscaled shape, scaled by cells")
    args = ap.parse_args(argv)
    problem = shaped(args.shape, args.scale, args.seed)
    case = f"{args.shape}/{args.scale}" if args.scale > 1 else args.shape
    print(f"# {case}: m={problem.m} n={problem.n} k={problem.k}; cpus={os.cpu_count()} "
          f"numba threads={numba.get_num_threads()}", file=sys.stderr)
    rows, results = [], {}
    for name in args.solvers:
        row, results[name] = measure(case, problem, name, args.repeats, args.warmup)
        rows.append(row)
        print(f"# {name}: {row.seconds:.4g} s", file=sys.stderr)
    check_agreement(case, results)
    if args.extrapolate and args.scale > 1:
        full = SHAPES[args.shape]
        factor = (full.m * full.n) / (problem.m * problem.n)
        for r in list(rows):
            rows.append(replace(r, case=args.shape, m=full.m, n=full.n, cells=round(r.cells * factor),
                                comparisons=round(r.comparisons * factor), seconds=r.seconds * factor,
                                seconds_min=r.seconds_min * factor, seconds_max=r.seconds_max * factor,
                                solutions=-1, extrapolated=True))
    add_speedups(rows)
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
