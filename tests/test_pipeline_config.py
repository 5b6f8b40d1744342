"""The pipeline's configuration as a user meets it: nested ``--config`` values with numbers
(Snakemake hands them over as strings) are read as the schema's types, and every bad
configuration or planning input stops before any job with one line naming the key or file
(exit 2): no traceback, no schema dump, old top-level spliced keys named with their new place."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from snakemake_runs import SNAKEMAKE, snakemake

from splicedalign.core.pipeline_config import ConfigError, check, coerce

REPO = Path(__file__).resolve().parents[1]
yaml = pytest.importorskip("yaml", reason="PyYAML comes with snakemake (pip install .[pipeline])")
SCHEMA = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())


def _default() -> dict:
    return yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def test_command_line_strings_are_read_as_the_schema_types():
    config = _default()
    config["primer"].update(dataset="synthetic", synthetic={"shapes": ["table1"], "scale": "16", "seed": "1"})
    config["nw"]["costs"] = {"match": "0", "mismatch": "-1", "indel": "+3"}
    config["nw"]["traceback"] = "false"
    config["spliced"]["synthetic"] = {"set": "tiny", "seed": "null"}
    config["spliced"]["cases"] = {"include": ["7"], "max_cells": "~", "limit": "2"}
    out = check(config, SCHEMA)
    assert out["primer"]["synthetic"] == {"shapes": ["table1"], "scale": 16, "seed": 1}
    assert out["nw"]["costs"] == {"match": 0, "mismatch": -1, "indel": 3} and out["nw"]["traceback"] is False
    assert out["spliced"]["synthetic"]["seed"] is None
    # a string where the schema wants a string stays one (a case id that looks like a number)
    assert out["spliced"]["cases"] == {"include": ["7"], "max_cells": None, "limit": 2}
    assert coerce("auto", SCHEMA["properties"]["sw"]["properties"]["solvers"]) == "auto"


def test_schema_defaults_fill_keys_a_config_lacks():
    config = _default()
    del config["spliced"]["scoring"]["target_ends"]
    assert check(config, SCHEMA)["spliced"]["scoring"]["target_ends"] == "global"


@pytest.mark.parametrize("change, line", [
    (lambda c: c["nw"]["costs"].update(match="x"), "config key nw.costs.match: 'x' is not of type integer"),
    (lambda c: c["spliced"].update(repeats="0"),
     "config key spliced.repeats: 0: minimum 1 (timed runs after one warm-up; the median is reported)"),
    (lambda c: c["sw"].update(solvers=["sequential", "nope"]),
     "config key sw.solvers[1]: 'nope' is not one of reference, sequential, multicore, sw-scan, gpu, pyopal, "
     "parasail"),
    (lambda c: c["spliced"].update(dataset="synthetic", candidate=1),
     "config key spliced: Additional properties are not allowed ('candidate' was unexpected)"),
    (lambda c: c.update(dataset="synthetic"),
     "config key 'dataset' moved into the section 'spliced' (spliced.dataset): write 'spliced: {dataset: ...}' "
     "in the config file or --config spliced='{dataset: ...}'"),
])
def test_a_bad_value_is_one_line_naming_its_key(change, line):
    config = _default()
    change(config)
    with pytest.raises(ConfigError) as err:
        check(config, SCHEMA)
    assert str(err.value) == line


def _snakemake(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    if SNAKEMAKE is None:
        pytest.skip("snakemake not installed (pip install .[pipeline])")
    return snakemake("-s", str(REPO / "Snakefile"), "-d", str(tmp), "--configfile",
                     str(REPO / "config" / "config.yaml"), "-n", *args)


@pytest.mark.slow
@pytest.mark.parametrize("config, jobs", [
    # the README's examples, as written there
    (["primer={dataset: synthetic, synthetic: {shapes: [table1], scale: 16}}"], "primer_synthetic"),
    (["nw={costs: {match: 0}}"], "nw_solve"),
])
def test_readme_nested_config_values_are_accepted(tmp_path, config, jobs):
    workload = config[0].split("=")[0]
    proc = _snakemake(tmp_path, "--config", f"workloads=[{workload}]", *config)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert jobs in proc.stdout and "This was a dry-run" in proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("config, line", [
    (["dataset=synthetic"], "splicedalign: config key 'dataset' moved into the section 'spliced' (spliced.dataset)"),
    (["spliced={repeats: many}"], "splicedalign: config key spliced.repeats: 'many' is not of type integer"),
    # the README's GENSCAN example without GENSCAN, on the default (bundled) data set
    (["spliced={candidate_exons: genscan}"],
     "splicedalign: config key spliced.candidate_exons: genscan needs GENSCAN (spliced.genscan.binary and "
     ".parameters: the user's own licensed copy) or GENSCAN reports shipped with the data set (manifest column "
     "'genscan'); none for hs_MYBPHL-mm_NM_026831.1"),
    (["spliced={cases: {include: [hs_FAU-hs_X65923.1, nope]}}"],
     "splicedalign: config key spliced.cases.include: nope: not a case of"),
])
def test_planning_stops_in_one_line_naming_the_key(tmp_path, config, line):
    proc = _snakemake(tmp_path, "--config", "workloads=[spliced]", *config)
    assert proc.returncode == 2
    errors = [x for x in proc.stderr.splitlines() if not x.startswith("Using workflow specific profile")]
    assert len(errors) == 1 and errors[0].startswith(line), proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr and "$schema" not in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists()
