"""segments.py's own host work (``segmented``: the seams, certificate, merges, bookkeeping; and the CIGAR's text)
on issue 26's single pairs, with the pieces' answers replayed: each case's pieces are solved once by
``cpu_pieces`` (the CPU WFA), recorded with their runs laid out as the GPU's (``gpu_shaped``), and handed back in
the same order by a replaying solver, so the timed calls solve nothing: the medians are ``segmented``'s host
logic alone (the GPU solver's per-round plan, uploads and launches are not in them). The band is
``GpuSolver.try_segments``' (SEGMENTS_SLACK times the optimum, standing in for the sample), and so is its
speculation rule. A table last: per case and mode the rounds, merges, pieces solved, and the medians (of
--repeats) of ``segmented`` and of the CIGAR's text (``runs_cigar(Segmented.runs())``) in ms.

  python3 scripts/bench_nw_segments_host.py --cases 100000-1 30368-10 100000-5 --modes global prefix
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from splicedalign.workloads.nw import segments, wfa
from splicedalign.workloads.nw.cigar import runs_cigar
from splicedalign.workloads.nw.gpu import band as bands
from splicedalign.workloads.nw.gpu import solver as solver_module
from splicedalign.workloads.nw.records import Costs, Pair, cigar_cost
from splicedalign.workloads.nw.synthetic import ISSUE26_COSTS, case_pair


def gpu_shaped(pieces: segments.Pieces, r0: np.ndarray, r1: np.ndarray, rate: float, g: int) -> segments.Pieces:
    """``pieces`` with their runs laid out as ``WfaSolver.solve_pieces`` returns them: room for 2 max_steps + 4
    runs a piece (max_steps as ``GpuSolver.try_segments`` sets it), piece k's at k times that."""
    steps = segments.piece_caps(rate, int((r1 - r0).max()), g)[0]
    each = 2 * steps + 4
    assert int(pieces.used.max()) <= each
    runs = np.zeros(pieces.score.size * each, np.uint32)
    first = np.arange(pieces.score.size, dtype=np.int64) * each
    for k in range(pieces.score.size):
        runs[first[k]:first[k] + pieces.used[k]] = pieces.runs[pieces.first[k]:pieces.first[k] + pieces.used[k]]
    return segments.Pieces(pieces.score, pieces.start, pieces.end, runs, first, pieces.used)


def measure(name: str, pair: Pair, costs: Costs, mode: str, repeats: int) -> str:
    """The table's row of one case and mode."""
    best = wfa.wfa_align(pair.a, pair.b, costs, mode, False, 1 << 62)
    assert best is not None
    g = wfa.reduced_costs(costs)[0]
    width = bands.width_needed(int(solver_module.SEGMENTS_SLACK * best.score) + 1, costs, mode, pair.n, pair.m)
    rate = best.score / max(pair.n, pair.m)
    speculate = solver_module.speculates(pair.n, rate, g)
    solve = segments.cpu_pieces(pair, costs)
    recorded: list[tuple[np.ndarray, segments.Pieces]] = []
    at = [0]

    def record(r0: np.ndarray, r1: np.ndarray, c0: np.ndarray, c1: np.ndarray) -> segments.Pieces:
        recorded.append((r0.copy(), gpu_shaped(solve(r0, r1, c0, c1), r0, r1, rate, g)))
        return recorded[-1][1]

    def replay(r0: np.ndarray, r1: np.ndarray, c0: np.ndarray, c1: np.ndarray) -> segments.Pieces:
        asked, pieces = recorded[at[0]]
        assert r0.size == asked.size and r0[-1] == asked[-1]
        at[0] += 1
        return pieces

    trace = segments.Trace()
    got = segments.segmented(pair.n, pair.m, costs, mode, width, record, trace=trace, speculate=speculate)
    if got is None:
        return f"| {name} | {mode} | gave up: {trace.why} | | | | |"
    assert got.score == best.score, (got.score, best.score)
    cigar = runs_cigar(got.runs())
    assert cigar_cost(cigar, pair.a, pair.b, costs, 0, got.end2) == got.score
    seg_ms, text_ms = [], []
    for _ in range(repeats):
        at[0] = 0
        t0 = time.perf_counter()
        again = segments.segmented(pair.n, pair.m, costs, mode, width, replay, speculate=speculate)
        t1 = time.perf_counter()
        assert again is not None
        text = runs_cigar(again.runs())
        t2 = time.perf_counter()
        assert again.score == got.score and text == cigar
        seg_ms.append((t1 - t0) * 1e3)
        text_ms.append((t2 - t1) * 1e3)
    return (f"| {name} | {mode} | {trace.rounds} | {trace.merges} | {trace.solved} | "
            f"{statistics.median(seg_ms):.4f} | {statistics.median(text_ms):.4f} |")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", nargs="+", default=["100000-1", "30368-10", "100000-5"])
    parser.add_argument("--modes", nargs="+", default=["global"], choices=segments.MODES)
    parser.add_argument("--costs", default="linear", choices=sorted(ISSUE26_COSTS))
    parser.add_argument("--repeats", type=int, default=300)
    args = parser.parse_args()
    costs = ISSUE26_COSTS[args.costs]
    rows = ["| case | mode | rounds | merges | solved | segmented ms | text ms |", "|---|---|---|---|---|---|---|"]
    for name in args.cases:
        pair = case_pair(name)
        rows += [measure(name, pair, costs, mode, args.repeats) for mode in args.modes]
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
