"""Solver registry: every solver answers ``solve(case, scoring, traceback=True) -> Result``.

Solvers are looked up by name and imported lazily, so a solver whose dependencies are absent
(CuPy for the GPU solvers) costs nothing until it is asked for, and then fails with one clear
line (SolverUnavailable).
"""

from __future__ import annotations

import importlib
from typing import Iterable, Protocol, Sequence

from splicedalign.case import Result, Scoring, TestCase


class SolverUnavailable(RuntimeError):
    """The solver cannot run on this machine (e.g. no GPU); the message says why."""


class Solver(Protocol):
    name: str

    def solve(self, case: TestCase, scoring: Scoring, traceback: bool = True) -> Result: ...

    def solve_many(
        self, cases: Sequence[TestCase], scoring: Scoring, traceback: bool = True
    ) -> list[Result]: ...


# name -> "module:class"; GPU solvers register here too (modules import CuPy lazily).
_REGISTRY: dict[str, str] = {
    "reference": "splicedalign.solvers.reference:ReferenceSolver",
    "sequential": "splicedalign.solvers.cpu:SequentialSolver",
    "multicore": "splicedalign.solvers.cpu:MulticoreSolver",
    "accel1": "splicedalign.gpu.paper:Accel1Solver",
    "accel2": "splicedalign.gpu.paper:Accel2Solver",
    "gpu": "splicedalign.gpu.solver:GpuSolver",
}
CPU_SOLVERS = ("reference", "sequential", "multicore")


def register(name: str, target: str) -> None:
    """Add a solver ("module:class") to the registry."""
    _REGISTRY[name] = target


def available_solvers() -> list[str]:
    return list(_REGISTRY)


def get_solver(name: str) -> Solver:
    try:
        target = _REGISTRY[name]
    except KeyError:
        raise SolverUnavailable(
            f"unknown solver {name!r}; choose one of: {', '.join(_REGISTRY)}"
        ) from None
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)()


def solve(case: TestCase, scoring: Scoring = Scoring(), solver: str = "sequential",
          traceback: bool = True) -> Result:
    return get_solver(solver).solve(case, scoring, traceback=traceback)


def solve_many(cases: Iterable[TestCase], scoring: Scoring = Scoring(),
               solver: str = "sequential", traceback: bool = True) -> list[Result]:
    return get_solver(solver).solve_many(list(cases), scoring, traceback=traceback)
