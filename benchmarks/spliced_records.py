"""Host cost of turning a batch's device traceback into Python records: per-case conversion
(one frozen ``ExonAlignment`` per chain exon, the path ``GpuSolver._traced`` took before) against
``gpu.outputs.chain_alignments_many`` (array work once per batch, records made on first access).

    python benchmarks/spliced_records.py [--cases 1010] [--solved 60] [--repeats 9]

The device outputs are built as ``trace_chains`` lays them out (wavefront.cu; out_case,
out_exon, ops) from real chains: ``--solved`` seeded paper-shaped cases (SPEC §6 shape, small
ones) traced by the CPU ``sequential`` solver, repeated to ``--cases`` cases. Times are the
median of repeats after a warm-up (min-max beside it; old and new alternate), on the host
only.
"""

from __future__ import annotations

import argparse
import os
import pickle
import platform
import time
from collections.abc import Sequence

import numpy as np

from splicedalign.core.timing import time_interleaved
from splicedalign.workloads.spliced import synthetic
from splicedalign.workloads.spliced.backtrack import Traced, exon_records
from splicedalign.workloads.spliced.gpu.outputs import chain_alignments_many
from splicedalign.workloads.spliced.records import OP_INS, ExonAlignment, Result, Scoring, TestCase
from splicedalign.workloads.spliced.solvers import get_solver


def device_outputs(cases: Sequence[TestCase], traced: Sequence[Traced]) -> dict[str, np.ndarray]:
    """What ``trace_chains`` writes for these chains and alignments, and the per-case table
    columns ``chain_alignments_many`` reads: case c's exon slots start at ``heads[c]`` (its K
    exons in (first, last) order), its chain exons at its first slots in trace order (last exon
    first: global slot, j entered, j end, op count), its ops forward at the end of its op region
    (n + min(m, sum of exon lengths) bytes, as plan.trace_inputs sizes it; the rest 0xFF)."""
    K = np.array([c.K for c in cases], dtype=np.int64)
    heads = np.concatenate(([0], np.cumsum(K)[:-1]))
    room = np.array([c.n + min(c.m, c.exon_length_sum) for c in cases], dtype=np.int64)
    ends = np.cumsum(room)
    ops = np.full(int(ends[-1]), 0xFF, dtype=np.uint8)
    out_case = np.empty((len(cases), 2), dtype=np.int32)
    out_exon = np.full((int(K.sum()), 4), -1, dtype=np.int32)
    for c, (case, (_, alignment)) in enumerate(zip(cases, traced)):
        position = np.argsort(case.order)  # input index -> position in (first, last) order
        lead = len(alignment[0].ops) - len(alignment[0].ops.lstrip(bytes([OP_INS])))
        rows = [(heads[c] + position[a.index], lead if i == 0 else a.target_start - 1, a.target_end,
                 len(a.ops) - (lead if i == 0 else 0)) for i, a in enumerate(alignment)]
        out_exon[heads[c]:heads[c] + len(rows)] = rows[::-1]
        path = b"".join(a.ops for a in alignment)
        ops[ends[c] - len(path):ends[c]] = np.frombuffer(path, dtype=np.uint8)
        out_case[c] = len(rows), len(path)
    return {"heads": heads, "ends": ends, "out_case": out_case.ravel(), "out_exon": out_exon.ravel(), "ops": ops}


def old_conversion(cases: Sequence[TestCase], heads: np.ndarray, ends: np.ndarray, out_case: np.ndarray,
                   out_exon: np.ndarray, ops: np.ndarray) -> list[tuple]:
    """The baseline, as ``GpuSolver._traced`` and ``chain_alignment`` did it (commit ac99080):
    per case, a tuple of frozen ``ExonAlignment`` records. Kept here only to be timed and to
    check the new path against."""
    lengths, totals = out_case.reshape(-1, 2).T.tolist()
    slots = out_exon.reshape(-1, 4)
    heads, ends = heads.tolist(), ends.tolist()
    data = ops.tobytes()
    out = []
    for c, case in enumerate(cases):
        a, length = heads[c], lengths[c]
        pos, entered, stop, counts = slots[a:a + length][::-1].T.tolist()
        path = data[ends[c] - totals[c]:ends[c]]
        positions = [p - a for p in pos]
        index = case.order[positions].tolist()
        first = case.first_sorted[positions].tolist()
        last = case.last_sorted[positions].tolist()
        alignment = []
        at = 0
        for i in range(len(index)):
            stop_at = at + int(counts[i]) + (int(entered[0]) if i == 0 else 0)
            alignment.append(ExonAlignment(index[i], first[i], last[i], 1 if i == 0 else int(entered[i]) + 1,
                                           int(stop[i]), path[at:stop_at]))
            at = stop_at
        assert at == len(path)
        out.append((tuple(index), tuple(alignment)))
    return out


def new_conversion(cases: Sequence[TestCase], heads: np.ndarray, ends: np.ndarray, out_case: np.ndarray,
                   out_exon: np.ndarray, ops: np.ndarray) -> list[Traced]:
    """What ``GpuSolver._traced`` calls now, with the batch's exon records made here on every
    call (GpuSolver makes them once per planned batch)."""
    lengths, totals = out_case.reshape(-1, 2).T
    return list(zip(*chain_alignments_many(exon_records(cases), heads, lengths, totals, out_exon.reshape(-1, 4), ends,
                                           ops)))


def results(cases: Sequence[TestCase], traced: Sequence[tuple]) -> list[Result]:
    """Results as ``GpuSolver._results`` forms them (its per-case work besides the records)."""
    return [Result(case=case.name, solver="gpu", score=0, cells=0, seconds=0.0, chain=chain, alignment=alignment,
                   extra={"seconds_score": 0.0, "seconds_traceback": 0.0, "batch_cases": 0, "batch_seconds_score": 0})
            for case, (chain, alignment) in zip(cases, traced)]


def workload(cases: int, solved: int, seed: int = 2012) -> tuple[list[TestCase], list[Traced]]:
    """``solved`` small paper-shaped cases traced by ``sequential``, repeated to ``cases``."""
    paper = synthetic.paper_set(seed)
    rng = np.random.default_rng(seed)
    pick = [i for i in rng.permutation(len(paper)) if paper[i].cells < 3e7][:solved]
    solver = get_solver("sequential")
    traced = [(r.chain, r.alignment) for r in (solver.solve(paper[i], Scoring()) for i in pick)]
    return [paper[pick[i % solved]] for i in range(cases)], [traced[i % solved] for i in range(cases)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=synthetic.PAPER_CASES)
    ap.add_argument("--solved", type=int, default=60, help="distinct cases traced on the CPU")
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    t0 = time.perf_counter()
    cases, traced = workload(args.cases, args.solved)
    out = device_outputs(cases, traced)
    print(f"# {len(cases)} cases ({args.solved} distinct, traced by sequential), "
          f"{sum(len(a) for _, a in traced)} chain exons, {int(out['out_case'][1::2].sum())} ops; "
          f"inputs built in {time.perf_counter() - t0:.1f} s")
    print(f"# host: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, NumPy {np.__version__}; median of {args.repeats} after a warm-up")
    old, new = old_conversion(cases, **out), new_conversion(cases, **out)
    assert old == new, "new records differ from old"

    def cigars(traced: list) -> None:  # what a writer does: every record and its CIGAR
        for _, alignment in traced:
            for a in alignment:
                a.cigar  # noqa: B018

    def round_trip(traced: list) -> None:  # what a process pool does with a batch's Results
        pickle.loads(pickle.dumps(results(cases, traced)))

    rows = [  # (work, old, new)
        ("records", lambda: old_conversion(cases, **out), lambda: new_conversion(cases, **out)),
        ("records + Results", lambda: results(cases, old_conversion(cases, **out)),
         lambda: results(cases, new_conversion(cases, **out))),
        ("records + every CIGAR (a writer)", lambda: cigars(old_conversion(cases, **out)),
         lambda: cigars(new_conversion(cases, **out))),
        ("Results pickled and back", lambda: round_trip(old), lambda: round_trip(new)),
    ]
    print(f"{'work':<34} {'old ms':>8} {'(min-max)':>15} {'new ms':>8} {'(min-max)':>15} {'speed-up':>8}")
    for name, old_fn, new_fn in rows:
        timed = time_interleaved({"old": old_fn, "new": new_fn}, args.repeats)  # alternating: load hits both
        t_old, t_new = timed["old"][0], timed["new"][0]
        print(f"{name:<34} {t_old.median * 1e3:8.2f} {f'({t_old.min * 1e3:.2f}-{t_old.max * 1e3:.2f})':>15} "
              f"{t_new.median * 1e3:8.2f} {f'({t_new.min * 1e3:.2f}-{t_new.max * 1e3:.2f})':>15} "
              f"{t_old.median / t_new.median:7.1f}x")

if __name__ == "__main__":
    main()
