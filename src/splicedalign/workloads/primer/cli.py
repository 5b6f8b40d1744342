"""``splicedalign primer``: the k-difference primer problem for two FASTA records."""

from __future__ import annotations

import argparse
import logging

from splicedalign.core.commandline import EPILOG, add_output_arguments, add_solver_argument, check_output, write_output
from splicedalign.core.seqio import read_single_fasta
from splicedalign.workloads.primer.output import FORMATTERS
from splicedalign.workloads.primer.records import PrimerProblem
from splicedalign.workloads.primer.solvers import SOLVERS


def add_commands(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "primer", parents=[common],
        help="k-difference primer problem: shortest substrings of alpha >= k edits from beta",
        description="For every start r of alpha, the shortest substring alpha[r..e] whose edit distance to every "
                    "substring of beta is at least k (Feuser & Moreano); stops at the first start that has none. "
                    "Positions are 1-based inclusive; IUPAC ambiguity letters never match.",
        epilog=EPILOG,
    )
    p.add_argument("--alpha", required=True, metavar="FASTA",
                   help="where primers are sought (e.g. a pathogen region), one FASTA record; '-' reads stdin")
    p.add_argument("--beta", required=True, metavar="FASTA",
                   help="what they must not bind (e.g. the host region), one FASTA record; '-' reads stdin")
    p.add_argument("-k", type=int, required=True, metavar="K", help="minimum number of differences (1 <= K <= |alpha|)")
    add_solver_argument(p, SOLVERS)
    add_output_arguments(p, FORMATTERS, "json (k, m, n, solutions, cells, comparisons, solver, seconds), tsv "
                        "(one row per solution with its substring) or bed (intervals on alpha's record); "
                        "default json")
    p.set_defaults(run=_primer)


def load_problem(alpha_path: str, beta_path: str, k: int) -> PrimerProblem:
    alpha = read_single_fasta(alpha_path)
    beta = read_single_fasta(beta_path)
    return PrimerProblem(alpha.seq, beta.seq, k, alpha.id or "alpha", beta.id or "beta")


def _primer(args: argparse.Namespace) -> int:
    solver = SOLVERS.get(args.solver)
    check_output(args.output)
    problem = load_problem(args.alpha, args.beta, args.k)
    logging.getLogger("splicedalign").info("primer: m=%d n=%d k=%d, solver %s", problem.m, problem.n, problem.k,
                                           args.solver)
    result = solver.solve(problem)
    text = FORMATTERS[args.format](problem, result)
    write_output(args.output, text)
    return 0
