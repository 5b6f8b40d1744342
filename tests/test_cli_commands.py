"""The command line's table of each workload's commands (workloads.COMMANDS), by which a fresh
process imports only the cli of the workload whose command it runs."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

from splicedalign.cli import _common, parser
from splicedalign.workloads import COMMANDS, WORKLOADS


def choices(command: str | None) -> set[str]:
    """The commands ``parser(command)`` offers."""
    top = parser(command)
    return set(next(a for a in top._actions if isinstance(a, argparse._SubParsersAction)).choices)


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
            assert choices(command) == set(commands), command


def test_a_command_imports_its_own_workload_only():
    every = choices(None)
    assert {"align", "stats", "synthetic", "nw", "sw", "primer"} <= every
    assert choices("align") == {"align", "stats", "synthetic"}
    assert choices("nw") < every and "nw" in choices("nw")
    assert choices("no-such-command") == every  # argparse then lists every choice


def test_nw_command_imports_neither_other_workloads_nor_numba():
    """`nw` parses with its own cli only; numba is imported by the command (core.jit.start), not
    by the parsing."""
    code = ("import sys; from splicedalign.cli import parser; parser('nw'); "
            "print(sorted(m for m in sys.modules if m.startswith('splicedalign.workloads.') and "
            "m.split('.')[2] != 'nw'), 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "False"], out
