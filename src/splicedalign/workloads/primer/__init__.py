"""The k-difference primer problem (Feuser & Moreano, papers/001; SPEC-workloads A): for every
start r of α, the shortest substring α[r..e] at edit distance >= k from every substring of β."""

from splicedalign.workloads.primer.records import PrimerProblem, PrimerResult
from splicedalign.workloads.primer.solvers import SOLVERS, get_solver, solve

__all__ = ["PrimerProblem", "PrimerResult", "SOLVERS", "get_solver", "solve"]
