"""Command line: ``splicedalign align`` solves one test case; ``synthetic`` writes data sets;
``stats`` prints the model's numbers for a case without solving it."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from splicedalign import __version__
from splicedalign.case import Scoring
from splicedalign.dataset import SYNTHETIC, write_synthetic
from splicedalign.errors import InputError
from splicedalign.io import exon_formats, load_case
from splicedalign.output import FORMATTERS
from splicedalign.progress import log_to
from splicedalign.solvers import SolverUnavailable, available_solvers, get_solver

EXIT_INPUT, EXIT_UNAVAILABLE = 2, 3


def _case_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--base", required=True, metavar="FASTA",
                   help="base (genomic) sequence, one FASTA record; '-' reads stdin")
    p.add_argument("--exons", required=True, metavar="FILE",
                   help="candidate exons: a TSV whose header has 'first' and 'last' (1-based, inclusive, "
                        "forward strand; other columns are kept), or another --exon-format")
    p.add_argument("--target", required=True, metavar="FASTA",
                   help="target (cDNA/mRNA of a homologous gene), one FASTA record; '-' reads stdin")
    p.add_argument("--exon-format", default="tsv", metavar="FMT",
                   help="format of --exons (default tsv; known now: %(choices_text)s)")
    p.add_argument("--name", help="case name in the output (default: BASE_ID~TARGET_ID)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="splicedalign",
        description="Exact spliced alignment (Gelfand's algorithm): finds the chain of candidate exons "
                    "of a base sequence whose concatenation best aligns (global alignment) to a target "
                    "cDNA, i.e. a gene model, with CPU and GPU solvers.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress messages on stderr")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    align = sub.add_parser(
        "align", help="align one test case (base + candidate exons + target)",
        description="Find the best chain of candidate exons for a target and report its score, the chain "
                    "(the gene model) and its alignment. Scores: match/mismatch per aligned letter pair, "
                    "minus --gap per gap letter; IUPAC ambiguity codes (N, ...) never match.",
        epilog="exit status: 0 ok, 2 bad input (one line on stderr names file, line and problem), "
               "3 solver unavailable here (e.g. a GPU solver without a GPU).",
    )
    _case_arguments(align)
    align.add_argument("--solver", default="sequential",
                       help=f"solver (default sequential; one of: {', '.join(available_solvers())})")
    align.add_argument("--match", type=int, default=1, help="score of a match (default 1)")
    align.add_argument("--mismatch", type=int, default=-1, help="score of a mismatch (default -1)")
    align.add_argument("--gap", type=int, default=2, help="cost of each gap letter, subtracted (default 2)")
    align.add_argument("--score-only", action="store_true", help="skip the traceback (no chain or alignment)")
    align.add_argument("--format", choices=sorted(FORMATTERS), default="json",
                       help="json (everything), tsv (one row per chain exon) or gff3 (gene model); default json")
    align.add_argument("-o", "--output", default="-", metavar="FILE", help="output file (default stdout)")

    stats = sub.add_parser("stats", help="model numbers of a case (cells, groups, estimates) without solving",
                           description="Print cells, groups and the estimation model's units (SPEC §3-4) as JSON.")
    _case_arguments(stats)

    syn = sub.add_parser("synthetic", help="write a synthetic data set (manifest + FASTA + exon tables)",
                         description="Write a seeded synthetic data set in the data-set layout (cases.tsv manifest).")
    syn.add_argument("set", choices=list(SYNTHETIC),
                     help="tiny (a few small cases), paper (1,010 cases shaped like the paper's), "
                          "il1rapl1 (one 2.17 Mbp case)")
    syn.add_argument("outdir", type=Path, help="folder to write")
    syn.add_argument("--seed", type=int, help="random seed (default: the set's own fixed seed)")
    for p in (align, stats):
        for action in p._actions:
            if action.dest == "exon_format":
                action.help = action.help.replace("%(choices_text)s", ", ".join(exon_formats()))
    return parser


def _write_output(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w") as handle:
            handle.write(text)


def _align(args: argparse.Namespace) -> int:
    scoring = Scoring(args.match, args.mismatch, args.gap)
    if args.score_only and args.format == "gff3":
        raise InputError("--format", "gff3 needs the gene model: drop --score-only")
    case = load_case(args.base, args.exons, args.target, args.exon_format, args.name)
    solver = get_solver(args.solver)
    logging.getLogger("splicedalign").info(
        "%s: m=%d n=%d K=%d cells=%d, solver %s", case.name, case.m, case.n, case.K, case.cells, args.solver)
    result = solver.solve(case, scoring, traceback=not args.score_only)
    text = FORMATTERS[args.format](case, result, scoring)
    _write_output(args.output, text)
    return 0


def _stats(args: argparse.Namespace) -> int:
    from splicedalign.model import case_stats

    case = load_case(args.base, args.exons, args.target, args.exon_format, args.name)
    print(json.dumps({"case": case.name, "m": case.m, "n": case.n,
                      **case_stats(case.n, case.first_sorted, case.last_sorted)}, indent=2))
    return 0


def _synthetic(args: argparse.Namespace) -> int:
    print(write_synthetic(args.set, args.outdir, args.seed))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    log_to(None, logging.WARNING if args.quiet else logging.INFO, "splicedalign: %(message)s")
    try:
        return {"align": _align, "stats": _stats, "synthetic": _synthetic}[args.command](args)
    except InputError as exc:
        print(f"splicedalign: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except SolverUnavailable as exc:
        print(f"splicedalign: error: {exc}", file=sys.stderr)
        return EXIT_UNAVAILABLE


if __name__ == "__main__":
    sys.exit(main())
