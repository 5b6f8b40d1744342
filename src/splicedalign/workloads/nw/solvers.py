"""Global-alignment solvers: every one answers ``solve(pair, costs, traceback=True, mode="global")
-> Result``; looked up by name in ``SOLVERS`` (unknown name: InputError; cannot run here, e.g.
costs or a mode it does not take: SolverUnavailable)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from splicedalign.core.logs import Progress
from splicedalign.core.registry import SolverRegistry
from splicedalign.gpu.devices import Cost, DeviceSpec, solve_across
from splicedalign.workloads.nw.batches import total_cells
from splicedalign.workloads.nw.records import Costs, Pair, Result


class Solver(Protocol):
    name: str

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True, mode: str = "global") -> Result: ...


SOLVERS = SolverRegistry("nw")
SOLVERS.register("reference", "splicedalign.workloads.nw.reference:ReferenceSolver",
                 summary="SPEC-workloads B with NumPy, the whole table in memory; for tests")
SOLVERS.register("sequential", "splicedalign.workloads.nw.cpu:SequentialSolver",
                 summary="numba, one core: the DP in linear space (the paper's baseline)")
SOLVERS.register("multicore", "splicedalign.workloads.nw.cpu:MulticoreSolver",
                 summary="numba, all cores, cost-adaptive: WFA when the score is small, else the DP")
SOLVERS.register("nw-tiles", "splicedalign.workloads.nw.gpu.paper:TilesSolver", gpu=True,
                 summary="paper 002: 16x16 tiles, one launch per tile anti-diagonal, table in device memory")
SOLVERS.register("gpu", "splicedalign.workloads.nw.gpu.solver:GpuSolver", gpu=True,
                 summary="ours: register-resident strips of rows per warp; cost-adaptive (certified bands), "
                         "gap-affine, every mode")
SOLVERS.register("pywfa", "splicedalign.workloads.nw.peers:PywfaSolver",
                 summary="peer: WFA2-lib gap-linear end-to-end (optional extra)")
PEERS = ("pywfa",)


def solve(pair: Pair, costs: Costs = Costs(), solver: str = "sequential", traceback: bool = True,
          mode: str = "global") -> Result:
    return SOLVERS.get(solver).solve(pair, costs, traceback=traceback, mode=mode)


def solve_pairs(solver: Solver, pairs: Sequence[Pair], costs: Costs, traceback: bool = True,
                mode: str = "global") -> Sequence[Result]:
    """Answers for a batch of pairs, in input order: the solver's own ``solve_many`` when it has
    one (several pairs at once), else one pair after another; progress on the log."""
    many = getattr(solver, "solve_many", None)
    if many is not None:
        return many(pairs, costs, traceback=traceback, mode=mode)
    progress = Progress(f"nw {len(pairs)} pairs ({solver.name})", total_cells(pairs))
    results, done = [], 0
    for pair in pairs:
        results.append(solver.solve(pair, costs, traceback=traceback, mode=mode))
        done += pair.cells
        progress.update(done, f"{len(results)}/{len(pairs)} pairs")
    return results


# A pair's critical path on the GPU: its strips of rows hand columns down one after another,
# about one step per two rows of the longer sequence (30,368^2: ~16,000 steps in 7.5 ms,
# ~0.5 us a step, ~1e6 cells at ~2 TCUPS).
STEP_CELLS = 1_000_000


def pair_cost(pair: Pair) -> Cost:
    """A pair's estimated GPU time, for splitting a batch across GPUs: its cells, and at least
    its chain of strip steps."""
    return Cost(pair.cells, max(pair.n, pair.m) // 2 * STEP_CELLS)


def solve_pairs_on(devices: DeviceSpec, solver: str, pairs: Sequence[Pair], costs: Costs,
                   traceback: bool = True, mode: str = "global") -> list[Result]:
    """``solve_pairs`` with a GPU solver's pairs split across ``devices`` (``--devices``) by
    ``pair_cost``, a fresh solver on each; answers in input order."""
    return solve_across(devices, SOLVERS.entry(solver).gpu, pairs, pair_cost,
                        lambda part: solve_pairs(SOLVERS.get(solver), part, costs, traceback, mode), solver)
