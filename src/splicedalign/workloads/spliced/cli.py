"""Spliced-alignment commands: ``align`` solves a test case; ``stats`` prints the estimation
model's numbers for a case without solving it; ``synthetic`` writes data sets."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced.datasets import SYNTHETIC, write_synthetic
from splicedalign.workloads.spliced.exons import exon_formats
from splicedalign.workloads.spliced.load import load_case
from splicedalign.workloads.spliced.output import FORMATTERS
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import SOLVERS


def _case_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--base", required=True, metavar="FASTA",
                   help="base (genomic) sequence, one FASTA record; '-' reads stdin")
    p.add_argument("--exons", required=True, metavar="FILE",
                   help="candidate exons: a TSV whose header has 'first' and 'last' (1-based, inclusive, "
                        "forward strand; other columns are kept), or another --exon-format")
    p.add_argument("--target", required=True, metavar="FASTA",
                   help="target (cDNA/mRNA of a homologous gene), one FASTA record; '-' reads stdin")
    p.add_argument("--exon-format", default="tsv", metavar="FMT",
                   help=f"format of --exons (default tsv; known: {', '.join(exon_formats())})")
    p.add_argument("--name", help="case name in the output (default: BASE_ID~TARGET_ID)")


def add_commands(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    default = Scoring()
    align = sub.add_parser(
        "align", parents=[common], help="spliced alignment of one test case (base + candidate exons + target)",
        description="Find the best chain of candidate exons for a target and report its score, the chain "
                    "(the gene model) and its alignment. Scores: match/mismatch per aligned letter pair, "
                    "minus --gap per gap letter; IUPAC ambiguity codes (N, ...) never match.",
        epilog="exit status: 0 ok, 2 bad input (one line on stderr names file, line and problem), "
               "3 solver unavailable here (e.g. a GPU solver without a GPU).",
    )
    _case_arguments(align)
    align.add_argument("--solver", default="sequential",
                       help=f"solver (default sequential; one of: {', '.join(SOLVERS.names())})")
    align.add_argument("--match", type=int, default=default.match, help=f"score of a match (default {default.match})")
    align.add_argument("--mismatch", type=int, default=default.mismatch,
                       help=f"score of a mismatch (default {default.mismatch})")
    align.add_argument("--gap", type=int, default=default.gap,
                       help=f"cost of each gap letter, subtracted (default {default.gap})")
    align.add_argument("--score-only", action="store_true", help="skip the traceback (no chain or alignment)")
    align.add_argument("--format", choices=sorted(FORMATTERS), default="json",
                       help="json (everything), tsv (one row per chain exon) or gff3 (gene model); default json")
    align.add_argument("-o", "--output", default="-", metavar="FILE", help="output file (default stdout)")
    align.set_defaults(run=_align)

    stats = sub.add_parser("stats", parents=[common],
                           help="model numbers of a spliced case (cells, groups, estimates) without solving",
                           description="Print cells, groups and the estimation model's units (SPEC §3-4) as JSON.")
    _case_arguments(stats)
    stats.set_defaults(run=_stats)

    syn = sub.add_parser("synthetic", parents=[common],
                         help="write a synthetic spliced data set (manifest + FASTA + exon tables)",
                         description="Write a seeded synthetic data set in the data-set layout (cases.tsv manifest).")
    syn.add_argument("set", choices=list(SYNTHETIC),
                     help="tiny (a few small cases), paper (1,010 cases shaped like the paper's), "
                          "il1rapl1 (one 2.17 Mbp case)")
    syn.add_argument("outdir", type=Path, help="folder to write")
    syn.add_argument("--seed", type=int, help="random seed (default: the set's own fixed seed)")
    syn.set_defaults(run=_synthetic)


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
    solver = SOLVERS.get(args.solver)
    case = load_case(args.base, args.exons, args.target, args.exon_format, args.name)
    logging.getLogger("splicedalign").info(
        "%s: m=%d n=%d K=%d cells=%d, solver %s", case.name, case.m, case.n, case.K, case.cells, args.solver)
    result = solver.solve(case, scoring, traceback=not args.score_only)
    text = FORMATTERS[args.format](case, result, scoring)
    _write_output(args.output, text)
    return 0


def _stats(args: argparse.Namespace) -> int:
    from splicedalign.workloads.spliced.estimate import case_stats

    case = load_case(args.base, args.exons, args.target, args.exon_format, args.name)
    print(json.dumps({"case": case.name, "m": case.m, "n": case.n,
                      **case_stats(case.n, case.first_sorted, case.last_sorted)}, indent=2))
    return 0


def _synthetic(args: argparse.Namespace) -> int:
    print(write_synthetic(args.set, args.outdir, args.seed))
    return 0
