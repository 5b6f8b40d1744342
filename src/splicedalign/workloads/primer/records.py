"""Typed records of the k-difference primer problem (SPEC-workloads A): the instance, the
per-start prefix lengths every solver computes, and the result the command line prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from splicedalign.core.alphabet import encode_base, encode_target
from splicedalign.core.errors import InputError


@dataclass(frozen=True)
class PrimerProblem:
    """α (where primers are sought), β (what they must not bind) and k >= 1 differences.

    α is coded as a base (wildcard 4) and β as a target (wildcard 5), so an IUPAC ambiguity
    letter never matches anything (core.alphabet)."""

    alpha: str
    beta: str
    k: int
    alpha_name: str = "alpha"
    beta_name: str = "beta"

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)):
            raise InputError("-k", f"k must be an integer, got {self.k!r}")
        if not self.alpha:
            raise InputError(self.alpha_name, "alpha is empty")
        if not self.beta:
            raise InputError(self.beta_name, "beta is empty")
        if self.k < 1:
            raise InputError("-k", f"k must be >= 1, got {self.k}")
        if self.k > len(self.alpha):
            raise InputError("-k", f"k={self.k} is larger than |alpha|={len(self.alpha)}")

    @property
    def m(self) -> int:
        return len(self.alpha)

    @property
    def n(self) -> int:
        return len(self.beta)

    @cached_property
    def alpha_codes(self) -> np.ndarray:
        return encode_base(self.alpha, self.alpha_name, self.alpha_name)

    @cached_property
    def beta_codes(self) -> np.ndarray:
        return encode_target(self.beta, self.beta_name, self.beta_name)

    @property
    def last_start(self) -> int:
        """The last start the method computes: m - k + 1 (a shorter suffix is within k - 1 of
        β's empty substring)."""
        return self.m - self.k + 1


@dataclass(frozen=True)
class PrimerResult:
    """``solutions``: (r, e) 1-based inclusive, in order of r. ``cells`` is a property of the
    instance (conventional method with Opt 1); ``comparisons`` is the running solver's count."""

    k: int
    m: int
    n: int
    solutions: tuple[tuple[int, int], ...]
    cells: int
    comparisons: int
    solver: str
    seconds: float = 0.0
    extra: dict = field(default_factory=dict, compare=False)

    def as_dict(self) -> dict:
        return {"k": self.k, "m": self.m, "n": self.n,
                "solutions": [[r, e] for r, e in self.solutions],
                "cells": self.cells, "comparisons": self.comparisons,
                "solver": self.solver, "seconds": self.seconds}


def result_from_prefixes(problem: PrimerProblem, prefixes: np.ndarray, comparisons: int,
                         solver: str, seconds: float = 0.0) -> PrimerResult:
    """The result from ``prefixes[r - 1] = c(r)``, the last row of start r whose minimum is
    <= k - 1, for starts r = 1, 2, ... in order (at least up to the first stop, or all
    m - k + 1; entries after the first stop are ignored, a solver may leave them unset).

    Start r answers e = r + c(r) when r + c(r) <= m; otherwise (c(r) = m - r + 1: the whole
    suffix is within k - 1) it stops. Cells: n * (c + 1) rows per answered start, n * c for
    the stopping one (SPEC-workloads A, Counts)."""
    m, n = problem.m, problem.n
    solutions: list[tuple[int, int]] = []
    rows = 0
    for r in range(1, problem.last_start + 1):
        c = int(prefixes[r - 1])
        if not 0 <= c <= m - r + 1:
            raise ValueError(f"{solver}: prefix c({r}) = {c} outside 0..{m - r + 1}")
        if r + c <= m:
            solutions.append((r, r + c))
            rows += c + 1
        else:
            rows += c
            break
    return PrimerResult(problem.k, m, n, tuple(solutions), n * rows, int(comparisons), solver, seconds)
