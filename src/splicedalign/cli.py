"""The one command line: ``splicedalign COMMAND ...``; every workload adds its commands
(``splicedalign.workloads.WORKLOADS``). Global flags (``-q``) work before or after the command.

Exit status: 0 ok, 2 bad input (one line on stderr naming file, place and problem), 3 a
solver that cannot run here (e.g. a GPU solver without a GPU).
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import logging
import os
import sys

from splicedalign import __version__
from splicedalign.core.commandline import EPILOG
from splicedalign.core.errors import EXIT_INPUT, EXIT_UNAVAILABLE, InputError, SolverUnavailable
from splicedalign.core.logs import log_to
from splicedalign.workloads import WORKLOADS


def _common() -> argparse.ArgumentParser:
    """Flags every subcommand accepts too (SUPPRESS keeps a later default from masking an earlier -q)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help="no progress messages on stderr")
    return common


def parser() -> argparse.ArgumentParser:
    common = _common()
    top = argparse.ArgumentParser(
        prog="splicedalign", parents=[common],
        description="Exact sequence alignment on CPUs and GPUs: spliced alignment (gene models from "
                    "candidate exons and a homologous cDNA) and the other workloads of the source papers.",
        epilog=EPILOG,
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for workload in WORKLOADS:
        importlib.import_module(f"splicedalign.workloads.{workload}.cli").add_commands(sub, common)
    return top


# First collection threshold of a CLI process (Python's default is 700): above the ~100 k
# container objects a one-case align creates, so its start-up runs no collection at all.
GC_THRESHOLD = 200_000


def tune_gc() -> None:
    """Cyclic garbage collection for a short process. Its start-up (numpy, numba, and the
    implementation registries numba imports at its first compiled call) creates ~100 k container
    objects that live to the exit. At the default threshold the collector runs about 250 times
    during a first align (2 full passes over them), and the interpreter's last collections at exit
    traverse them again while tearing modules down: together a third of a one-case ``align``
    (docs/pipeline.md). The larger threshold still collects cycles later, in fewer passes; freezing at
    exit (atexit runs before the teardown) leaves those objects to reference counting, so only
    cyclic garbage still alive at exit goes with the process, whose finalizers Python does not
    promise to run then anyway. Idempotent: ``main`` may run many times in one process (tests)."""
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)


def main(argv: list[str] | None = None) -> int:
    tune_gc()
    args = parser().parse_args(argv)
    quiet = getattr(args, "quiet", False)
    log_to(None, logging.WARNING if quiet else logging.INFO, "splicedalign: %(message)s")
    try:
        return args.run(args)
    except InputError as exc:
        print(f"splicedalign: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except SolverUnavailable as exc:
        print(f"splicedalign: error: {exc}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except BrokenPipeError:  # stdout piped into head & co. and closed: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
