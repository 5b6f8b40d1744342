"""Local-alignment database search (SPEC-workloads C; paper 003, Chang & Chen): the
Smith-Waterman score of a protein query against every sequence of a database, BLOSUM62 and a
linear gap. Solvers: ``reference``, ``sequential``, ``multicore``, ``sw-scan`` (the paper's
GPU design), ``gpu`` (ours), peers ``pyopal`` and ``parasail``.

    from splicedalign.workloads.sw import Database, Query, Scoring, search
"""

from splicedalign.workloads.sw.records import Database, Hit, Query, Scoring, SearchResult
from splicedalign.workloads.sw.solvers import SOLVERS, search

__all__ = ["Database", "Hit", "Query", "Scoring", "SearchResult", "SOLVERS", "search"]
