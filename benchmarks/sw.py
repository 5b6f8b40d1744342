"""Benchmark of the sw (database search) solvers, printing one markdown table: median of
--repeats timed runs after --warmup, the solvers' runs interleaved round by round (load on a
shared machine hits each alike), wall seconds, GCUPS, cores kept busy (CPU / wall seconds),
speedup vs sequential and the ratio to the fastest CPU peer; solvers must agree exactly on each
case (else it stops naming the case). Peers run side by side in the same process: parasail
(scan, one core), pyopal (its threaded search, all cores) and, on a GPU machine, CUDASW++ 4.0
(--cudasw4 BUILD: built with scripts/cudasw4_build.sh; its own scan time, database resident).
Scoring: BLOSUM62 with BLAST's 11/1 unless given.

  python benchmarks/sw.py                         # bundled real data + a 5,000-sequence scale-up sample
  python benchmarks/sw.py --set paper --solvers sequential multicore sw-scan gpu --gap 4
  python benchmarks/sw.py --scaleup 100000 --solvers multicore pyopal
  python benchmarks/sw.py --set none --scaleup 200000 --solvers gpu --cudasw4 /tmp/cudasw4

The Swiss-Prot-shaped comparison of issue 27 (20 queries in one call) is scripts/device_sw.py.
CPU numbers depend on the machine: the script prints the CPU count and numba threads."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numba

from splicedalign.core.machine import cpu_model
from splicedalign.workloads.sw import synthetic
from splicedalign.workloads.sw.bench import (
    add_speedups,
    check_agreement,
    format_table,
    measure_cudasw4,
    measure_interleaved,
    paper_table,
)
from splicedalign.workloads.sw.cli import scoring_of
from splicedalign.workloads.sw.datasets import cases, read_manifest
from splicedalign.workloads.sw.load import load_database, load_queries

BUNDLED = Path(__file__).resolve().parents[1] / "resources" / "sw" / "cases.tsv"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=["bundled", "tiny", "paper", "none"], default="bundled")
    ap.add_argument("--scaleup", type=int, default=5000, help="sequences of a scale-up sample (0: none)")
    ap.add_argument("--solvers", nargs="+", default=["sequential", "multicore", "pyopal", "parasail"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--matrix", default="blosum62")
    ap.add_argument("--gap-open", type=int)
    ap.add_argument("--gap-extend", type=int)
    ap.add_argument("--gap", type=int, help="a linear gap instead of the matrix's BLAST default")
    ap.add_argument("--cudasw4", type=Path, help="CUDASW++ 4.0 build folder (align, makedb): a side-by-side row")
    args = ap.parse_args(argv)
    scoring = scoring_of(args)
    work = []
    if args.set == "bundled":
        for e in read_manifest(BUNDLED):
            db = load_database(e.db)
            work += [(f"{e.case}:{q.id}", q, db) for q in load_queries(e.query)]
    elif args.set != "none":
        work += cases(args.set)
    if args.scaleup:
        work.append((f"scaleup{args.scaleup}", *synthetic.scaleup_case(args.scaleup)))
    print(f"# {cpu_model()}, cpus={os.cpu_count()} numba threads="
          f"{numba.get_num_threads()}; {scoring.describe()}; scale-up seed {synthetic.SEED}; load average "
          f"{os.getloadavg()[0]:.2f}", file=sys.stderr)
    rows = []
    for case, q, db in work:
        case_rows, results = measure_interleaved(case, q, db, args.solvers, args.repeats, args.warmup, scoring)
        rows += case_rows
        for row in case_rows:
            print(f"# {case} {row.solver}: {row.seconds if row.seconds is not None else row.note}", file=sys.stderr)
        check_agreement(case, results)
        if args.cudasw4:
            with tempfile.TemporaryDirectory() as work:
                rows.append(measure_cudasw4(case, q, db, args.cudasw4, scoring, Path(work)))
    rows = add_speedups(rows)
    print(f"# load average after: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print(format_table(rows))
    if args.set == "paper":
        print(paper_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
