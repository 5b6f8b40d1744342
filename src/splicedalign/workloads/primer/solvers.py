"""Primer solvers: every one answers ``solve(problem) -> PrimerResult``; looked up by name in
``SOLVERS`` (the same roles as the other workloads: reference, sequential, multicore, the
paper's GPU design ``primer-paper``, ours ``gpu``; plus the paper's two sequential methods and
the ``edlib`` peer)."""

from __future__ import annotations

from typing import Protocol

from splicedalign.core.registry import SolverRegistry
from splicedalign.workloads.primer.records import PrimerProblem, PrimerResult


class Solver(Protocol):
    name: str

    def solve(self, problem: PrimerProblem) -> PrimerResult: ...


SOLVERS = SolverRegistry("primer")
SOLVERS.register("reference", "splicedalign.workloads.primer.reference:ReferenceSolver",
                 summary="conventional method with Opt 1 in plain NumPy; for tests")
SOLVERS.register("conventional", "splicedalign.workloads.primer.cpu:ConventionalSolver",
                 summary="paper Fig. 2a + Opt 1 (DP rows until a row minimum >= k), numba, one core")
SOLVERS.register("alternative", "splicedalign.workloads.primer.cpu:AlternativeSolver",
                 summary="paper Fig. 2b + Opt 2 (Landau-Vishkin diagonals), numba, one core")
SOLVERS.register("sequential", "splicedalign.workloads.primer.cpu:SequentialSolver",
                 summary="ours, one core: bit-parallel (64 rows/word) with Ukkonen's cut-off; the baseline")
SOLVERS.register("multicore", "splicedalign.workloads.primer.cpu:MulticoreSolver",
                 summary="the sequential sweep, starts in chunks on all cores (numba prange)")
SOLVERS.register("edlib", "splicedalign.workloads.primer.peers:EdlibSolver",
                 summary="peer: edlib infix distance per candidate substring, two-pointer over (r, e)")
SOLVERS.register("primer-paper", "splicedalign.workloads.primer.gpu.paper:PaperSolver", gpu=True,
                 summary="the paper's best CUDA design: block per start, LV columns, tiles, prefetch (Opt 3-6)")
SOLVERS.register("gpu", "splicedalign.workloads.primer.gpu.solver:GpuSolver", gpu=True,
                 summary="ours: thread per start, bit-parallel words in registers, Ukkonen's cut-off")


def get_solver(name: str) -> Solver:
    return SOLVERS.get(name)


def solve(problem: PrimerProblem, solver: str = "sequential") -> PrimerResult:
    return get_solver(solver).solve(problem)
