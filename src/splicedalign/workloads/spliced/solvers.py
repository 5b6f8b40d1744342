"""Spliced-alignment solvers: every one answers ``solve(case, scoring, traceback=True) -> Result``
and ``solve_many(cases, scoring, traceback)``; looked up by name in ``SOLVERS``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from splicedalign.core.errors import InputError
from splicedalign.core.registry import SolverRegistry
from splicedalign.gpu.devices import Cost, DeviceSpec, solve_across
from splicedalign.workloads.spliced.records import Result, Scoring, TestCase


class Solver(Protocol):
    name: str

    def solve(self, case: TestCase, scoring: Scoring, traceback: bool = True) -> Result: ...

    def solve_many(
        self, cases: Sequence[TestCase], scoring: Scoring, traceback: bool = True
    ) -> list[Result]: ...


SOLVERS = SolverRegistry("spliced")
SOLVERS.register("reference", "splicedalign.workloads.spliced.reference:ReferenceSolver",
                 summary="SPEC §2 written out literally (full matrices); for tests")
SOLVERS.register("sequential", "splicedalign.workloads.spliced.cpu:SequentialSolver",
                 summary="numba, one core: the baseline of every speedup")
SOLVERS.register("multicore", "splicedalign.workloads.spliced.cpu:MulticoreSolver",
                 summary="numba, all cores")
SOLVERS.register("accel1", "splicedalign.workloads.spliced.gpu.paper:Accel1Solver", gpu=True,
                 summary="the paper's first accelerator: one launch, one block per exon")
SOLVERS.register("accel2", "splicedalign.workloads.spliced.gpu.paper:Accel2Solver", gpu=True,
                 summary="the paper's second accelerator: one launch per group")
SOLVERS.register("gpu", "splicedalign.workloads.spliced.gpu.solver:GpuSolver", gpu=True,
                 summary="ours: a whole batch in one persistent wavefront launch")


# Solvers that compute the paper's global target ends only (base.refuse_free_ends; the pipeline's
# `solvers: auto` leaves them out with free ends): none. The one switch for a solver whose free
# ends fail its device check: name it here (e.g. frozenset({"gpu"})) and it refuses them in one line.
GLOBAL_ENDS_ONLY: frozenset[str] = frozenset()


def for_target_ends(solvers: Sequence[str], unavailable: dict[str, str], target_ends: str,
                    auto: bool) -> tuple[list[str], dict[str, str]]:
    """A pipeline's solvers for its target-end mode: with free ends, ``auto`` leaves out the
    global-only solvers (with the reason); an explicit list naming one is bad config."""
    if target_ends != "free":
        return list(solvers), unavailable
    named = [s for s in solvers if s in GLOBAL_ENDS_ONLY]
    if named and not auto:
        raise InputError("config key spliced.solvers", f"{', '.join(named)} computes global target ends only;"
                         " drop it or set spliced.scoring.target_ends: global")
    return ([s for s in solvers if s not in GLOBAL_ENDS_ONLY],
            {**unavailable, **{s: "free target ends not implemented" for s in named}})


def get_solver(name: str) -> Solver:
    return SOLVERS.get(name)


def available_solvers() -> list[str]:
    return SOLVERS.names()


def solve(case: TestCase, scoring: Scoring = Scoring(), solver: str = "sequential",
          traceback: bool = True) -> Result:
    return get_solver(solver).solve(case, scoring, traceback=traceback)


# A case's critical path on the GPU: its exons hand rows to their successors one after another
# (the IL1RAPL1-shaped case, 1,878 exons, has 1,753 hand-offs on its path and takes 8.4 ms
# alone: ~4.8 us a hand-off, ~7e6 cells at the kernel's ~1.5 TCUPS on data sets).
HANDOFF_CELLS = 7_000_000


def case_cost(case: TestCase) -> Cost:
    """A case's estimated GPU time, for splitting a batch across GPUs: its cells, and at least
    one hand-off per exon."""
    return Cost(case.cells, case.K * HANDOFF_CELLS)


def solve_many(cases: Iterable[TestCase], scoring: Scoring = Scoring(),
               solver: str = "sequential", traceback: bool = True, devices: DeviceSpec = None,
               memory_cap: int | None = None) -> list[Result]:
    """``solver``'s results for ``cases``, in their order. ``devices`` (``--devices``): a GPU
    solver's cases split across those GPUs by ``case_cost``, a fresh solver on each (with
    ``memory_cap``, ``--gpu-memory``, per GPU); None: one call on the current GPU."""
    def solve_part(part: list[TestCase]) -> list[Result]:
        instance = get_solver(solver)
        if memory_cap is not None and hasattr(instance, "memory_cap"):
            instance.memory_cap = memory_cap
        return instance.solve_many(part, scoring, traceback=traceback)

    return solve_across(devices, SOLVERS.entry(solver).gpu, list(cases), case_cost, solve_part, solver)
