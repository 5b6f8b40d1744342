"""The command line's table of each workload's commands (workloads.COMMANDS), by which a fresh
process imports only the cli of the workload whose command it runs."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

from splicedalign.cli import _common, parser
from splicedalign.workloads import COMMANDS, WORKLOADS


def test_commands_table_is_what_each_workload_adds():
    assert set(COMMANDS) == set(WORKLOADS)
    for workload in WORKLOADS:
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"splicedalign.workloads.{workload}.cli").add_commands(sub, _common())
        assert tuple(sub.choices) == COMMANDS[workload], workload
    every = parser().parse_args(["nw", "--seq1", "a.fa", "--seq2", "b.fa"])
    assert every.command == "nw"
    for commands in COMMANDS.values():
        for command in commands:
            choices = parser(command)._subparsers._group_actions[0].choices  # type: ignore[union-attr]
            assert set(choices) == set(commands), command


def test_nw_command_imports_neither_other_workloads_nor_numba():
    """`nw` parses with its own cli only; numba is imported by the command (core.jit.start), not
    by the parsing."""
    code = ("import sys; from splicedalign.cli import parser; parser('nw'); "
            "print(sorted(m for m in sys.modules if m.startswith('splicedalign.workloads.') and "
            "m.split('.')[2] != 'nw'), 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "False"], out
