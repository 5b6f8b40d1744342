"""Database-search commands: ``sw`` scores protein queries against a database;
``sw-synthetic`` writes the seeded synthetic data sets as FASTA."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from splicedalign.core.commandline import EPILOG, add_output_arguments, add_solver_argument, check_output, write_output
from splicedalign.core.errors import InputError
from splicedalign.workloads.sw.load import load_database, load_queries
from splicedalign.workloads.sw.matrices import MATRICES
from splicedalign.workloads.sw.output import FORMATTERS
from splicedalign.workloads.sw.records import DEFAULT_GAP, Scoring
from splicedalign.workloads.sw.solvers import SOLVERS, search
from splicedalign.workloads.sw.datasets import SETS, write_set

def add_commands(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    sw = sub.add_parser(
        "sw", parents=[common], help="local-alignment database search: Smith-Waterman scores of protein queries",
        description="Score every query record against every database record: the Smith-Waterman score "
                    "max H with a substitution matrix and a linear gap (--gap per gap letter). "
                    "Letters outside the matrix's alphabet are an error; U, O, J read as X.",
        epilog=EPILOG,
    )
    sw.add_argument("--query", required=True, metavar="FASTA", help="protein query record(s); '-' reads stdin")
    sw.add_argument("--db", required=True, metavar="FASTA", help="protein database (FASTA)")
    sw.add_argument("--matrix", default="blosum62", help=f"substitution matrix (default blosum62; known: "
                                                         f"{', '.join(MATRICES)})")
    sw.add_argument("--gap", type=int, default=DEFAULT_GAP, help=f"linear gap cost per letter (default {DEFAULT_GAP})")
    sw.add_argument("--top", type=int, metavar="N", help="report the N best hits per query (default all)")
    add_solver_argument(sw, SOLVERS, default="multicore")
    add_output_arguments(sw, FORMATTERS, "json (one object per query; a list for several) or tsv; hits best first")
    sw.set_defaults(run=_search)

    syn = sub.add_parser("sw-synthetic", parents=[common], help="write a seeded synthetic protein data set (FASTA)",
                         description="Write query and database FASTA files of a synthetic set.", epilog=EPILOG)
    syn.add_argument("set", choices=list(SETS), help="; ".join(f"{k}: {v}" for k, v in SETS.items()))
    syn.add_argument("outdir", type=Path, help="folder to write")
    syn.add_argument("--seed", type=int, default=None, help="random seed, >= 0 (default: the set's own)")
    syn.set_defaults(run=_synthetic)


def _search(args: argparse.Namespace) -> int:
    if args.top is not None and args.top < 1:
        raise InputError("--top", f"must be >= 1, got {args.top}")
    scoring = Scoring(args.matrix, args.gap)
    SOLVERS.entry(args.solver)  # unknown names fail before any reading
    check_output(args.output)
    queries = load_queries(args.query, scoring.matrix)
    db = load_database(args.db, scoring.matrix)
    log = logging.getLogger("splicedalign")
    log.info("%d quer%s against %d sequences (%d residues), solver %s", len(queries),
             "y" if len(queries) == 1 else "ies", len(db), db.residues, args.solver)
    results = [search(q, db, scoring, args.solver) for q in queries]
    write_output(args.output, FORMATTERS[args.format](results, args.top))
    return 0


def _synthetic(args: argparse.Namespace) -> int:
    if args.seed is not None and args.seed < 0:
        raise InputError("--seed", f"must be >= 0, got {args.seed}")
    if args.outdir.exists() and not args.outdir.is_dir():
        raise InputError(str(args.outdir), "exists and is not a folder")
    for path in write_set(args.set, args.outdir, args.seed):
        print(path)
    return 0
