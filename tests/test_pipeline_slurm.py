"""The pipeline on a real one-node SLURM cluster (scripts/slurm_check.sh): munge, MariaDB +
slurmdbd, slurmctld and slurmd started here, the bundled spliced data set through
profiles/slurm, jobs listed by sacct (GPU solver jobs with gres/gpu=1), results identical to a
local run of the same config. Runs where the SLURM daemons and the executor plugin are
installed (`bash scripts/slurm_check.sh --install` installs them); skips elsewhere, with what is
missing. A few minutes on 2 cores."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DAEMONS = ("munged", "mariadbd", "slurmdbd", "slurmctld", "slurmd", "sbatch", "sacct")


def _missing() -> list[str]:
    missing = [d for d in DAEMONS if shutil.which(d) is None and not Path("/usr/sbin", d).exists()]
    try:
        import snakemake_executor_plugin_slurm  # noqa: F401
    except ImportError:
        missing.append("snakemake-executor-plugin-slurm")
    return missing


@pytest.mark.slow
@pytest.mark.skipif(bool(_missing()), reason=f"no SLURM here: {', '.join(_missing())} not installed "
                                              "(bash scripts/slurm_check.sh --install)")
def test_bundled_set_through_profiles_slurm_matches_a_local_run(tmp_path):
    env = {**os.environ, "WORK": str(tmp_path / "slurm-check"), "PORT_BASE": os.environ.get("PORT_BASE", "16837")}
    proc = subprocess.run(["bash", str(REPO / "scripts" / "slurm_check.sh")], capture_output=True, text=True,
                          env=env, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    jobs = re.search(r"(\d+) SLURM jobs in sacct \((\d+) COMPLETED\), (\d+) with gres/gpu=1", proc.stdout)
    assert jobs, proc.stdout[-2000:]
    total, completed, gpu = map(int, jobs.groups())
    cases = sum(1 for _ in open(REPO / "resources" / "bundled" / "cases.tsv")) - 1
    # one job per case and solver (sequential, gpu), one batch per solver, manifest, tables, plots
    assert total == completed == 2 * cases + 2 + 3
    assert gpu == cases + 1
    assert re.search(r"\d+ records and 2 tables compared: identical", proc.stdout)
    # every daemon the script started is gone
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert str(tmp_path / "slurm-check") not in ps
