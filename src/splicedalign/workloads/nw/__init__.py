"""Global alignment of two long DNA sequences at minimum cost (Needleman-Wunsch as in paper 002,
Johnson; SPEC-workloads section B): the score and one optimal alignment as a CIGAR."""

from splicedalign.workloads.nw.records import Costs, Pair, Result, cigar_cost
from splicedalign.workloads.nw.solvers import SOLVERS, solve

__all__ = ["Costs", "Pair", "Result", "SOLVERS", "cigar_cost", "solve"]
