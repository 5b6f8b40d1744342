"""Fan-out overhead of the Snakemake pipeline: per case × solver job, wall time minus solve time.

    python benchmarks/pipeline_fanout.py [--set paper] [--limit 40] [--solvers sequential,multicore]
                                         [--repeats 1] [--cores 2] [--snakefile Snakefile] [--keep DIR]

Runs the real pipeline (``snakemake --cores N``) on the first ``--limit`` cases of a synthetic
set in a fresh working directory and prints one table: jobs, the pipeline's wall time, the
solve time inside the jobs (warm-up + timed runs, from each job's log) and the overhead per
job, both as the median over jobs (job wall time from Snakemake's ``benchmark:`` file minus
that job's solve time) and as the whole run's wall time not spent solving, per job.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
WARMUP = re.compile(r"warm-up \(with traceback\): ([0-9.]+) s")


def solve_seconds(record: Path, log: Path) -> float:
    """Warm-up plus timed runs of one case × solver job (0 for an n/a record)."""
    rec = json.loads(record.read_text())
    if not rec.get("available", True):
        return 0.0
    warm = WARMUP.search(log.read_text())
    return (float(warm.group(1)) if warm else 0.0) + sum(rec["seconds_runs"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default="paper", choices=["tiny", "paper", "il1rapl1"])
    ap.add_argument("--limit", type=int, default=40, help="first N cases of the set (0 = all)")
    ap.add_argument("--solvers", default="sequential,multicore", help="auto, or a comma-separated list")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--snakefile", default=str(REPO / "Snakefile"))
    ap.add_argument("--keep", help="working directory to use and keep (default: a temporary one)")
    args = ap.parse_args()

    work = Path(args.keep or tempfile.mkdtemp(prefix="fanout-"))
    work.mkdir(parents=True, exist_ok=True)
    snakefile = Path(args.snakefile).resolve()
    cfg = yaml.safe_load((snakefile.parent / "config" / "config.yaml").read_text())
    cfg["workloads"] = ["spliced"]
    cfg["spliced"].update(dataset="synthetic", synthetic={"set": args.set, "seed": None}, repeats=args.repeats,
                          solvers="auto" if args.solvers == "auto" else args.solvers.split(","),
                          cases={"include": [], "max_cells": None, "limit": args.limit or None})
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    cmd = ["snakemake", "-s", str(snakefile), "--directory", str(work), "--configfile",
           str(work / "config.yaml"), "--workflow-profile", str(snakefile.parent / "profiles" / "default"),
           "--cores", str(args.cores)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"snakemake failed ({proc.returncode}):\n{proc.stderr[-4000:]}")

    # results/<dataset>/ (older layout) or results/spliced/<dataset>/
    root = next(p.parents[2] for p in (work / "results").rglob("cases/*/*.json"))
    per_job, solve_total = [], 0.0
    for record in sorted(root.glob("cases/*/*.json")):
        case, solver = record.parent.name, record.stem
        solve = solve_seconds(record, root / "logs" / "cases" / case / f"{solver}.log")
        solve_total += solve
        bench = root / "benchmarks" / "cases" / case / f"{solver}.tsv"
        job_wall = float(bench.read_text().splitlines()[1].split("\t")[0])
        per_job.append(job_wall - solve)
    batch_solve = 0.0
    for record in root.glob("batch/*.json"):
        rec = json.loads(record.read_text())
        batch_solve += sum(rec.get("seconds_runs", []))
    jobs = len(per_job)
    print(f"# {args.set} x{args.limit or 'all'}, solvers {args.solvers}, repeats {args.repeats}, "
          f"--cores {args.cores}, {snakefile}")
    print(f"{'jobs':>5} {'wall_s':>8} {'solve_s':>8} {'batch_s':>8} {'median_overhead_s':>18} "
          f"{'wall_overhead_per_job_s':>24}")
    print(f"{jobs:>5} {wall:>8.1f} {solve_total:>8.1f} {batch_solve:>8.1f} {statistics.median(per_job):>18.3f} "
          f"{(wall - solve_total - batch_solve) / jobs:>24.3f}")
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
