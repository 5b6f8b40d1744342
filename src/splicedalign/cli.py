"""The one command line: ``splicedalign COMMAND ...``; every workload adds its commands
(``splicedalign.workloads.WORKLOADS``). Global flags (``-q``) work before or after the command.

Exit status: 0 ok, 2 bad input (one line on stderr naming file, place and problem), 3 a
solver that cannot run here (e.g. a GPU solver without a GPU), 130 interrupted (Ctrl-C: one
line, no output file). Every command's input files are checked before it runs: standard input
feeds at most one of them and the output file is none of them.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

import splicedalign
from splicedalign.core import forked
from splicedalign.core.collection import tune_short_process
from splicedalign.core.commandline import EPILOG, check_files, input_flags
from splicedalign.core.errors import EXIT_INPUT, EXIT_INTERRUPTED, EXIT_UNAVAILABLE, InputError, SolverUnavailable
from splicedalign.core.logs import log_to
from splicedalign.workloads import COMMANDS, WORKLOADS


def _common() -> argparse.ArgumentParser:
    """Flags every subcommand accepts too (SUPPRESS keeps a later default from masking an earlier -q)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help="no progress messages on stderr")
    return common


class _Version(argparse.Action):
    """-V: the version, looked up only when asked for."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show the program's version number and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"{parser.prog} {splicedalign.__version__}")
        parser.exit()


def _command(argv: list[str]) -> str | None:
    """The command a command line names (its first word that is no flag), if any."""
    return next((a for a in argv if not a.startswith("-")), None)


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line. With ``command``, only the commands of the workload that has it
    (``workloads.COMMANDS``): a command needs only its own workload's modules (another's cli
    costs a fresh process ~0.05 s of imports); without, or for a command none has, all of them."""
    common = _common()
    top = argparse.ArgumentParser(
        prog="splicedalign", parents=[common],
        description="Exact sequence alignment on CPUs and GPUs: spliced alignment (gene models from "
                    "candidate exons and a homologous cDNA) and the other workloads of the source papers.",
        epilog=EPILOG,
    )
    top.add_argument("-V", "--version", action=_Version)
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    named = [workload for workload in WORKLOADS if command in COMMANDS[workload]]
    for workload in named or WORKLOADS:
        importlib.import_module(f"splicedalign.workloads.{workload}.cli").add_commands(sub, common)
    for subparser in sub.choices.values():
        subparser.set_defaults(input_flags=input_flags(subparser))
    return top


def main(argv: list[str] | None = None) -> int:
    tune_short_process()
    argv = sys.argv[1:] if argv is None else argv
    args = parser(_command(argv)).parse_args(argv)
    quiet = getattr(args, "quiet", False)
    log_to(None, logging.WARNING if quiet else logging.INFO, "splicedalign: %(message)s")
    try:
        check_files({flag: getattr(args, dest) for dest, flag in args.input_flags.items()},
                    getattr(args, "output", None))
        return args.run(args)
    except KeyboardInterrupt:  # Ctrl-C: outputs are written whole or not at all (write_output)
        print("splicedalign: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except InputError as exc:
        print(f"splicedalign: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except SolverUnavailable as exc:
        print(f"splicedalign: error: {exc}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except BrokenPipeError:  # stdout piped into head & co. and closed: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


# OpenBLAS (NumPy's BLAS in its wheels) starts a thread per CPU when NumPy is imported; no
# command does linear algebra, so the console script asks for one unless the user set a count:
# NumPy's import took 0.12 s with a thread per CPU, 0.058 s with one on the 2-core machine (on
# the 16-CPU H100 host 0.32 against 0.35 s: no difference there).
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}


def set_up_process() -> None:
    """The console script's process made ready, before NumPy's import (none of this module's
    imports loads it): BLAS_THREADS unless the user set them, and reading in a forked child
    allowed (core.forked: a process of its own). Probes that time a fresh align call it too."""
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    forked.ENABLED = True


def run() -> None:
    """The console script: ``main``, its output flushed, then the process ends at once
    (``os._exit``). Python's own exit would tear down what the run loaded (CuPy and the CUDA
    context, numba, thousands of module objects): a few tenths of a second after the answer is
    written, for nothing (the operating system frees it all). First ``set_up_process``."""
    set_up_process()
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # a reader gone, or a stream already closed
            code = code or 1
    os._exit(code)


if __name__ == "__main__":
    run()
