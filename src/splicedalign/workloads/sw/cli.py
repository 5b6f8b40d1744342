"""Database-search commands: ``sw`` searches protein queries against a database (hits with
E-values and alignments); ``sw-makedb`` prepares a database; ``sw-synthetic`` writes the seeded
synthetic data sets as FASTA."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from splicedalign.core.commandline import (
    EPILOG,
    add_gpu_memory_argument,
    add_output_arguments,
    add_solver_argument,
    check_output,
    write_output,
)
from splicedalign.core.errors import InputError
from splicedalign.gpu.devices import add_devices_argument
from splicedalign.workloads.sw import prepared
from splicedalign.workloads.sw.datasets import SETS, write_set
from splicedalign.workloads.sw.load import load_database, load_queries, read_database_fasta
from splicedalign.workloads.sw.matrices import MATRICES
from splicedalign.workloads.sw.output import FORMATTERS
from splicedalign.workloads.sw.records import Scoring
from splicedalign.workloads.sw.solvers import DEFAULT_EVALUE, DEFAULT_TOP, SOLVERS, search_many, search_many_on
from splicedalign.workloads.sw.statistics import KARLIN

DEFAULTS = "; ".join(f"{m.upper()} {v[2][0]}/{v[2][1]}" for m, v in KARLIN.items())


def add_commands(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    sw = sub.add_parser(
        "sw", parents=[common], help="local-alignment database search: protein queries against a database",
        description="Search every query record against every database record: Smith-Waterman scores with a "
                    "substitution matrix and affine gaps in BLAST's convention (a gap of length L costs "
                    "open + L * extend), the best hits with E-value, bit score and one optimal alignment "
                    "each. 'sw-makedb FASTA' prepares a database once. Letters outside the matrix's alphabet "
                    "are an error; U, O, J read as X.",
        epilog=EPILOG,
    )
    sw.add_argument("--query", required=True, metavar="FASTA",
                    help="protein query record(s), all searched in one call; '-' reads stdin")
    sw.add_argument("--db", required=True, metavar="FASTA",
                    help="protein database: FASTA (plain or .gz) or a prepared folder (sw-makedb); a fresh "
                         "FASTA.swdb beside the FASTA is used automatically")
    sw.add_argument("--matrix", default="blosum62", type=str.lower,
                    help=f"substitution matrix (default blosum62; known: {', '.join(MATRICES)})")
    sw.add_argument("--gap-open", type=int, metavar="O",
                    help=f"gap open cost o (BLAST convention; default the matrix's BLAST default: {DEFAULTS})")
    sw.add_argument("--gap-extend", type=int, metavar="E", help="gap extension cost e per letter (default as above)")
    sw.add_argument("--gap", type=int, metavar="G",
                    help="a linear gap instead: G per gap letter (open 0, extend G; paper 003 uses 4)")
    sw.add_argument("--top", type=int, metavar="N", default=DEFAULT_TOP,
                    help=f"report at most N hits per query (default {DEFAULT_TOP})")
    sw.add_argument("--evalue", type=float, metavar="E", default=DEFAULT_EVALUE,
                    help=f"report hits with E-value at most E (default {DEFAULT_EVALUE:g})")
    add_solver_argument(sw, SOLVERS, default="multicore")
    add_gpu_memory_argument(sw)
    add_devices_argument(sw)
    add_output_arguments(sw, FORMATTERS, "json (one object per query; a list for several), tsv (one line per "
                                         "hit) or blast-tab (BLAST's 12 -outfmt 6 columns); hits best first")
    sw.set_defaults(run=_search)

    mk = sub.add_parser("sw-makedb", parents=[common],
                        help="prepare a protein database for sw (encoded, length-sorted)",
                        description="Encode a protein FASTA (plain or .gz) once into a folder that sw opens in "
                                    "well under a second (default FASTA.swdb beside it, used automatically).",
                        epilog=EPILOG)
    mk.add_argument("fasta", help="protein database FASTA")
    mk.add_argument("-o", "--output", type=Path, help="folder to write (default FASTA.swdb)")
    mk.set_defaults(run=_makedb)

    syn = sub.add_parser("sw-synthetic", parents=[common], help="write a seeded synthetic protein data set (FASTA)",
                         description="Write query and database FASTA files of a synthetic set.", epilog=EPILOG)
    syn.add_argument("set", choices=list(SETS), help="; ".join(f"{k}: {v}" for k, v in SETS.items()))
    syn.add_argument("outdir", type=Path, help="folder to write")
    syn.add_argument("--seed", type=int, default=None, help="random seed, >= 0 (default: the set's own)")
    syn.add_argument("--force", action="store_true", help="overwrite a data set already in OUTDIR")
    syn.set_defaults(run=_synthetic)


def scoring_of(args: argparse.Namespace) -> Scoring:
    if args.gap is not None:
        if args.gap_open is not None or args.gap_extend is not None:
            raise InputError("--gap", "give either --gap (linear) or --gap-open/--gap-extend (affine), not both")
        return Scoring.linear(args.gap, args.matrix)
    base = Scoring.blast(args.matrix)
    return Scoring(args.matrix, base.gap_open if args.gap_open is None else args.gap_open,
                   base.gap_extend if args.gap_extend is None else args.gap_extend)


def _search(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise InputError("--top", f"must be >= 1, got {args.top}")
    if not args.evalue > 0:
        raise InputError("--evalue", f"must be > 0, got {args.evalue}")
    scoring = scoring_of(args)
    SOLVERS.entry(args.solver)  # unknown names fail before any reading
    check_output(args.output)
    queries = load_queries(args.query, scoring.matrix)
    db = load_database(args.db, scoring.matrix)
    log = logging.getLogger("splicedalign")
    log.info("%d quer%s against %d sequences (%d residues), %s, solver %s", len(queries),
             "y" if len(queries) == 1 else "ies", len(db), db.residues, scoring.describe(), args.solver)
    if not scoring.karlin.gapped:
        log.warning("BLAST has no gapped statistics for %s: E-values and bit scores use its ungapped lambda, K",
                    scoring.describe())
    solver = SOLVERS.get(args.solver)
    if hasattr(solver, "memory_cap"):
        solver.memory_cap = args.gpu_memory
    if args.devices is None:
        results = search_many(queries, db, scoring, solver, args.top, args.evalue)
    else:  # the queries split across GPUs, the database searched on each
        results = search_many_on(args.devices, args.solver, queries, db, scoring, args.top, args.evalue,
                                 args.gpu_memory)
    write_output(args.output, FORMATTERS[args.format](results))
    return 0


def _makedb(args: argparse.Namespace) -> int:
    fasta = Path(args.fasta)
    db = read_database_fasta(fasta)
    folder = prepared.save(db, args.output or fasta.with_name(fasta.name + prepared.SUFFIX),
                           None if args.fasta == "-" else fasta)
    print(folder)
    print(f"{len(db):,} sequences, {db.residues:,} residues", file=sys.stderr)
    return 0


def _synthetic(args: argparse.Namespace) -> int:
    if args.seed is not None and args.seed < 0:
        raise InputError("--seed", f"must be >= 0, got {args.seed}")
    if args.outdir.exists() and not args.outdir.is_dir():
        raise InputError(str(args.outdir), "exists and is not a folder")
    if (args.outdir / "cases.tsv").exists() and not args.force:
        raise InputError(str(args.outdir), "already holds a data set (cases.tsv); choose another folder or add --force")
    for path in write_set(args.set, args.outdir, args.seed):
        print(path)
    return 0
