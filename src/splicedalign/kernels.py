"""Every CUDA kernel file that ships, in one place: the constants it shares with its host code
(one Python definition each) and every kernel (template instance) its solvers ask for. The
convention itself (generated headers, shipped binaries, their loading) is ``gpu.kernels``;
this module sits above the workloads, as the CLI does, because it names their kernels.

    python -m splicedalign.kernels headers   # rewrite each file's generated <stem>.defines.h
    python -m splicedalign.kernels build     # compile the shipped binaries with nvcc

A kernel file listed here with defines has a generated header; tests check that each header
is current, that each listed name is instantiated by the file's nvcc build (so it ships), and
that the lists match what the solvers ask for.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from splicedalign.gpu import kernels


@dataclass(frozen=True)
class KernelFile:
    source: Path
    defines: Mapping[str, int]  # -D macros for NVRTC; the generated header for nvcc
    origin: str  # the Python definition of the defines, named in the header
    names: tuple[str, ...]  # every kernel its solvers ask for (name expressions)


def _spliced() -> list[KernelFile]:
    from splicedalign.workloads.spliced.gpu import paper
    from splicedalign.workloads.spliced.gpu import solver as ours
    from splicedalign.workloads.spliced.gpu.launch import TUNING, LaunchConfig
    from splicedalign.workloads.spliced.gpu.plan import (
        DENSE_LANE_ROWS,
        MODE_FOLLOW,
        MODE_RECORD,
        MODE_SCORE,
        kernel_defines,
    )

    # Every configuration launch.configure can make: int scores at the throughput or the chain
    # width, int64 at the wide one; a recording kernel only up to DENSE_LANE_ROWS (wider
    # launches that record follow), a follower beside it for the long chains or not; global or
    # free target ends. The names depend on these fields only.
    shapes = [("int", TUNING.rows_per_lane), ("int", TUNING.chain_rows_per_lane),
              ("long long", TUNING.wide_rows_per_lane)]
    names: set[str] = set()
    for (ctype, width), byte_profile, mode, followed, free_ends in itertools.product(
            shapes, (True, False), (MODE_SCORE, MODE_RECORD, MODE_FOLLOW), ((), (0,)), (False, True)):
        if mode == MODE_RECORD and width > DENSE_LANE_ROWS or followed and mode != MODE_RECORD:
            continue
        shape: dict[str, Any] = {f.name: None for f in dataclasses.fields(LaunchConfig)}
        shape.update(ctype=ctype, rows_per_lane=width, byte_profile=byte_profile, mode=mode, followed=followed,
                     free_ends=free_ends)
        names.update(LaunchConfig(**shape).names)
    return [KernelFile(paper.KERNEL_FILE, {}, "", paper.NAMES),
            KernelFile(ours.KERNEL_FILE, kernel_defines(), "splicedalign.workloads.spliced.gpu.plan.kernel_defines",
                       tuple(sorted(names)))]


def _primer() -> list[KernelFile]:
    from splicedalign.workloads.primer.gpu import paper, solver

    return [KernelFile(paper.KERNEL_FILE, paper.DEFINES, "splicedalign.workloads.primer.gpu.paper.DEFINES",
                       (paper.KERNEL,)),
            KernelFile(solver.KERNEL_FILE, solver.DEFINES, "splicedalign.workloads.primer.gpu.solver.DEFINES",
                       solver.NAMES)]


def _nw() -> list[KernelFile]:
    from splicedalign.workloads.nw.gpu import paper, solver

    return [KernelFile(paper.KERNEL_FILE, paper.DEFINES, "splicedalign.workloads.nw.gpu.paper.DEFINES", paper.NAMES),
            KernelFile(solver.KERNEL_FILE, solver.DEFINES, "splicedalign.workloads.nw.gpu.solver.DEFINES",
                       solver.VARIANTS)]


def _sw() -> list[KernelFile]:
    from splicedalign.workloads.sw.gpu import paper, plan, solver

    origin = "splicedalign.workloads.sw.gpu.plan.DEFINES"
    return [KernelFile(paper.KERNEL_FILE, plan.DEFINES, origin, paper.NAMES),
            KernelFile(solver.KERNEL_FILE, plan.DEFINES, origin, solver.NAMES)]


def kernel_files() -> list[KernelFile]:
    """Every shipped kernel file with its defines and the kernels its solvers ask for."""
    return sorted([*_spliced(), *_primer(), *_nw(), *_sw()], key=lambda k: k.source)


def write_headers() -> list[Path]:
    """Rewrite the generated header of every kernel file with defines; returns those changed."""
    return [k.source for k in kernel_files() if k.defines and kernels.write_header(k.source, k.defines, k.origin)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m splicedalign.kernels", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("headers", "build"))
    parser.add_argument("--out", type=Path, default=kernels.SHIPPED_DIR,
                        help="where build writes (default: %(default)s)")
    args = parser.parse_args(argv)
    for source in write_headers():
        print(f"rewrote {kernels.header_path(source)}")
    if args.command == "build":
        index = kernels.build(args.out)
        print(f"{len(index)} kernel files built into {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
