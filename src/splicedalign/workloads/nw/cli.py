"""``splicedalign nw``: global alignment of two DNA sequences at minimum cost (section B)."""

from __future__ import annotations

import argparse
import logging

from splicedalign.core.commandline import EPILOG, add_output_arguments, add_solver_argument, check_output, write_output
from splicedalign.core.errors import InputError
from splicedalign.core.seqio import FastaRecord, read_fasta, read_single_fasta
from splicedalign.workloads.nw.output import FORMATTERS
from splicedalign.workloads.nw.records import Costs, Pair
from splicedalign.workloads.nw.solvers import SOLVERS

def add_commands(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    default = Costs()
    nw = sub.add_parser(
        "nw", parents=[common], help="global alignment of two DNA sequences at minimum cost (paper 002)",
        description="Minimum-cost global alignment (Needleman-Wunsch): cost = match/mismatch per aligned pair "
                    "plus --indel per gap letter; IUPAC ambiguity codes (N, ...) never match. Prints the cost "
                    "and one optimal alignment as a CIGAR over = X D I (D: a letter of seq1 against a gap, "
                    "I: a letter of seq2 against a gap).",
        epilog=EPILOG)
    inputs = nw.add_mutually_exclusive_group(required=True)
    inputs.add_argument("--seq1", metavar="FASTA", help="first sequence (rows), one FASTA record; '-' reads stdin")
    inputs.add_argument("--pair", metavar="FASTA", help="one FASTA file holding both sequences (two records)")
    nw.add_argument("--seq2", metavar="FASTA", help="second sequence (columns), one FASTA record (with --seq1)")
    nw.add_argument("--match", type=int, default=default.match, help=f"cost of a match (default {default.match})")
    nw.add_argument("--mismatch", type=int, default=default.mismatch,
                    help=f"cost of a mismatch (default {default.mismatch})")
    nw.add_argument("--indel", type=int, default=default.indel,
                    help=f"cost of each gap letter (default {default.indel})")
    nw.add_argument("--score-only", action="store_true", help="the cost only (no alignment; linear memory)")
    add_solver_argument(nw, SOLVERS)
    add_output_arguments(nw, FORMATTERS, "json (everything), tsv (one row), sam or paf (need the alignment); "
                                         "default json")
    nw.set_defaults(run=_nw)


def read_pair(args: argparse.Namespace) -> tuple[FastaRecord, FastaRecord]:
    if args.pair:
        if args.seq2:
            raise InputError("--seq2", "give either --pair or --seq1 and --seq2")
        records = read_fasta(args.pair)
        if len(records) != 2:
            raise InputError(args.pair, f"{len(records)} FASTA records, expected exactly two (seq1, seq2)")
        return records[0], records[1]
    if not args.seq2:
        raise InputError("--seq2", "missing: --seq1 needs --seq2")
    return read_single_fasta(args.seq1), read_single_fasta(args.seq2)


def _nw(args: argparse.Namespace) -> int:
    costs = Costs(args.match, args.mismatch, args.indel)
    solver = SOLVERS.get(args.solver)
    check_output(args.output)
    first, second = read_pair(args)
    pair = Pair.from_strings(first.seq, second.seq, f"{first.id}~{second.id}", first.id, second.id)
    if args.format in ("sam", "paf") and args.score_only:
        raise InputError("--format", f"{args.format} needs the alignment: drop --score-only")
    logging.getLogger("splicedalign").info("nw %s: %d x %d = %d cells, solver %s", pair.name, pair.n, pair.m,
                                           pair.cells, args.solver)
    result = solver.solve(pair, costs, traceback=not args.score_only)
    text = FORMATTERS[args.format](first.id, second.id, second.seq, pair.n, result, costs)
    write_output(args.output, text)
    return 0
