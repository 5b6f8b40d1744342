"""What every workload's command shares: unknown solvers are bad input listing the names, the
output path is checked before any solving, output goes to -o, and -q works after the command."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli

from splicedalign.core.errors import EXIT_INPUT
from splicedalign.workloads import WORKLOADS


def _commands(tmp: Path) -> dict[str, list[str]]:
    """One small valid invocation per workload command."""
    (tmp / "base.fa").write_text(">b\nACGTACGTAC\n")
    (tmp / "target.fa").write_text(">t\nACGTAC\n")
    (tmp / "exons.tsv").write_text("first\tlast\n2\t7\n")
    (tmp / "query.fa").write_text(">q\nMKVLAAGW\n")
    (tmp / "db.fa").write_text(">d1\nMKVLSAGW\n>d2\nWWAGM\n")
    return {
        "align": ["align", "--base", str(tmp / "base.fa"), "--exons", str(tmp / "exons.tsv"),
                  "--target", str(tmp / "target.fa")],
        "primer": ["primer", "--alpha", str(tmp / "base.fa"), "--beta", str(tmp / "target.fa"), "-k", "2"],
        "nw": ["nw", "--seq1", str(tmp / "base.fa"), "--seq2", str(tmp / "target.fa")],
        "sw": ["sw", "--query", str(tmp / "query.fa"), "--db", str(tmp / "db.fa")],
    }


COMMANDS = ["align", "primer", "nw", "sw"]


def test_every_workload_has_a_command_here():
    assert set(WORKLOADS) == {"spliced", "primer", "nw", "sw"}


@pytest.mark.parametrize("command", COMMANDS)
def test_output_to_file_and_quiet_after_the_command(command, tmp_path):
    out = tmp_path / "out.json"
    code, stdout, stderr = run_cli(*_commands(tmp_path)[command], "-q", "-o", str(out))
    assert code == 0, stderr
    assert stdout == "" and out.read_text().lstrip().startswith(("{", "["))


@pytest.mark.parametrize("command", COMMANDS)
def test_unwritable_output_is_bad_input_before_solving(command, tmp_path):
    code, stdout, stderr = run_cli(*_commands(tmp_path)[command], "-o", str(tmp_path / "no" / "such" / "x.json"))
    assert code == EXIT_INPUT and stdout == ""
    assert len(stderr.strip().splitlines()) == 1 and "does not exist" in stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_unknown_solver_is_bad_input_listing_the_names(command, tmp_path):
    code, _, stderr = run_cli(*_commands(tmp_path)[command], "--solver", "nope")
    assert code == EXIT_INPUT and "'nope'" in stderr and "sequential" in stderr and "gpu" in stderr
