"""Users' mistakes through the installed console script: each gives exit status 2 and one
line naming the file, the place and the problem (no traceback), before any solving; a few
habits (global -q after the command, unknown solver) and warnings too.

The scenarios run concurrently (the script's start-up is most of each one's time); the few
that solve use the NumPy reference solver, which needs no numba start-up.
"""

from __future__ import annotations

import os
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import console
from snakemake_runs import SNAKEMAKE, snakemake

from splicedalign.workloads.spliced.datasets import bundled_manifest

BUNDLED = bundled_manifest().parent
FAU = ["--base", str(BUNDLED / "bases/hs_FAU.fa"), "--exons", str(BUNDLED / "exons/hs_FAU.tsv"),
       "--target", str(BUNDLED / "targets/hs_X65923.1.fa")]
MANIFEST_HEADER = "case\tbase\ttarget\texons\texon_format\ttrue_exons\n"
FAU_ROW = "bases/hs_FAU.fa\ttargets/hs_X65923.1.fa\texons/hs_FAU.tsv\ttsv\t\n"


def _files(tmp: Path) -> dict[str, list[str]]:
    """Scenario name -> argv; writes the files the scenarios need."""
    (tmp / "digits.fa").write_text(">t digits\nACGT\nACGT\nACGT\nAC5T\n")  # bad letter on line 5
    (tmp / "protein.fa").write_text(">p\nMKVRSWHDBN\n")
    (tmp / "huge.tsv").write_text("first\tlast\tnote\n10\t20\t" + "x" * 200_000 + "\n")
    (tmp / "huge_first.tsv").write_text("first\tlast\n" + "1" * 200_000 + "x\t20\n")
    (tmp / "existing").write_text("a file\n")
    (tmp / "ds").mkdir()
    (tmp / "ds" / "cases.tsv").write_text("already here\n")
    for sub in ("bases", "targets", "exons"):
        (tmp / sub).symlink_to(BUNDLED / sub)
    (tmp / "missing.tsv").write_text(MANIFEST_HEADER + "ok\t" + FAU_ROW
                                     + "gone\tbases/hs_FAU.fa\ttargets/nope.fa\texons/hs_FAU.tsv\ttsv\t\n")
    (tmp / "slash.tsv").write_text(MANIFEST_HEADER + "a/b\t" + FAU_ROW)
    (tmp / "readonly").mkdir()
    (tmp / "readonly").chmod(stat.S_IRUSR | stat.S_IXUSR)
    return {
        "fasta letter line": ["align", *FAU[:4], "--target", str(tmp / "digits.fa")],
        "protein target": ["align", *FAU[:4], "--target", str(tmp / "protein.fa"), "--score-only",
                           "--solver", "reference"],
        "huge tsv field": ["-q", "align", *FAU[:2], "--exons", str(tmp / "huge.tsv"), *FAU[4:], "--score-only",
                           "--solver", "reference"],
        "huge bad field": ["align", *FAU[:2], "--exons", str(tmp / "huge_first.tsv"), *FAU[4:]],
        "output folder missing": ["align", *FAU, "-o", "/nonexistent/dir/x.json"],
        "synthetic onto file": ["synthetic", "tiny", str(tmp / "existing")],
        "synthetic unwritable": ["synthetic", "tiny", str(tmp / "existing" / "sub")],
        "synthetic existing set": ["synthetic", "tiny", str(tmp / "ds")],
        "synthetic negative seed": ["synthetic", "tiny", str(tmp / "new"), "--seed", "-5"],
        "manifest missing file": ["align", "--manifest", str(tmp / "missing.tsv")],
        "manifest case id slash": ["align", "--manifest", str(tmp / "slash.tsv")],
        "manifest and files": ["align", "--manifest", str(tmp / "missing.tsv"), *FAU[:2]],
        "unknown solver": ["align", *FAU, "--solver", "nope", "-q"],
        "quiet after command": ["align", *FAU, "-q", "--score-only", "--solver", "reference"],
    }


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("errors")
    scenarios = _files(tmp)
    with ThreadPoolExecutor(max_workers=4) as pool:
        procs = dict(zip(scenarios, pool.map(lambda argv: console(*argv), scenarios.values())))
    return tmp, procs


def one_line(proc) -> str:
    """The single error line of a bad-input run (exit 2, nothing on stdout, no traceback)."""
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("splicedalign: error: ")
    return lines[0].removeprefix("splicedalign: error: ")


def test_fasta_letter_error_names_its_line(ran):
    tmp, procs = ran
    assert one_line(procs["fasta letter line"]) == (
        f"{tmp / 'digits.fa'}:line 5: non-nucleotide letter '5' at position 15 of record 't'"
        " (1 such letter(s); IUPAC codes are accepted)")


def test_protein_looking_nucleotides_warn(ran):
    tmp, procs = ran
    proc = procs["protein target"]
    assert proc.returncode == 0, proc.stderr
    assert f"{tmp / 'protein.fa'}:line 1: record 'p' is 90% IUPAC ambiguity codes (a protein?)" in proc.stderr


def test_tsv_field_over_csv_limit(ran):
    proc = ran[1]["huge tsv field"]
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr  # a long attribute is just kept
    problem = one_line(ran[1]["huge bad field"])
    assert problem.endswith("huge_first.tsv:line 2: first must be an integer, got "
                            "'1111111111111111111111111111111111111111'... (200,001 characters)")


def test_output_path_checked_before_solving(ran):
    # no -q: had it solved first, the progress lines would be on stderr too
    assert one_line(ran[1]["output folder missing"]) == (
        "/nonexistent/dir/x.json: cannot write output: folder /nonexistent/dir does not exist")


def test_synthetic_output_and_seed(ran):
    tmp, procs = ran
    assert one_line(procs["synthetic onto file"]) == (
        f"{tmp / 'existing'}: exists and is not a folder; give a folder to write the data set into")
    assert one_line(procs["synthetic unwritable"]).startswith(
        f"{tmp / 'existing' / 'sub'}: cannot write the data set: Not a directory")
    assert one_line(procs["synthetic existing set"]) == (
        f"{tmp / 'ds'}: already holds a data set (cases.tsv); choose another folder or add --force")
    assert one_line(procs["synthetic negative seed"]) == "--seed: must be >= 0, got -5"
    assert not (tmp / "new").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_synthetic_read_only_folder(ran):
    tmp, _ = ran
    assert one_line(console("synthetic", "tiny", str(tmp / "readonly" / "x"))).startswith(
        f"{tmp / 'readonly' / 'x'}: cannot write the data set: Permission denied")


def test_manifest_rows_checked(ran):
    tmp, procs = ran
    assert one_line(procs["manifest missing file"]) == (
        f"{tmp / 'missing.tsv'}:line 3: case gone: target file targets/nope.fa not found"
        f" (looked for {tmp / 'targets' / 'nope.fa'})")
    assert one_line(procs["manifest case id slash"]) == (
        f"{tmp / 'slash.tsv'}:line 2: case id 'a/b' cannot be a file name: no '/', '\\' or white space,"
        " and not '.' or '..'")
    assert one_line(procs["manifest and files"]) == (
        "align: give --manifest or --base, --exons, --target, not both (--base given)")


def test_cli_habits(ran):
    procs = ran[1]
    problem = one_line(procs["unknown solver"])
    assert "unknown spliced solver 'nope'" in problem and "sequential" in problem and "gpu" in problem
    quiet = procs["quiet after command"]
    assert quiet.returncode == 0 and quiet.stderr == "" and '"score"' in quiet.stdout


@pytest.mark.slow
@pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake not installed (pip install .[pipeline])")
def test_pipeline_manifest_row_with_missing_file(tmp_path):
    """Planning names the config key, the row and the file in one line (exit 2), no traceback,
    before any job runs."""
    repo = BUNDLED.parents[1]
    (tmp_path / "bad.tsv").write_text(MANIFEST_HEADER + f"fau\t{BUNDLED}/bases/hs_FAU.fa\t{BUNDLED}/targets/nope.fa"
                                      f"\t{BUNDLED}/exons/hs_FAU.tsv\ttsv\t\n")
    (tmp_path / "over.yaml").write_text(f"workloads: [spliced]\nspliced:\n  bundled:\n"
                                        f"    manifest: {tmp_path / 'bad.tsv'}\n")
    proc = snakemake("-s", str(repo / "Snakefile"), "-d", str(tmp_path), "--cores", "1", "--configfile",
                     str(repo / "config" / "config.yaml"), str(tmp_path / "over.yaml"))
    assert proc.returncode == 2 and "Traceback" not in proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        f"splicedalign: config key spliced.bundled.manifest: {tmp_path / 'bad.tsv'}:line 2: case fau: target file "
        f"{BUNDLED}/targets/nope.fa not found (looked for {BUNDLED}/targets/nope.fa)")
    assert not (tmp_path / "results").exists()
