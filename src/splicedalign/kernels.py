"""Every CUDA kernel file that ships, in one place: the constants it shares with its host code
(one Python definition each) and every kernel (template instance) its solvers ask for. The
convention itself (generated headers, shipped binaries, their loading) is ``gpu.kernels``;
this module sits above the workloads, as the CLI does, because it names their kernels.

    python -m splicedalign.kernels headers   # rewrite each file's generated <stem>.defines.h
    python -m splicedalign.kernels host      # compile the spliced and nw GPU solvers' numba host code
                                             # and the package's Python bytecode
    python -m splicedalign.kernels build     # both, and the shipped binaries with nvcc

A kernel file listed here with defines has a generated header (with ``listed_instances``, also
the template instances of its names, which the file's nvcc build instantiates from there); tests
check that each header is current, that each listed name is instantiated by the file's nvcc build
(so it ships), and that the lists match what the solvers ask for.

A GPU solver's host code may be compiled too: the spliced ``gpu`` solver plans its launches with
numba functions (spliced/gpu/flat.py and plan.py), which numba compiles on their first call in a
process and keeps in its on-disk cache (``cache=True``). On a machine whose cache lacks them
the first ``align --solver gpu`` compiled them for 18.7 s (H100 host; 34.5 s on a slower one
with the parallel planning passes). The nw ``gpu`` solver's host code is compiled too (its
sample's CPU WFA, segments' rounds, the pieces' upload, the CIGAR texts, a batch's copies: ~34
CPU s on the 2-core development machine; its first CIGAR's text alone took 0.78 s on the H100
host). ``compile_host_code`` runs that host code once on small synthetic cases, so that numba's
cache holds it: ``build`` does it, or ``host`` alone. A numba
cache entry is valid for the same numba version, the same source (its content) and the same
CPU model and features (NUMBA_CPU_NAME=generic, set both when compiling and when running,
makes it portable across x86-64 CPUs, at the cost of the host's vector extensions).

``host`` also writes the package's Python bytecode beside its sources (``compile_bytecode``), as
pip does when it installs a wheel: a checkout, or an interpreter that may not write bytecode
itself (PYTHONDONTWRITEBYTECODE, as on the H100 host's image), otherwise compiles the ~40
modules of a fresh ``align`` from source in every process (of 0.28 s of such compiles in a
fresh ``align --solver gpu`` there, ~0.09 s were splicedalign's own).

And, unless ``--no-libraries``, the bytecode of the libraries' modules a solve imports (NumPy,
numba, llvmlite, CuPy, ...) where their install has none (``compile_library_bytecode``): pip
writes it when it installs a wheel, but an image built with ``--no-compile`` or under
PYTHONDONTWRITEBYTECODE (the H100 host's) ships ~460 such modules without it, and every fresh
``align --solver gpu`` compiled them from source: 0.16-0.27 s of its ~1.0 s there (1.01 -> 0.85 s
with them). Only missing bytecode is written, beside each module as Python itself would write it
(its ``__pycache__``, or under PYTHONPYCACHEPREFIX); a read-only install keeps none (counted).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import sys
import time
import types
from collections.abc import Callable, Mapping
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
    # its nvcc-only block instantiates the template kernels of names from the header's lists
    # (<KERNEL>_INSTANCES), not from its own
    listed_instances: bool = False

    @property
    def header_instances(self) -> tuple[str, ...]:
        """The names its generated header lists for its nvcc-only block (none without listed_instances)."""
        return self.names if self.listed_instances else ()


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
    # free target ends; a recomputing int score kernel at those widths storing column checkpoints
    # (Tuning.checkpoint_blocks, the shipped interval) for its walks. The names depend on these
    # fields only.
    shapes = [("int", TUNING.rows_per_lane), ("int", TUNING.chain_rows_per_lane),
              ("long long", TUNING.wide_rows_per_lane)]
    names: set[str] = set()
    for (ctype, width), byte_profile, mode, followed, free_ends, ckb in itertools.product(
            shapes, (True, False), (MODE_SCORE, MODE_RECORD, MODE_FOLLOW), ((), (0,)), (False, True),
            (0, TUNING.checkpoint_blocks)):
        if mode == MODE_RECORD and width > DENSE_LANE_ROWS or followed and mode != MODE_RECORD:
            continue
        if ckb and (mode != MODE_SCORE or ctype != "int" or width > DENSE_LANE_ROWS):
            continue
        shape: dict[str, Any] = {f.name: None for f in dataclasses.fields(LaunchConfig)}
        shape.update(ctype=ctype, rows_per_lane=width, byte_profile=byte_profile, mode=mode, followed=followed,
                     free_ends=free_ends, checkpoint_blocks=ckb)
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
    from splicedalign.workloads.nw.gpu import batch, paper, solver, wfa, wfa_cluster

    return [KernelFile(paper.KERNEL_FILE, paper.DEFINES, "splicedalign.workloads.nw.gpu.paper.DEFINES", paper.NAMES),
            KernelFile(batch.KERNEL_FILE, batch.DEFINES, "splicedalign.workloads.nw.gpu.batch.DEFINES", batch.NAMES),
            KernelFile(wfa.KERNEL_FILE, wfa.DEFINES, "splicedalign.workloads.nw.gpu.wfa.DEFINES", wfa.NAMES,
                       listed_instances=True),
            KernelFile(wfa_cluster.KERNEL_FILE, wfa_cluster.DEFINES,
                       "splicedalign.workloads.nw.gpu.wfa_cluster.DEFINES", wfa_cluster.NAMES),
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


def _spliced_host() -> None:
    """The spliced ``gpu`` solver's host passes (GpuSolver: flatten, split into launches, plan,
    followed strips, column checkpoints' offsets, device-traceback tables), score and traced, on a throughput launch (64
    cases, long chains followed) and a chain-bound one (4 cases); a fed launch's (feed.py); and
    the records' pass of a device traceback (outputs.walked_exons: of no case, its kernel's types)."""
    import numpy as np

    from splicedalign.workloads.spliced import synthetic
    from splicedalign.workloads.spliced.gpu import launch, outputs
    from splicedalign.workloads.spliced.gpu.feed import load_passes
    from splicedalign.workloads.spliced.gpu.flat import FlatCases
    from splicedalign.workloads.spliced.gpu.plan import (
        build_plan,
        byte_profile_ok,
        checkpoint_layout,
        followed_tasks,
        trace_inputs,
    )
    from splicedalign.workloads.spliced.records import Scoring

    scoring = Scoring()
    cases = synthetic.tiny_set(bases=launch.TUNING.throughput_cases // 2)
    for batch, traceback in itertools.product((cases, cases[:4]), (False, True)):
        flat = FlatCases.of(batch)
        _, work, _, _ = launch.plan_launches(flat, scoring, traceback, 1 << 40, lambda ctype: True)
        for ctype, sel in work:
            sub = flat.select(sel)
            config = launch.configure(sub, ctype, byte_profile_ok(scoring), traceback, True)
            plan = build_plan(sub, config.rows_per_lane, config.floors, config.late, config.entry)
            if config.followed:
                followed_tasks(plan, config.followed, config.least)
            if config.checkpoint_blocks:
                checkpoint_layout(plan, config.checkpoint_blocks, config.followed)
            if config.record:
                trace_inputs(plan, None, launch.walks(sub, config.followed))
    load_passes()
    none = np.zeros(0, dtype=np.int64)
    outputs.walked_exons(none.reshape(0, 3), none, none, none, np.zeros((0, 4), np.int32), none, np.zeros(0, np.uint8),
                         True)


def _device_pieces(cpu: Callable[..., Any]) -> Callable[..., Any]:
    """segments' pieces by ``cpu`` (``segments.cpu_pieces``) in the form the device's come back in
    (``WfaSolver.pieces_back``: each piece's runs used, a column of the round's answers)."""
    import numpy as np

    from splicedalign.workloads.nw.segments import Pieces

    def solve(*asks: Any) -> Pieces:
        got = cpu(*asks)
        answers = np.stack([got.score, got.start, got.end, got.used], 1)
        return Pieces(got.score, got.start, got.end, got.runs, got.first, answers[:, 3])
    return solve


def _nw_host() -> None:
    """The nw ``gpu`` solver's compiled host code, each function as the solver calls it (same argument
    types: another signature compiles again), on a tiny pair and batch, both cost models: the sample's
    CPU WFA (one pair, and a batch's on numba's threads), the reach table, the bands' escape bounds,
    segments' first round planned on the host (first_round, first_asks, the pieces' upload) and its
    rounds' bookkeeping (``segmented``, with pieces shaped as the device's come back), a certified
    round's final pieces, the CIGAR texts (a walk's operations, its runs, pieces joined in place or
    gathered from several rounds), a batch's copies by address (a list of pairs' arrays, a
    ``PairBatch`` of strings) and the output formats' CIGAR counter."""
    import numpy as np

    from splicedalign.workloads.nw import batch_copy, segments
    from splicedalign.workloads.nw import wfa as cpu_wfa
    from splicedalign.workloads.nw.batches import PairBatch
    from splicedalign.workloads.nw.cigar import cigar_string, op_counts_many, runs_cigar
    from splicedalign.workloads.nw.gpu import band, common, solver, wfa
    from splicedalign.workloads.nw.records import Pair
    from splicedalign.workloads.nw.synthetic import ISSUE26_COSTS, mutate, random_codes

    rng = np.random.default_rng(0)
    a = random_codes(4 * segments.ROWS // 8, rng)
    pair = Pair("host", "a", "b", a, mutate(a, rng, 0.02))
    rows = segments.ROWS // 8  # (small pieces: the same types)
    for costs in ISSUE26_COSTS.values():
        g, x, o, e = cpu_wfa.reduced_costs(costs)
        expected = wfa.sampled_score(pair, costs)
        wfa.sampled_scores([pair, pair], [0, 1], costs)
        wfa.reach_table(x, o, e, 16, o > 0)
        band.escape_bounds(costs, "global", *(np.array([v]) for v in (pair.n, pair.m, -8, 8)))
        solver.speculates(pair.n, expected / pair.n, g)
        band.band_bound(costs, "global", pair.n, pair.m, 16)
        lo, hi, bound, _, _ = segments.first_round(costs, "global", pair.n, pair.m, 16, expected / pair.n, g, rows,
                                                   True)
        segments.piece_caps(expected / pair.n, rows, g)
        cuts, r0, r1, c0, c1 = segments.first_asks(pair.n, pair.m, lo, hi, rows, True)
        at = wfa.piece_layout(r0.size)
        host = np.zeros(at["end"], np.int64)
        wfa.fill_pieces(host, r0, r1, c0, c1, pair.n, 8, 8, wfa.wavefront_arrays(o), 20,
                        *(at[k] for k in wfa.PIECE_PARTS))
        wfa.byte_sources(host, r0.size, at["desc"], at["from"])
        for speculate in (False, True):
            segments.segmented(pair.n, pair.m, costs, "global", 16, _device_pieces(segments.cpu_pieces(pair, costs)),
                               rows, speculate=speculate)
    runs = np.array([5 << 2, 3 << 2 | 1], np.uint32)
    table = np.zeros((2, segments.COLUMNS), np.int64)  # (a certified table's final pieces: segmented's)
    for solves in (1, 2):
        segments.Segmented(0, 0, [runs] * solves, table[:, segments.SOLVE], table[:, segments.FIRST],
                           table[:, segments.USED], solves).cigar()
    checked = np.array([1, 0, 0, 1, 0, -1], np.int64)  # (nw_pieces_settle's result: certified, one final piece)
    solve, first, used = wfa.final_pieces(checked, np.zeros(wfa.PIECE_OUT, np.int32), 8)
    segments.Segmented(0, 0, [runs], solve, first, used, 1).cigar()
    op_counts_many([cigar_string(np.array([2, 0, 0, 1, 3], np.int8)), runs_cigar(runs)])
    n, m, addresses = common.pair_sources([pair, pair])
    if addresses is not None:  # (where the arrays are read by address: the copying threads' pieces)
        sizes = np.stack([n, m], 1).ravel()
        pieces = common.piece_rows(sizes, np.cumsum(sizes) - sizes, [(0, 2)], 1)
        done = np.zeros(len(pieces), np.int64)
        batch_copy.copy_pieces(addresses, sizes, np.empty(int(sizes.sum()), np.uint8), pieces, np.zeros(1, np.int64),
                               done)
        batch_copy.wait_pieces(done, 0, 1, 1)
    batch_copy.array_addresses([pair.a.astype(np.int8)], np.array([pair.n]))
    strings = PairBatch.from_strings(["ACGT"], ["ACGA"])
    strings.unfilled_addresses()
    strings.filled(1)


# Each GPU solver module whose host code numba compiles: what runs that code (compile_host_code).
HOST_CODE = {"splicedalign.workloads.spliced.gpu.solver": _spliced_host,
             "splicedalign.workloads.nw.gpu.solver": _nw_host}


def compile_host_code(module: str | None = None) -> None:
    """Run the numba host code of the GPU solver in ``module`` (default: of every GPU solver in
    HOST_CODE) once on small cases: compiled into numba's on-disk cache where it is missing,
    loaded from it where it is there (a process's first call, ~3 ms a function)."""
    for name, run in HOST_CODE.items():
        if module in (None, name):
            run()


def compile_bytecode() -> bool:
    """The package's bytecode (``__pycache__``) written for this interpreter where it is
    missing or stale; False when some could not be written (a read-only install)."""
    import compileall

    return bool(compileall.compile_dir(str(kernels.PACKAGE_DIR), quiet=2))


def _import_gpu_libraries() -> None:
    """CuPy imported where it is installed (a GPU solve imports it; its import needs no GPU)."""
    try:
        import cupy  # noqa: F401
    except Exception:  # noqa: BLE001 - none installed, or a broken CuPy: its modules stay as they are
        pass


def compile_library_bytecode(modules: list[types.ModuleType] | None = None) -> tuple[int, int]:
    """Bytecode written for every module this process has imported from outside the package
    (after the host code ran, and CuPy imported where installed: what a GPU solve imports; or
    just ``modules``) whose bytecode is missing, where Python would read it; returns (written,
    not writable)."""
    import py_compile

    if modules is None:
        _import_gpu_libraries()
        modules = list(sys.modules.values())
    written = failed = 0
    for module in modules:
        spec = getattr(module, "__spec__", None)
        origin, cached = getattr(spec, "origin", None), getattr(spec, "cached", None)
        if (not isinstance(origin, str) or not origin.endswith(".py") or not isinstance(cached, str)
                or Path(origin).is_relative_to(kernels.PACKAGE_DIR) or os.path.exists(cached)):
            continue
        try:
            py_compile.compile(origin, cfile=cached, doraise=True)
            written += 1
        except (OSError, py_compile.PyCompileError):
            failed += 1
    return written, failed


def write_headers() -> list[Path]:
    """Rewrite the generated header of every kernel file with defines; returns those changed."""
    return [k.source for k in kernel_files()
            if k.defines and kernels.write_header(k.source, k.defines, k.origin, k.header_instances)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m splicedalign.kernels", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("headers", "host", "build"))
    parser.add_argument("--out", type=Path, default=kernels.SHIPPED_DIR,
                        help="where build writes (default: %(default)s)")
    parser.add_argument("--no-libraries", action="store_true",
                        help="host, build: leave the libraries' modules (NumPy, numba, CuPy, ...) without "
                             "bytecode where their install has none")
    args = parser.parse_args(argv)
    for source in write_headers():
        print(f"rewrote {kernels.header_path(source)}")
    if args.command in ("host", "build"):
        t = time.perf_counter()
        compile_host_code()
        print(f"GPU solvers' host code in numba's cache ({time.perf_counter() - t:.1f} s)")
        if not compile_bytecode():
            print("some of the package's Python bytecode could not be written (read-only?): "
                  "Python compiles those modules in every process")
        if not args.no_libraries:
            written, failed = compile_library_bytecode()
            if written or failed:
                print(f"bytecode written for {written} modules of the libraries a solve imports (their install "
                      f"had none)" + (f"; {failed} not writable: Python compiles those in every process"
                                      if failed else ""))
    if args.command == "build":
        try:
            index = kernels.build(args.out)
        except FileNotFoundError as exc:  # a machine with CuPy but no CUDA toolkit: NVRTC will do
            print(f"no shipped kernels ({exc}): GPU solvers compile them with NVRTC at first use")
            return 0
        print(f"{len(index)} kernel files built into {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
