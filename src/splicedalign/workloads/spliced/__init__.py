"""Spliced alignment (Gelfand, Mironov & Pevzner 1996; papers 000/004; SPEC.md): the chain of
candidate exons of a base sequence whose concatenation best aligns to a target cDNA."""

from splicedalign.workloads.spliced.records import Exon, Result, Scoring, TestCase
from splicedalign.workloads.spliced.solvers import SOLVERS, get_solver, solve, solve_many

__all__ = ["Exon", "Result", "SOLVERS", "Scoring", "TestCase", "get_solver", "solve", "solve_many"]
