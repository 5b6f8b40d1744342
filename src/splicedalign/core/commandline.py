"""What every workload's subcommands share: the exit-status epilog, the --solver, --format and
-o arguments, and writing the output (its path checked before any solving)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Mapping

from splicedalign.core.errors import EXIT_INPUT, EXIT_UNAVAILABLE, InputError
from splicedalign.core.registry import SolverRegistry

EPILOG = (f"exit status: 0 ok, {EXIT_INPUT} bad input (one line on stderr names file, line or record, and "
          f"problem), {EXIT_UNAVAILABLE} solver unavailable here (e.g. a GPU solver without a GPU).")


def add_solver_argument(p: argparse.ArgumentParser, solvers: SolverRegistry, default: str = "sequential") -> None:
    p.add_argument("--solver", default=default,
                   help=f"solver (default {default}; one of: {', '.join(solvers.names())})")


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def memory_size(text: str) -> int:
    """A size in bytes from '12G', '512M', '1.5G' or a plain number of bytes (argparse type of
    --gpu-memory and the config's gpu_memory): binary units, case-insensitive, optional 'iB'/'B'."""
    t = str(text).strip().upper().removesuffix("IB").removesuffix("B")
    unit = t[-1:] if t[-1:] in _UNITS and t[-1:] else ""
    try:
        value = float(t[: len(t) - len(unit)])
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a memory size: {text!r} (e.g. 12G, 512M)") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"memory size must be positive: {text!r}")
    return int(value * _UNITS[unit])


def add_gpu_memory_argument(p: argparse.ArgumentParser) -> None:
    """--gpu-memory: a cap on the GPU memory a GPU solver takes (it never takes more than is free)."""
    p.add_argument("--gpu-memory", type=memory_size, default=None, metavar="SIZE",
                   help="at most this much GPU memory (e.g. 12G; default: what the device has free)")


def add_output_arguments(p: argparse.ArgumentParser, formats: Mapping[str, object], help: str) -> None:
    """--format (one of ``formats``, default json) and -o/--output (default stdout)."""
    p.add_argument("--format", choices=sorted(formats), default="json", help=help)
    p.add_argument("-o", "--output", default="-", metavar="FILE", help="output file (default stdout)")


def check_output(path: str) -> None:
    """Fail now, before any solving, when ``path`` ('-' is stdout) cannot be written."""
    if path == "-":
        return
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise InputError(path, "output path is a folder; give a file name")
    if not parent.is_dir():
        raise InputError(path, f"cannot write output: folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise InputError(path, "cannot write output: permission denied")


def write_output(path: str, text: str) -> None:
    """``text`` to ``path`` ('-' is stdout)."""
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w") as handle:
            handle.write(text)
    except OSError as exc:
        raise InputError(path, f"cannot write output: {exc.strerror or exc}") from None
