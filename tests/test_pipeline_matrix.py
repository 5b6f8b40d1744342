"""The `.test/` config matrix (snakemake-workflows style): one small config per workload and
data-set kind, each added to config/config.yaml with a second --configfile. Every one plans
(`snakemake -n`), and `.test/all-bundled` (every workload on its bundled data, narrowed) runs
for real: the README's main command, its closing message and its report command."""

from __future__ import annotations

import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from snakemake_runs import SNAKEMAKE, snakemake

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake not installed (pip install .[pipeline])")
yaml = pytest.importorskip("yaml", reason="PyYAML comes with snakemake (pip install .[pipeline])")
MATRIX = sorted((REPO / ".test").glob("*/config.yaml"))


def _snakemake(workdir: Path, config: Path, *args: str) -> subprocess.CompletedProcess:
    return snakemake("-s", str(REPO / "Snakefile"), "-d", str(workdir), "--configfile",
                     str(REPO / "config" / "config.yaml"), str(config), *args, cwd=REPO)


def test_every_workload_and_data_set_kind_has_a_config():
    """The kinds come from the schema, so a new data-set kind without a .test config fails here."""
    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    kinds = {(w, k) for w in ("spliced", "primer", "nw", "sw")
             for k in schema["properties"][w]["properties"]["dataset"]["enum"]}
    have = set()
    for path in MATRIX:
        config = yaml.safe_load(path.read_text())
        for w in ("spliced", "primer", "nw", "sw"):
            if w in config["workloads"] or config["workloads"] == "all":
                have.add((w, config.get(w, {}).get("dataset", "bundled")))
    assert kinds <= have, f"no .test config for {sorted(kinds - have)}"
    assert {p.parent.name for p in MATRIX} >= {"peers-bundled", "spliced-genscan", "all-bundled"}


@pytest.mark.slow
def test_every_config_plans(tmp_path):
    """`snakemake -n` with each config (two at a time): exit 0, and every path it plans lies
    under results/<one of its workloads>/."""
    def plan(config: Path) -> tuple[Path, subprocess.CompletedProcess]:
        return config, _snakemake(tmp_path / config.parent.name, config, "-n")

    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(plan, MATRIX))
    for config, proc in runs:
        name = config.parent.name
        assert proc.returncode == 0, f"{name}:\n{proc.stdout[-1500:]}\n{proc.stderr[-1500:]}"
        assert "This was a dry-run" in proc.stdout, name
        workloads = yaml.safe_load(config.read_text())["workloads"]
        allowed = {"spliced", "primer", "nw", "sw"} if workloads == "all" else set(workloads)
        if "peers" in allowed:  # peers write beside the spliced data set's results
            allowed = allowed - {"peers"} | {"spliced"}
        folders = {m.group(1) for m in re.finditer(r"\bresults/(\w+)/", proc.stdout)}
        assert folders == allowed, (name, folders)


@pytest.mark.slow
def test_main_command_runs_every_workload_and_names_its_results(tmp_path):
    """README: `snakemake --cores all` (here narrowed by .test/all-bundled), then
    `snakemake --report results/report.html`."""
    run = _snakemake(tmp_path, REPO / ".test" / "all-bundled" / "config.yaml", "--cores", "all")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    closing = re.search(r"splicedalign: tables and figures under (.*)", run.stdout + run.stderr)
    assert closing, run.stderr[-2000:]
    folders = closing.group(1).split(", ")
    assert folders == [f"results/{w}/bundled/" for w in ("spliced", "primer", "nw", "sw")]
    assert all((tmp_path / f).is_dir() for f in folders)
    report = _snakemake(tmp_path, REPO / ".test" / "all-bundled" / "config.yaml", "--report",
                        "results/report.html")
    assert report.returncode == 0, report.stderr[-2000:]
    assert (tmp_path / "results" / "report.html").stat().st_size > 10_000
