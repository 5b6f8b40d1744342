"""Global-alignment solvers: every one answers ``solve(pair, costs, traceback=True) -> Result``;
looked up by name in ``SOLVERS`` (unknown name: InputError; cannot run here: SolverUnavailable)."""

from __future__ import annotations

from typing import Protocol

from splicedalign.core.registry import SolverRegistry
from splicedalign.workloads.nw.records import Costs, Pair, Result


class Solver(Protocol):
    name: str

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True) -> Result: ...


SOLVERS = SolverRegistry("nw")
SOLVERS.register("reference", "splicedalign.workloads.nw.reference:ReferenceSolver",
                 summary="SPEC-workloads B with NumPy, the whole table in memory; for tests")
SOLVERS.register("sequential", "splicedalign.workloads.nw.cpu:SequentialSolver",
                 summary="numba, one core, linear space (alignment: Hirschberg)")
SOLVERS.register("multicore", "splicedalign.workloads.nw.cpu:MulticoreSolver",
                 summary="numba, all cores: a wavefront of blocks over one pair")
SOLVERS.register("nw-tiles", "splicedalign.workloads.nw.gpu.tiles:TilesSolver", gpu=True,
                 summary="paper 002: 16x16 tiles, one launch per tile anti-diagonal, table in device memory")
SOLVERS.register("gpu", "splicedalign.workloads.nw.gpu.solver:GpuSolver", gpu=True,
                 summary="ours: register-resident strips of rows per warp, linear memory")
SOLVERS.register("pywfa", "splicedalign.workloads.nw.peers:PywfaSolver",
                 summary="peer: WFA2-lib gap-linear end-to-end (optional extra)")
PEERS = ("pywfa",)


def solve(pair: Pair, costs: Costs = Costs(), solver: str = "sequential", traceback: bool = True) -> Result:
    return SOLVERS.get(solver).solve(pair, costs, traceback=traceback)
