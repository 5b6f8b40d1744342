"""One solver registry per workload: names to lazily imported solver classes.

A workload registers ``name -> "module:Class"``; the module is imported only when the solver is
asked for, so a GPU solver costs nothing (no CuPy import, no kernel compilation) until used.
The same names mean the same roles across workloads (SPEC-workloads, shared conventions):
``reference``, ``sequential``, ``multicore``, the paper's GPU design, ``gpu``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from splicedalign.core.errors import InputError, SolverUnavailable


@dataclass(frozen=True)
class SolverEntry:
    name: str
    target: str  # "module:Class"
    gpu: bool  # needs CuPy and a CUDA device
    summary: str  # one line for --help and docs


class SolverRegistry:
    """The solvers of one workload, in registration order."""

    def __init__(self, workload: str):
        self.workload = workload
        self._entries: dict[str, SolverEntry] = {}

    def register(self, name: str, target: str, *, gpu: bool = False, summary: str = "") -> None:
        self._entries[name] = SolverEntry(name, target, gpu, summary)

    def names(self) -> list[str]:
        return list(self._entries)

    def cpu_names(self) -> list[str]:
        return [e.name for e in self._entries.values() if not e.gpu]

    def gpu_names(self) -> list[str]:
        return [e.name for e in self._entries.values() if e.gpu]

    def entry(self, name: str) -> SolverEntry:
        try:
            return self._entries[name]
        except KeyError:
            raise InputError(
                "--solver", f"unknown {self.workload} solver {name!r}; choose one of: {', '.join(self._entries)}"
            ) from None

    def resolve(self, spec: str | Sequence[str], gpu_reason: str | None) -> tuple[list[str], dict[str, str]]:
        """(solvers to run, {solver left out: why}) for a pipeline's ``solvers`` setting.

        ``auto``: every solver (CPU solvers and peers; a peer that is not installed writes an
        "n/a" record when its job runs), the GPU solvers only when ``gpu_reason`` is None (the
        cheap ``gpu.device.unavailable_reason()``: nothing is compiled or solved). An explicit
        list is checked name by name (InputError on an unknown one) and taken as is.
        """
        if spec == "auto":
            if gpu_reason is None:
                return self.names(), {}
            return self.cpu_names(), {name: gpu_reason for name in self.gpu_names()}
        for name in spec:
            self.entry(name)
        return list(spec), {}

    def get(self, name: str) -> Any:
        """A new instance of solver ``name``: unknown names are bad input (InputError); a solver
        that cannot run here raises SolverUnavailable when it is constructed or first used."""
        module, cls = self.entry(name).target.split(":")
        return getattr(importlib.import_module(module), cls)()


def import_peer(module: str) -> ModuleType:
    """A peer tool's module (an optional extra), or SolverUnavailable saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise SolverUnavailable(f"{module} is not installed: pip install 'splicedalign[peers]'") from None
