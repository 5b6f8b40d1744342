"""Benchmark of the nw (global alignment) solvers, printing one markdown table: per case and
solver the median of --repeats timed runs after --warmup, GCUPS, speedup vs sequential, score
only and with the alignment; all solvers must agree on each score (else it stops naming the
case) and every CIGAR is re-scored. Peers (pywfa) run side by side in the same process,
"n/a" when not installed; GPU solvers only where a GPU is usable.

  python benchmarks/nw.py                                   # 9,024 and 30,368, both kinds
  python benchmarks/nw.py --sizes 48 9024 15184 19456 30368 --solvers sequential pywfa
  python benchmarks/nw.py --sizes 100000 1000000 --solvers gpu --kinds mutated

CPU numbers depend on the machine: the script prints the CPU model, count and numba threads."""

from __future__ import annotations

import argparse
import os
import sys

import numba

from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.machine import cpu_model
from splicedalign.core.timing import gcups, time_repeats
from splicedalign.workloads.nw.records import Costs, cigar_cost
from splicedalign.workloads.nw.solvers import SOLVERS
from splicedalign.workloads.nw.synthetic import KINDS, make_pair


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[9_024, 30_368])
    ap.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    ap.add_argument("--solvers", nargs="+", default=["sequential", "multicore", "pywfa"])
    ap.add_argument("--modes", nargs="+", choices=["score", "align"], default=["score", "align"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    args = ap.parse_args(argv)
    costs = Costs()
    print(f"# {cpu_model()}; cpus={os.cpu_count()} numba threads={numba.get_num_threads()}", file=sys.stderr)
    print("| case | cells | solver | mode | median ms | spread | GCUPS | speedup vs sequential |")
    print("|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        for kind in args.kinds:
            pair = make_pair(n, kind)
            for mode in args.modes:
                traceback = mode == "align"
                scores: dict[str, int] = {}
                base = None
                for name in args.solvers:
                    try:
                        solver = SOLVERS.get(name)
                        timing, result = time_repeats(lambda: solver.solve(pair, costs, traceback), args.repeats,
                                                      args.warmup)
                    except SolverUnavailable as exc:
                        print(f"| {pair.name} | {pair.cells:,} | {name} | {mode} | n/a: {exc} | | | |")
                        continue
                    if traceback and cigar_cost(result.cigar, pair.a, pair.b, costs) != result.score:
                        sys.exit(f"{pair.name}: {name}'s CIGAR does not cost its score")
                    scores[name] = result.score
                    if name == "sequential":
                        base = timing.median
                    speedup = f"{base / timing.median:.1f}" if base else "-"
                    print(f"| {pair.name} | {pair.cells:,} | {name} | {mode} | {timing.median * 1e3:.3f} | "
                          f"{timing.spread:.2f} | {gcups(pair.cells, timing.median):.2f} | {speedup} |", flush=True)
                if len(set(scores.values())) > 1:
                    sys.exit(f"{pair.name} ({mode}): solvers disagree: {scores}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
