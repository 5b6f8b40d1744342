"""One pipeline run's account for scripts/device_pipeline.sh: jobs per rule and solver and how
many declared gpu=1 (read from Snakemake's log), the score agreement across solvers
(tables/cases.tsv), and summary.tsv with the device of each solver; copies summary.tsv to
OUTDIR/summary-NAME.tsv and writes the closing lines to OUTDIR/closing-NAME.txt.

Usage: python3 scripts/device_pipeline_summary.py NAME SNAKEMAKE_LOG WALL_S RC OUTDIR
"""

from __future__ import annotations

import re
import shutil
import sys
from collections import Counter
from pathlib import Path

import pandas as pd

from splicedalign.report.tables import read_table
from splicedalign.workloads.spliced.bench import gpu_solvers

SUMMARY_COLUMNS = ["solver", "device", "status", "cases", "avg_mcups", "max_mcups", "avg_speedup",
                   "total_seconds", "batch_cases", "batch_seconds", "batch_mcups", "median_spread",
                   "unreliable"]


def job_blocks(log: str) -> list[dict[str, str]]:
    """Snakemake's job announcements: rule, jobid, wildcards and resources of each job started."""
    jobs = []
    for block in re.split(r"\n\s*\n", log):
        rule = re.search(r"^(?:local)?(?:rule|checkpoint) (\w+):", block, re.M)
        jobid = re.search(r"^\s+jobid: (\d+)$", block, re.M)
        if rule is None or jobid is None:
            continue
        wildcards = re.search(r"^\s+wildcards: (.*)$", block, re.M)
        resources = re.search(r"^\s+resources: (.*)$", block, re.M)
        solver = re.search(r"solver=([\w-]+)", wildcards.group(1)) if wildcards else None
        jobs.append({"rule": rule.group(1), "jobid": jobid.group(1), "solver": solver.group(1) if solver else "",
                     "gpu": bool(resources and re.search(r"\bgpu=1\b", resources.group(1)))})
    return jobs


def most_at_once(log: str, jobs: list[dict[str, str]]) -> int:
    """The most gpu=1 jobs running at the same time, from the order of Snakemake's job
    announcements and its 'Finished jobid: N' lines."""
    gpu_ids = {j["jobid"] for j in jobs if j["gpu"]}
    running: set[str] = set()
    most = 0
    for m in re.finditer(r"^\s+jobid: (\d+)$|^Finished jobid: (\d+)", log, re.M):
        if m.group(1) in gpu_ids:
            running.add(m.group(1))
            most = max(most, len(running))
        elif m.group(2):
            running.discard(m.group(2))
    return most


def main(name: str, log_path: str, wall: str, rc: str, outdir: str) -> None:
    log = Path(log_path).read_text(errors="replace")
    jobs = job_blocks(log)
    gpu_names = set(gpu_solvers())
    count = Counter((j["rule"], j["solver"]) for j in jobs)
    declared = Counter((j["rule"], j["solver"]) for j in jobs if j["gpu"])
    wrong = [f"{r}/{s}" for (r, s), n in count.items() if (declared[(r, s)] == n) != (s in gpu_names)]
    print(f"== {name}: exit {rc}, wall {wall} s, {len(jobs)} jobs started")
    for (rule, solver), n in sorted(count.items()):
        print(f"   {rule:18s} {solver or '-':11s} jobs {n:5d}  gpu=1 declared {declared[(rule, solver)]:5d}")
    gpu_jobs = sum(n for (r, s), n in count.items() if s in gpu_names)
    gpu_line = (f"gpu=1 on {sum(declared.values())} of {len(jobs)} jobs: every one of the {gpu_jobs} GPU-solver jobs"
                " and no other" if not wrong else f"gpu=1 NOT as expected for: {', '.join(wrong)}")
    gpu_line += f"; at most {most_at_once(log, jobs)} gpu=1 job(s) running at once"
    print("  ", gpu_line)

    found = re.findall(r"(results/spliced/[^/\s,]+)/tables/summary\.tsv", log)
    root = Path(found[-1]) if found else None
    closing = [f"{name}: exit {rc}, wall {wall} s, {len(jobs)} jobs; {gpu_line}"]
    if root is None or not (root / "tables" / "summary.tsv").exists():
        closing.append(f"{name}: no summary.tsv (see snakemake-{name}.log)")
    else:
        cases = read_table(root / "tables" / "cases.tsv")
        scores = cases[[c for c in cases.columns if c.endswith("_score") and not c.endswith("seconds_score")]]
        agree = int((scores.nunique(axis=1, dropna=True) <= 1).sum())
        solved = scores.notna().sum().to_dict()
        summary = read_table(root / "tables" / "summary.tsv")
        shutil.copy(root / "tables" / "summary.tsv", Path(outdir) / f"summary-{name}.tsv")
        closing.append(f"{name}: {root}, {len(cases)} cases, scores identical across solvers on {agree} of "
                       f"{len(cases)} cases (solved per solver: "
                       + ", ".join(f"{k.removesuffix('_score')} {v}" for k, v in solved.items()) + ")")
        with pd.option_context("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 40):
            closing.append(summary[[c for c in SUMMARY_COLUMNS if c in summary]].to_string(index=False))
    print("\n".join(closing[1:]))
    Path(outdir, f"closing-{name}.txt").write_text("\n".join(closing) + "\n\n")


if __name__ == "__main__":
    main(*sys.argv[1:6])
