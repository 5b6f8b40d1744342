"""``splicedalign nw``: alignment of DNA sequences at minimum cost (sections B, B2): one pair, or
a batch of pairs (``--pairs``) answered in input order."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence

from splicedalign.core.commandline import EPILOG, add_output_arguments, add_solver_argument, check_output, write_output
from splicedalign.core.errors import InputError, SolverUnavailable
from splicedalign.core.seqio import FastaRecord, read_fasta, read_single_fasta
from splicedalign.gpu import driver
from splicedalign.gpu.devices import add_devices_argument
from splicedalign.workloads.nw.batches import total_cells
from splicedalign.workloads.nw.output import FORMATTERS, Answer
from splicedalign.workloads.nw.pairs import batch_beside, pair_name
from splicedalign.workloads.nw.records import MODES, Costs, Pair
from splicedalign.workloads.nw.solvers import SOLVERS, solve_pairs, solve_pairs_on


def add_commands(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    default = Costs()
    nw = sub.add_parser(
        "nw", parents=[common], help="global / semi-global alignment of DNA sequences at minimum cost (paper 002)",
        description="Minimum-cost alignment (Needleman-Wunsch / Gotoh): cost = match/mismatch per aligned pair "
                    "plus, per gap of L letters, --gap-open + L * --gap-extend (--indel is the gap-extend cost; "
                    "the default gap-open 0 is the paper's linear cost). IUPAC ambiguity codes (N, ...) never "
                    "match. --mode global aligns both whole; prefix aligns all of seq1 with a prefix of seq2; "
                    "infix all of seq1 with any substring of seq2 (edlib's SHW / HW). Prints the cost and one "
                    "optimal alignment as a CIGAR over = X D I (D: a letter of seq1 against a gap, I: a letter "
                    "of seq2 against a gap) with the aligned region of each sequence.",
        epilog=EPILOG)
    inputs = nw.add_mutually_exclusive_group(required=True)
    inputs.add_argument("--seq1", metavar="FASTA", help="first sequence (rows), one FASTA record; '-' reads stdin")
    inputs.add_argument("--pair", metavar="FASTA", help="one FASTA file holding both sequences (two records)")
    inputs.add_argument("--pairs", metavar="FILE",
                        help="a batch: FASTA of consecutive pairs (seq1, seq2, seq1, seq2, ...) or TSV lines "
                             "'seq1<TAB>seq2' or 'id1<TAB>seq1<TAB>id2<TAB>seq2'; answers in input order")
    nw.add_argument("--seq2", metavar="FASTA", help="second sequence (columns), one FASTA record (with --seq1)")
    nw.add_argument("--mode", choices=MODES, default="global",
                    help="global (default), prefix (seq2's trailing letters free) or infix (seq2's leading and "
                         "trailing letters free)")
    nw.add_argument("--match", type=int, default=default.match, help=f"cost of a match (default {default.match})")
    nw.add_argument("--mismatch", type=int, default=default.mismatch,
                    help=f"cost of a mismatch (default {default.mismatch})")
    nw.add_argument("--indel", "--gap-extend", dest="indel", type=int, default=default.indel,
                    help=f"cost of each gap letter (default {default.indel})")
    nw.add_argument("--gap-open", type=int, default=default.gap_open,
                    help=f"cost of opening a gap, paid once per gap (default {default.gap_open}; WFA2's "
                         "affine default is --mismatch 4 --gap-open 6 --gap-extend 2)")
    nw.add_argument("--score-only", action="store_true", help="the cost only (no alignment; linear memory)")
    add_solver_argument(nw, SOLVERS)
    add_devices_argument(nw)
    add_output_arguments(nw, FORMATTERS, "json (everything; an array for --pairs), tsv (one row per pair), "
                                         "sam or paf (need the alignment); default json")
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


def _start(one_gpu: bool) -> None:
    """A fresh process's set-up before the input is read, as ``align``'s (spliced cli): for a GPU
    solver on the default device (``one_gpu``) the CUDA driver, its context and CuPy's libraries on a thread
    (gpu.driver: ctypes lets the interpreter go, so the reading beside it runs at its own speed);
    numba imported lean (core.jit.start: cache loads without the registries, the skipped probes),
    before any compiled call (the batch copy, the GPU's divergence sample, the formats' counter).
    A failure here is left for the solve to report (one line)."""
    if one_gpu:
        driver.start()
    driver.start_numba()


def _nw(args: argparse.Namespace) -> int:
    costs = Costs(args.match, args.mismatch, args.indel, args.gap_open)
    check_output(args.output)
    if args.format in ("sam", "paf") and args.score_only:
        raise InputError("--format", f"{args.format} needs the alignment: drop --score-only")
    if args.pairs and args.seq2:
        raise InputError("--seq2", "give either --pairs or --seq1 and --seq2")
    one_gpu = args.devices is None and SOLVERS.entry(args.solver).gpu  # a GPU solver on the default device
    reading, child = batch_beside(args.pairs) if args.pairs else (None, False)  # (a fork: before any thread)
    _start(one_gpu)
    records = [] if args.pairs else [read_pair(args)]
    solver, unavailable = None, None
    if child:  # the solver (CuPy's import) while the child reads; a bad input said first, as below
        try:
            solver = SOLVERS.get(args.solver)
        except SolverUnavailable as exc:
            unavailable = exc
    pairs: Sequence[Pair]
    if reading is not None:
        allocate = None
        if one_gpu and not child:  # (read here: its buffer page-locked, as a GPU batch copies from it as it is)
            from splicedalign.workloads.nw.gpu.common import pinned_bytes
            allocate = pinned_bytes
        pairs = batch = reading(allocate)
    else:
        pairs = [Pair.from_strings(first.seq, second.seq, pair_name(first.id, second.id), first.id, second.id)
                 for first, second in records]
    if unavailable is not None:
        raise unavailable
    if solver is None:
        solver = SOLVERS.get(args.solver)  # after a reading here: the driver's thread has had it to start CUDA
    logging.getLogger("splicedalign").info(
        "nw: %d pair(s), %d cells, mode %s, solver %s", len(pairs), total_cells(pairs), args.mode, args.solver)
    if args.devices is None:
        results = solve_pairs(solver, pairs, costs, traceback=not args.score_only, mode=args.mode)
    else:  # the pairs split across GPUs, a solver on each
        results = solve_pairs_on(args.devices, args.solver, pairs, costs, not args.score_only, args.mode)
    if reading is None:
        answers = [Answer(first.id, second.id, len(first.seq), len(second.seq), result, second.seq)
                   for (first, second), result in zip(records, results)]
    else:  # (seq2's letters for SAM alone)
        sam = args.format == "sam"
        answers = [Answer(id1, id2, int(n), int(m), result, batch.sequence(2 * k + 1) if sam else None)
                   for k, (id1, id2, n, m, result) in enumerate(zip(batch.ids1, batch.ids2, batch.n, batch.m,
                                                                    results))]
    write_output(args.output, FORMATTERS[args.format](answers, costs, args.mode, bool(args.pairs)))
    return 0
