"""The Snakemake pipeline, run for real on a tiny subset with the CPU solvers (issue 5).

Runs in a temporary working directory (``--directory``), so the repository's results/ stay
untouched. Needs snakemake (the ``pipeline`` extra); about 40 s on 2 cores.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from snakemake_runs import SNAKEMAKE, snakemake

from splicedalign.report.tables import read_table
from splicedalign.workloads.spliced import estimate as model
from splicedalign.workloads.spliced.datasets import read_manifest
from splicedalign.workloads.spliced.report.names import plot_names

REPO = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake not installed (pip install .[pipeline])")]
yaml = pytest.importorskip("yaml", reason="PyYAML comes with snakemake (pip install .[pipeline])")

SOLVERS = ["reference", "sequential", "multicore"]


def _config(tmp: Path, **over) -> Path:
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    cfg["workloads"] = ["spliced"]
    cfg["spliced"].update(over)  # every key these tests set is spliced's
    path = tmp / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = snakemake("-s", str(REPO / "Snakefile"), "--directory", str(workdir),
                     "--configfile", str(workdir / "config.yaml"), *args, cwd=workdir)
    if check and proc.returncode != 0:
        pytest.fail(f"{' '.join(proc.args)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
    return proc


def test_lint_and_format():
    lint = snakemake("--lint", cwd=REPO)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert "Congratulations" in lint.stdout + lint.stderr
    snakefmt = shutil.which("snakefmt")
    if snakefmt is None:
        pytest.skip("snakefmt not installed")
    fmt = subprocess.run([snakefmt, "--check", "Snakefile", "workflow"], capture_output=True, text=True, cwd=REPO)
    assert fmt.returncode == 0, fmt.stderr


def _job_counts(dry_run_output: str) -> dict[str, int]:
    """{rule: jobs} from the "Job stats" table of ``snakemake -n``."""
    lines = dry_run_output.split("Job stats:")[1].splitlines()
    rows = (line.split() for line in lines[3:])
    counts = {}
    for row in rows:
        if len(row) != 2 or row[0] == "total":
            break
        counts[row[0]] = int(row[1])
    return counts


PLANNING = ["spliced_manifest", "spliced_tables", "spliced_plots", "all"]


@pytest.mark.parametrize("dataset,extra,folder,data_rules", [
    ("bundled", {}, "bundled", []),
    ("synthetic", {"synthetic": {"set": "tiny", "seed": None}}, "synthetic-tiny", ["spliced_synthetic"]),
    ("synthetic", {"synthetic": {"set": "paper", "seed": 3}}, "synthetic-paper-seed3", ["spliced_synthetic"]),
    ("synthetic", {"synthetic": {"set": "il1rapl1", "seed": None}}, "synthetic-il1rapl1", ["spliced_synthetic"]),
    ("ncbi", {"ncbi": {"genes": ["IL10"], "homologene": str(REPO / "tests/data/eutils/homologene.data"),
                       "base_url": "http://127.0.0.1:9/", "flank": 1000, "max_targets": 5}},
     "ncbi-IL10", ["spliced_ncbi"]),
])
def test_dry_run(tmp_path, dataset, extra, folder, data_rules):
    """Before the checkpoint the plan is the data set's preparation, the manifest checkpoint
    and the aggregation, all under results/spliced/<the data set's name>/."""
    _config(tmp_path, dataset=dataset, **extra)
    out = _snakemake(tmp_path, "-n").stdout
    assert _job_counts(out) == dict.fromkeys([*data_rules, *PLANNING], 1)
    assert f"results/spliced/{folder}/cases.tsv" in out
    assert "results/spliced/" in out and all(
        p.startswith(f"results/spliced/{folder}/") for p in re.findall(r"results/spliced/[^\s,]+", out))


def test_planning_neither_compiles_nor_solves(tmp_path):
    """`snakemake -n` must not touch the solvers: with numba made unimportable it still plans
    (every workload's rule file is read; the CPU kernels need numba, the GPU ones CuPy + NVRTC)."""
    fake = tmp_path / "fake" / "numba"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise ImportError("numba imported while planning")\n')
    _config(tmp_path, dataset="synthetic", synthetic={"set": "tiny", "seed": None})
    # (the console script itself: a fresh process's sys.path, where snakemake_runs' forks keep their server's)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake.parent), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([SNAKEMAKE, "-s", str(REPO / "Snakefile"), "--directory", str(tmp_path), "--configfile",
                           str(tmp_path / "config.yaml"), "-n"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert _job_counts(proc.stdout)["spliced_manifest"] == 1


def test_user_manifest_gets_its_own_results_folder(tmp_path):
    """bundled.manifest pointing at another data set must not write into results/spliced/bundled."""
    own = tmp_path / "mydata"
    shutil.copytree(REPO / "resources" / "bundled", own)
    _config(tmp_path, bundled={"manifest": str(own / "cases.tsv")})
    out = _snakemake(tmp_path, "-n").stdout
    assert "results/spliced/bundled/" not in out
    assert re.search(r"results/spliced/manifest-mydata-[0-9a-f]{8}/cases\.tsv", out)


def test_bad_config_names_the_key(tmp_path):
    _config(tmp_path, repeats=0)
    proc = _snakemake(tmp_path, "-n", check=False)
    assert proc.returncode != 0
    assert "repeats" in proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """One real run: 3 tiny synthetic cases, three CPU solvers, one timed repeat."""
    tmp = tmp_path_factory.mktemp("pipeline")
    _config(tmp, dataset="synthetic", synthetic={"set": "tiny", "seed": None}, solvers=SOLVERS, repeats=1,
            cases={"include": [], "max_cells": None, "limit": 3})
    _snakemake(tmp, "--cores", "2")
    return tmp / "results" / "spliced" / "synthetic-tiny"


def test_full_plan_fans_out_per_case_and_solver(run):
    """After the checkpoint: one job per case x solver and one batch per solver."""
    counts = _job_counts(_snakemake(run.parents[2], "-n", "--forcerun", "spliced_case", "spliced_batch").stdout)
    assert counts == {"spliced_case": 3 * len(SOLVERS), "spliced_batch": len(SOLVERS),
                      **dict.fromkeys(PLANNING[1:], 1)}


def test_tables_agree_with_the_model(run):
    cases = {e.case: e.load() for e in read_manifest(run / "cases.tsv")}
    assert len(cases) == 3
    table = read_table(run / "tables" / "cases.tsv").set_index("case")
    assert set(table.index) == set(cases)
    for name, c in cases.items():
        row = table.loc[name]
        f, l = c.first_sorted, c.last_sorted
        assert row.cells == c.n * int((l - f + 1).sum())
        assert (row.est_seq, row.est_intra, row.est_intra_inter) == (
            model.est_seq(c.n, f, l), model.est_intra(c.n, f, l), model.est_intra_inter(c.n, f, l))
        scores = {row[f"{s}_score"] for s in SOLVERS}
        assert len(scores) == 1, f"{name}: solvers disagree {scores}"
        for s in SOLVERS:
            rec = json.loads((run / "cases" / name / f"{s}.json").read_text())
            assert rec["score"] == row[f"{s}_score"] and rec["cells"] == row.cells
            assert rec["seconds"] == pytest.approx(np.median(rec["seconds_runs"]))
            assert row[f"{s}_mcups"] == pytest.approx(row.cells / row[f"{s}_seconds"] / 1e6, rel=1e-4)
    summary = read_table(run / "tables" / "summary.tsv").set_index("solver")
    assert list(summary.index) == SOLVERS
    assert (summary.status == "ok").all() and (summary.cases == 3).all() and (summary.batch_cases == 3).all()
    assert summary.loc["sequential", "avg_speedup"] == pytest.approx(1.0)
    acc = read_table(run / "tables" / "estimation_accuracy.tsv")
    assert len(acc) == 3 * len(SOLVERS) and acc.spearman.between(-1, 1).all()
    par = read_table(run / "tables" / "parallelism.tsv")
    assert abs(par.groupby("kind").percent.sum() - 100).max() < 1e-3
    gene = read_table(run / "tables" / "accuracy.tsv")
    assert set(gene[gene.scope == "dataset"].solver) == set(SOLVERS)  # synthetic cases carry true exons


def test_plots_are_valid_images(run):
    import matplotlib.image

    for name in plot_names(SOLVERS):
        png = run / "plots" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert matplotlib.image.imread(png).shape[0] > 100
        assert ET.parse(run / "plots" / f"{name}.svg").getroot().tag.endswith("svg")


def test_every_rule_logs(run):
    logs = run / "logs"
    assert (logs / "manifest.log").stat().st_size > 0
    assert all((logs / "batch" / f"{s}.log").stat().st_size > 0 for s in SOLVERS)
    one = next((run / "cases").iterdir()).name
    text = (logs / "cases" / one / "sequential.log").read_text()
    assert "warm-up" in text and "run 1/1" in text
    # jobs run one after another in one solver process: each log holds its own job's messages
    assert text.count(" / ") == 1 and f"{one} / sequential" in text
    pids = {re.search(r" pid (\d+) ", p.read_text()).group(1) for p in (logs / "cases").glob("*/*.log")}
    assert len(pids) == 1, f"timing jobs ran in {len(pids)} processes, not in one reused solver process"
    assert (run / "benchmarks" / "cases" / one / "sequential.tsv").exists()
    assert (logs / "tables.log").exists() and (logs / "plots.log").exists()


def test_single_case_reruns_by_path(run):
    target = next((run / "cases").iterdir()) / "multicore.json"
    target.unlink()
    proc = _snakemake(run.parents[2], "--cores", "1", str(target.relative_to(run.parents[2])))
    assert target.exists()
    out = proc.stdout + proc.stderr
    assert "rule spliced_case:" in out and "spliced_batch" not in out


def test_score_disagreement_fails_naming_the_case(run):
    # runs last: it leaves the results inconsistent
    target = next((run / "cases").iterdir()) / "sequential.json"
    rec = json.loads(target.read_text())
    rec["score"] += 1
    target.write_text(json.dumps(rec))
    proc = _snakemake(run.parents[2], "--cores", "1", "--forcerun", "spliced_tables", check=False)
    assert proc.returncode != 0
    assert f"{rec['case']}: " in proc.stdout + proc.stderr and "disagree" in proc.stdout + proc.stderr


def test_standalone_runner(tmp_path):
    """What the GPU machine runs without Snakemake: same records and tables."""
    data = tmp_path / "data"
    subprocess.run([sys.executable, "-m", "splicedalign.cli", "synthetic", "tiny", str(data)], check=True,
                   capture_output=True)
    out = tmp_path / "r"
    for args in (["solve", "--manifest", str(data / "cases.tsv"), "--solvers", "sequential,multicore",
                  "--repeats", "1", "--limit", "2"], ["report"]):
        subprocess.run([sys.executable, "-m", "splicedalign.workloads.spliced.pipeline", *args, "--out", str(out)],
                       check=True, capture_output=True)
    summary = read_table(out / "tables" / "summary.tsv").set_index("solver")
    assert list(summary.index) == ["sequential", "multicore"] and (summary.cases == 2).all()
    assert (out / "plots" / "fig15_scalability.png").exists()
