"""Exact spliced alignment (Gelfand, Mironov & Pevzner 1996) on CPUs and GPUs.

The contract every solver follows is the recurrence of SPEC §2: for a base sequence,
candidate exons on it and a target (cDNA), find the chain of non-overlapping exons whose
concatenation aligns best (global alignment) to the whole target.
"""

from splicedalign.case import Exon, Result, Scoring, TestCase
from splicedalign.solvers import available_solvers, get_solver, solve, solve_many

__all__ = [
    "Exon",
    "Result",
    "Scoring",
    "TestCase",
    "available_solvers",
    "get_solver",
    "solve",
    "solve_many",
]
__version__ = "0.1.0"
