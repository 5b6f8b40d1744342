"""The commands the README and the docs show, run as written where CI can run them (no GPU,
no network, no licensed GENSCAN, no benchmarks): the README's example and its printed
output, every `--config` example (each plans, or stops in one line naming what the user must
supply), the layering check. Other commands have their own tests: the rerun-by-path command
(test_spliced_cli), the main command and the report (test_pipeline_matrix), the SLURM
profile (test_pipeline_slurm), the standalone runner (test_pipeline)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from snakemake_runs import SNAKEMAKE, snakemake

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


def test_readme_example_prints_what_the_readme_shows():
    block = re.search(r"```\n\$ cd resources/bundled\n\$ (splicedalign align .*?)\n(score\t.*?)```", README, re.S)
    assert block, "README example not found"
    command, shown = block.group(1), block.group(2)
    argv = shlex.split(command.replace("\\\n", " ").split("|")[0])
    assert argv[0] == "splicedalign" and "cut -f3-10" in command
    r = subprocess.run([shutil.which("splicedalign") or "splicedalign", *argv[1:]], capture_output=True,
                       text=True, cwd=REPO / "resources" / "bundled")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    cut = ["\t".join(line.split("\t")[2:10]) for line in r.stdout.splitlines()]
    assert cut == shown.strip().splitlines()


def test_readme_python_api_example_runs(monkeypatch, capsys):
    """The README's Python API example, run as written in resources/bundled: the loaded cases (a
    CaseSet) solved, one line per case naming it, its strand and score."""
    block = re.search(r"## Python API\n\n```python\n(.*?)```", README, re.S)
    assert block, "README's Python API example not found"
    monkeypatch.chdir(REPO / "resources" / "bundled")
    exec(compile(block.group(1), "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(re.match(r"hs_FAU~\S+ [+-] -?\d+ \[Exon\(", line) for line in lines), lines


def _config_examples() -> list[list[str]]:
    """Every `--config` example of README's pipeline section and config/README.md, as
    argument lists (README's sw line names a second data set by its bare name: `scaleup`)."""
    section = README.split("## Benchmark pipeline")[1].split("\n## ")[0]
    texts = re.findall(r"`(--config [^`]+|\w+='\{[^`]+\}')`", section)
    texts += re.findall(r"`snakemake --cores all (--config [^`]+)`", (REPO / "config" / "README.md").read_text())
    examples = []
    for text in texts:
        words = shlex.split(text)
        examples.append(words[1:] if words[0] == "--config" else words)
    if "`scaleup`" in section:
        examples.append(["sw={dataset: scaleup}"])
    return examples


# what a user must supply for an example to go beyond planning: one line saying so
NEEDS_USER_FILES = ("the NCBI data set needs HomoloGene build 68",
                    "config key spliced.genscan.binary: /path/to/genscan")


@pytest.mark.slow
@pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake not installed (pip install .[pipeline])")
def test_every_config_example_plans_or_names_what_is_missing(tmp_path):
    examples = _config_examples()
    assert len(examples) >= 7, examples

    def plan(i_values):
        i, values = i_values
        workloads = sorted({v.split("=")[0] for v in values} & {"spliced", "primer", "nw", "sw"})
        return values, snakemake("-s", str(REPO / "Snakefile"), "-d", str(tmp_path / str(i)), "--configfile",
                                 str(REPO / "config" / "config.yaml"), "-n", "--config",
                                 f"workloads=[{', '.join(workloads)}]", *values)

    with ThreadPoolExecutor(2) as pool:
        for values, proc in pool.map(plan, enumerate(examples)):
            if proc.returncode == 0:
                assert "This was a dry-run" in proc.stdout, values
                continue
            lines = [x for x in proc.stderr.splitlines() if not x.startswith("Using workflow specific profile")]
            assert proc.returncode == 2 and len(lines) == 1, (values, proc.stderr[-1500:])
            assert any(need in lines[0] for need in NEEDS_USER_FILES), (values, lines)


def test_layering_check_as_documented():
    r = subprocess.run([sys.executable, "scripts/import_cycles.py", "src"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0 and "0 import cycle(s)" in r.stdout, r.stdout + r.stderr
