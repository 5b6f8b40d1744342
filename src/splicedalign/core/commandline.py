"""What every workload's subcommands share: the exit-status epilog, the --solver, --format and
-o arguments, the checks of a command's files before any solving (standard input feeds at most
one input; the output is writable and is none of the inputs), and writing the output whole or
not at all."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from splicedalign.core.errors import EXIT_INPUT, EXIT_INTERRUPTED, EXIT_UNAVAILABLE, InputError
from splicedalign.core.registry import SolverRegistry

EPILOG = (f"exit status: 0 ok, {EXIT_INPUT} bad input (one line on stderr names file, line or record, and "
          f"problem), {EXIT_UNAVAILABLE} solver unavailable here (e.g. a GPU solver without a GPU), "
          f"{EXIT_INTERRUPTED} interrupted (Ctrl-C; no output file is left).")

# An argument whose metavar is one of these names an input file ('-' = standard input): the
# command line checks them all before any command runs (check_files).
INPUT_METAVARS = ("FASTA", "FILE", "TSV")


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


def input_flags(p: argparse.ArgumentParser) -> dict[str, str]:
    """dest -> flag of the arguments of ``p`` that name input files (INPUT_METAVARS)."""
    return {a.dest: a.option_strings[-1] for a in p._actions  # argparse lists actions only here
            if a.option_strings and a.metavar in INPUT_METAVARS and a.dest != "output"}


def check_files(inputs: Mapping[str, str | None], output: str | None) -> None:
    """Before any reading: standard input ('-') feeds at most one of ``inputs`` (flag -> path or
    None), and ``output`` (a path, '-' or None for stdout) is none of the input files."""
    given = {flag: str(path) for flag, path in inputs.items() if path is not None}
    stdin = [flag for flag, path in given.items() if path == "-"]
    if len(stdin) > 1:
        raise InputError(" and ".join(stdin), "standard input ('-') can feed only one input; "
                                              "give the others as files")
    if output in (None, "-"):
        return
    for flag, path in given.items():
        if path != "-" and os.path.exists(path) and os.path.exists(output) and os.path.samefile(path, output):
            raise InputError(output, f"output file is the input {flag}; choose another output file "
                                     "(the input is left as it is)")


def write_output(path: str, text: str) -> None:
    """``text`` to ``path`` ('-' is stdout), whole or not at all: written beside it under a
    temporary name and renamed into place, so an error or Ctrl-C leaves no partial file."""
    if path == "-":
        sys.stdout.write(text)
        return
    target = Path(os.path.realpath(path))  # through a symbolic link to the file it names
    if target.exists() and not target.is_file():  # /dev/null, a named pipe: no renaming there
        _write(path, text)
        return
    tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
    mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666  # os.open applies the umask
    try:
        _write(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), text, path)
        os.replace(tmp, target)
    except OSError as exc:
        raise InputError(path, f"cannot write output: {exc.strerror or exc}") from None
    finally:
        if tmp.exists():
            tmp.unlink()


def _write(file: str | int, text: str, name: str | None = None) -> None:
    try:
        with open(file, "w") as handle:
            handle.write(text)
    except OSError as exc:
        raise InputError(name or str(file), f"cannot write output: {exc.strerror or exc}") from None
