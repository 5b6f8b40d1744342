"""The pipeline's GPU jobs on a multi-GPU node, planned without a GPU (`snakemake -n`): a GPU
solver's job declares gpu=1 and one bench unit, a CPU solver's timing job every bench unit, so
`--resources gpu=N bench=N` runs N GPU jobs at once and a CPU timing job alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from snakemake_runs import SNAKEMAKE, snakemake

REPO = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake not installed (pip install .[pipeline])")]


def planned(tmp_path: Path, *args: str) -> list[tuple[str, str, dict[str, int]]]:
    """(rule, solver, resources) of every job of ``snakemake -n ARGS`` (nw on its bundled pairs)."""
    proc = snakemake("-s", str(REPO / "Snakefile"), "--directory", str(tmp_path), "-n",
                     "--configfile", str(REPO / "config" / "config.yaml"),
                     "--config", "workloads=[nw]", "nw={solvers: [sequential, gpu]}", *args, cwd=REPO)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    jobs = []
    for block in proc.stdout.split("\nrule ")[1:]:
        solver = re.search(r"solver=(\w[\w-]*)", block)
        resources = re.search(r"resources: (.*)", block)
        res = dict(kv.split("=") for kv in resources.group(1).split(", ")) if resources else {}
        jobs.append((block.split(":")[0], solver.group(1) if solver else "",
                     {k: int(v) for k, v in res.items() if v.isdigit()}))
    return jobs


def test_gpu_jobs_take_one_bench_unit_and_cpu_timing_jobs_all(tmp_path):
    jobs = [j for j in planned(tmp_path, "--resources", "gpu=3", "bench=3") if j[0] == "nw_solve"]
    assert {s for _, s, _ in jobs} == {"sequential", "gpu"}
    for _, solver, res in jobs:
        assert (res["gpu"], res["bench"]) == ((1, 1) if solver == "gpu" else (0, 3)), (solver, res)


def test_with_one_bench_unit_every_timing_job_takes_one(tmp_path):  # the default profile: bench=1
    jobs = [j for j in planned(tmp_path) if j[0] == "nw_solve"]
    assert jobs and all(res["bench"] == 1 for _, _, res in jobs)
