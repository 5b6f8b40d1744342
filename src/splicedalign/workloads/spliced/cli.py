"""Spliced-alignment commands: ``align`` solves test cases (many targets, or a manifest, in
one batch; both strands); ``stats`` prints the estimation model's numbers for a case without
solving it; ``synthetic`` writes data sets."""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from splicedalign.core import forked
from splicedalign.core.commandline import (
    EPILOG,
    add_gpu_memory_argument,
    add_output_arguments,
    add_solver_argument,
    check_output,
    write_output,
)
from splicedalign.core.errors import InputError
from splicedalign.gpu import driver
from splicedalign.gpu.devices import add_devices_argument
from splicedalign.workloads.spliced.datasets import SYNTHETIC, manifest_rows, write_synthetic
from splicedalign.workloads.spliced.exons import exon_formats
from splicedalign.workloads.spliced.exons.strand import STRAND_CHOICES, best_per_strand_set
from splicedalign.workloads.spliced.load import CaseFiles, load_cases
from splicedalign.workloads.spliced.output import FORMATTERS, Solved
from splicedalign.workloads.spliced.records import TARGET_ENDS, CaseSet, CaseSetMaker, Scoring
from splicedalign.workloads.spliced.solvers import SOLVERS, solve_many


def _case_arguments(p: argparse.ArgumentParser, many: bool) -> None:
    targets = ("target(s): cDNA/mRNA of a homologous gene; several records give one result each"
               if many else "target (cDNA/mRNA of a homologous gene), one FASTA record")
    p.add_argument("--base", metavar="FASTA",
                   help="base (genomic) sequence, one FASTA record (.gz read too); '-' reads stdin")
    p.add_argument("--exons", metavar="FILE",
                   help="candidate exons: a TSV whose header has 'first' and 'last' (1-based, inclusive, "
                        "forward-strand coordinates) and optionally 'strand' (+ or -; other columns are "
                        "kept), or another --exon-format")
    p.add_argument("--target", metavar="FASTA", help=f"{targets}; '-' reads stdin")
    p.add_argument("--exon-format", default="tsv", metavar="FMT",
                   help=f"format of --exons (default tsv; known: {', '.join(exon_formats())})")
    p.add_argument("--name", help="case name in the output (default: BASE_ID~TARGET_ID)")
    p.add_argument("--strand", choices=list(STRAND_CHOICES), default="both" if many else "plus",
                   help="which strand's candidate exons to use: each strand is solved on its own "
                        "orientation (reverse-complemented base for minus) and "
                        + ("the better-scoring strand's model is reported (default both)" if many
                           else "its numbers printed (default plus)"))


def add_commands(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    default = Scoring()
    align = sub.add_parser(
        "align", parents=[common], help="spliced alignment: base + candidate exons + target(s), or a manifest of cases",
        description="Find the best chain of candidate exons for a target and report its score, the chain "
                    "(the gene model) and its alignment. Scores: match/mismatch per aligned letter pair, "
                    "minus --gap per gap letter; IUPAC ambiguity codes (N, ...) never match.",
        epilog=EPILOG,
    )
    _case_arguments(align, many=True)
    align.add_argument("--manifest", metavar="TSV",
                       help="solve every case of a data-set manifest (cases.tsv, see docs/data.md; a row with "
                            "exon_strand uses that strand only) instead of --base/--exons/--target; one output "
                            "holds all")
    add_solver_argument(align, SOLVERS)
    add_gpu_memory_argument(align)
    add_devices_argument(align)
    align.add_argument("--match", type=int, default=default.match, help=f"score of a match (default {default.match})")
    align.add_argument("--mismatch", type=int, default=default.mismatch,
                       help=f"score of a mismatch (default {default.mismatch})")
    align.add_argument("--gap", type=int, default=default.gap,
                       help=f"cost of each gap letter, subtracted (default {default.gap})")
    align.add_argument("--target-ends", choices=list(TARGET_ENDS), default=default.target_ends,
                       help="global (default, the paper's objective): every target letter is aligned, leading and "
                            "trailing ones against gaps; free: leading and trailing target letters (untranslated "
                            "ends no candidate exon covers) may stay unaligned at no cost")
    align.add_argument("--shift-window", type=int, default=0, metavar="BP",
                       help="richer candidates: also every exon with its splice boundaries (a start after AG, "
                            "an end before GT/GC that is no stop codon) moved to GT/GC donors and AG acceptors "
                            "within BP bases, keeping an open frame; duplicates dropped (default 0: the exons "
                            "as given; 3 catches NAGNAG acceptors, wider windows overfit divergent targets)")
    align.add_argument("--score-only", action="store_true", help="skip the traceback (no chain or alignment)")
    add_output_arguments(align, FORMATTERS,
                         "json (everything), tsv (one row per chain exon) or gff3 (gene model); default json")
    align.set_defaults(run=_align)

    stats = sub.add_parser("stats", parents=[common],
                           help="model numbers of a spliced case (cells, groups, estimates) without solving",
                           description="Print cells, groups and the estimation model's units (SPEC §3-4) as JSON.")
    _case_arguments(stats, many=False)
    stats.set_defaults(run=_stats)

    syn = sub.add_parser("synthetic", parents=[common],
                         help="write a synthetic spliced data set (manifest + FASTA + exon tables)",
                         description="Write a seeded synthetic data set in the data-set layout (cases.tsv manifest).")
    syn.add_argument("set", choices=list(SYNTHETIC),
                     help="tiny (a few small cases), paper (1,010 cases shaped like the paper's), "
                          "il1rapl1 (one 2.17 Mbp case)")
    syn.add_argument("outdir", type=Path, help="folder to write")
    syn.add_argument("--seed", type=int, help="random seed, >= 0 (default: the set's own fixed seed)")
    syn.add_argument("--force", action="store_true", help="overwrite a data set already in OUTDIR")
    syn.set_defaults(run=_synthetic)


def _cases(args: argparse.Namespace, strands: tuple[str, ...]) -> CaseSet:
    """The cases named on the command line: --manifest, or --base/--exons/--target, with their
    columns (records.CaseSetMaker: the solver's split reads no case object)."""
    files = {"--base": args.base, "--exons": args.exons, "--target": args.target}
    if getattr(args, "manifest", None):
        given = [flag for flag, value in files.items() if value]
        if given:
            raise InputError("align", f"give --manifest or {', '.join(files)}, not both ({given[0]} given)")
        made, reader = CaseSetMaker(), CaseFiles()  # each base and exon table read once
        rows, shift = manifest_rows(args.manifest), getattr(args, "shift_window", 0)
        for case, base, exons, target, exon_format, strand in zip(rows.cases, rows.base, rows.exons, rows.target,
                                                                   rows.formats, rows.strands):
            on = strands if strand is None else tuple(s for s in strands if s == strand)
            if on:
                made.add(reader.cases(base, exons, target, exon_format, case, on, shift))
        if not len(made):
            raise InputError(args.manifest, f"no case with candidate exons on strand(s) {', '.join(strands)}")
        return made.made()
    missing = [flag for flag, value in files.items() if not value]
    if missing:
        raise InputError(args.command, f"missing {', '.join(missing)} (or give --manifest)"
                         if hasattr(args, "manifest") else f"missing {', '.join(missing)}")
    return load_cases(args.base, args.exons, args.target, args.exon_format, args.name, strands,
                      getattr(args, "shift_window", 0))


def _read_beside(args: argparse.Namespace, strands: tuple[str, ...]) -> Callable[[], CaseSet]:
    """The cases: for a manifest in a fresh process (numba not imported yet), read in a forked
    child process while this one loads its solver (core.forked); on the H100 host the reading
    took 0.19-0.23 s and numba's import with its registries 0.48-0.51 s, each holding the
    interpreter. Else read now (a bad input is said before any set-up). Returns the function
    that gives them."""
    if not getattr(args, "manifest", None) or "numba" in sys.modules:
        cases = _cases(args, strands)
        return lambda: cases
    return forked.start(lambda: _cases(args, strands))


def _start_driver(args: argparse.Namespace) -> None:
    """For a GPU solver on the default device: the CUDA libraries CuPy's import loads, the
    driver and the context started on a thread while the solver loads (gpu.driver: ctypes lets
    the interpreter go, so the work beside it runs at its own speed)."""
    if getattr(args, "devices", None) is None and SOLVERS.entry(args.solver).gpu:
        driver.start()


def _load_solver(args: argparse.Namespace) -> None:
    """A fresh process's one-time set-up for the solver (while a child process reads the input,
    or after the reading): numba imported and its implementations loaded (core.jit, without what
    it probes for and splicedalign does not use), then the solver's module. Not on a thread beside
    the reading: numba's import, CuPy's and the reading all hold the interpreter, and a reader
    that gives it up at each of its ~6,000 system calls waits a switch interval to get it back
    from a busy thread (on the H100 host the reading took 1.2 s beside such set-up threads against
    0.19-0.23 s alone, and a fresh ``align --solver gpu`` 2.34 s against 2.09-2.20 s with every
    step in turn). A failure here is left for the solve to report (one line)."""
    module = SOLVERS.entry(args.solver).target.split(":")[0]
    driver.start_numba()
    try:
        importlib.import_module(module)
    except Exception:  # noqa: BLE001 - the solve meets it again and says why
        pass


def _align(args: argparse.Namespace) -> int:
    scoring = Scoring(args.match, args.mismatch, args.gap, args.target_ends)
    if args.score_only and args.format == "gff3":
        raise InputError("--format", "gff3 needs the gene model: drop --score-only")
    check_output(args.output)
    reading = _read_beside(args, STRAND_CHOICES[args.strand])  # before any thread starts (a fork)
    _start_driver(args)
    _load_solver(args)
    cases = reading()
    solver = SOLVERS.get(args.solver)
    if getattr(args, "gpu_memory", None) is not None and hasattr(solver, "memory_cap"):
        solver.memory_cap = args.gpu_memory  # the GPU memory it may take at most
    log = logging.getLogger("splicedalign")
    each = logging.INFO if len(cases) <= 4 else logging.DEBUG  # a line per case for a few; the summary for many
    for case in cases if log.isEnabledFor(each) else ():  # (a case's cells sort its exons: not for nothing)
        log.log(each, "%s (%s strand): m=%d n=%d K=%d cells=%d", case.name, case.strand, case.m, case.n, case.K,
                case.cells)
    if log.isEnabledFor(logging.INFO):
        log.info("%d case(s), %d cells, solver %s", len(cases), cases.columns.cells().sum(), args.solver)
    if args.devices is None:
        results = solver.solve_many(cases, scoring, traceback=not args.score_only)
    else:  # the cases split across GPUs, a solver on each
        results = solve_many(cases, scoring, args.solver, not args.score_only, args.devices, args.gpu_memory)
    solved = [Solved(case, result, scores) for case, result, scores in best_per_strand_set(cases, results)]
    write_output(args.output, FORMATTERS[args.format](solved, scoring))
    return 0


def _stats(args: argparse.Namespace) -> int:
    from splicedalign.workloads.spliced.estimate import case_stats_of

    cases = _cases(args, STRAND_CHOICES[args.strand])
    recs = [{"case": c.name, "strand": c.strand, "m": c.m, "n": c.n,
             **case_stats_of(c)} for c in cases]
    print(json.dumps(recs[0] if len(recs) == 1 else recs, indent=2))
    return 0


def _synthetic(args: argparse.Namespace) -> int:
    if args.seed is not None and args.seed < 0:
        raise InputError("--seed", f"must be >= 0, got {args.seed}")
    out = args.outdir
    if out.exists() and not out.is_dir():
        raise InputError(str(out), "exists and is not a folder; give a folder to write the data set into")
    if (out / "cases.tsv").exists() and not args.force:
        raise InputError(str(out), "already holds a data set (cases.tsv); choose another folder or add --force")
    print(write_synthetic(args.set, out, args.seed))
    return 0
