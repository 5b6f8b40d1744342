"""Cells and steps the recomputing walks (wavefront.cu, trace_chains) sweep on a never-seen paper set,
from column 0 (as shipped) against column checkpoints every CKB column blocks (plan.py, "Column
checkpoints": a sweep from checkpoint_start at the strip's rows and CHECKPOINT_MARGIN left of the
path's column, backing off, the distance doubled, where the path leaves the swept columns).

No GPU: the paths are the CPU solver's traceback (multicore), the strips those of the paper set's
traced throughput launch as planned (launch.configure, plan.build_plan), the followed long chains
left out (a follower records their moves). Per sweep: cells = strip rows x columns swept, steps =
columns swept / COLS + 31 - the strip's head lane (a warp's sweep of a strip; its time is about
its steps). Prints per seed the costliest walk, p99, median and sum of cells and steps.

    PYTHONPATH=src python3 scripts/model_spliced_checkpoints.py --seeds 2091000 2092000 --ckb 16 64 128
"""

from __future__ import annotations

import argparse

import numpy as np

from splicedalign.workloads.spliced import solvers
from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu.flat import FlatCases
from splicedalign.workloads.spliced.gpu.plan import (
    CHECKPOINT_MARGIN,
    COLS,
    TASK_FIELDS,
    WARP,
    build_plan,
    checkpoint_start,
    score_ctype,
)
from splicedalign.workloads.spliced.records import OP_DEL, OP_INS, Scoring
from splicedalign.workloads.spliced.synthetic import paper_sets

ROWS, LANE_ROWS = TASK_FIELDS.index("rows"), TASK_FIELDS.index("lane_rows")


def walk_cells(strips: list[tuple[int, int]], path: list[tuple[int, int]], ckb: int) -> tuple[int, int, int]:
    """(cells, steps, back-offs) of one exon's recomputing sweeps: ``strips`` (rows, head lane)
    top to bottom, ``path`` the cells (r, jj) whose moves the walk reads, in walk order (r > 0,
    jj > 0); ckb 0: every sweep from column 0."""
    cells = steps = backoffs = 0
    lo, s, c0, distance = sum(r for r, _ in strips), len(strips), 0, 0
    rows = head = 0
    for r, jj in path:
        fresh = False
        while r <= lo:  # the strip holding row r (entered: swept at its first read)
            s -= 1
            rows, head = strips[s]
            lo -= rows
            fresh, c0, distance = True, 0, rows + CHECKPOINT_MARGIN
        if not fresh and jj >= c0:
            continue
        if not fresh:
            distance *= 2
            backoffs += 1
        c0 = checkpoint_start(jj, distance, ckb) if ckb else 0
        cells += rows * (jj - c0 + 1)
        steps += (jj - c0) // COLS + 1 + WARP - 1 - head
    return cells, steps, backoffs


def exon_path(ops: bytes, rows: int, j_end: int) -> list[tuple[int, int]]:
    """The cells (r, jj), r > 0 and jj > 0, whose moves a walk reads from (rows, j_end) back to row 0."""
    out, r, jj = [], rows, j_end
    for op in reversed(ops):
        if r == 0:
            break  # leading target letters against gaps, on the chain-start row
        if jj > 0:
            out.append((r, jj))
        r -= op != OP_INS
        jj -= op != OP_DEL
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, nargs="+", default=[2091000, 2092000])
    ap.add_argument("--ckb", type=int, nargs="+", default=[16, 64, 128], help="column blocks per checkpoint")
    args = ap.parse_args()
    scoring = Scoring()
    tuning = launch.TUNING
    for seed in args.seeds:
        cases = paper_sets(1, seed)
        flat = FlatCases.of(cases)
        ctype = score_ctype(int(flat.m.max()), int(flat.n.max()), scoring, WARP * tuning.rows_per_lane)
        config = launch.configure(flat, ctype, True, True, True, tuning, free_ends=False)
        assert config.recompute, "not a recomputing launch"
        plan = build_plan(flat, config.rows_per_lane, config.floors, config.late, config.entry)
        results = solvers.get_solver("multicore").solve_many(cases, scoring, traceback=True)
        followed = set(config.followed)
        table = {ckb: [] for ckb in [0, *args.ckb]}
        for c, (case, result) in enumerate(zip(cases, results)):
            if c in followed:
                continue
            position = {int(i): k for k, i in enumerate(case.order)}  # input index -> the plan's exon slot
            totals = {ckb: np.zeros(3, np.int64) for ckb in table}
            for a in result.alignment:
                e = plan.exon_start[c] + position[a.index]
                tasks = plan.tasks[plan.strip_task[plan.strip_start[e]:plan.strip_start[e + 1]]]
                strips = [(int(t[ROWS]), (WARP * int(t[LANE_ROWS]) - int(t[ROWS])) // int(t[LANE_ROWS])) for t in tasks]
                path = exon_path(bytes(a.ops), a.last - a.first + 1, a.target_end)
                for ckb in table:
                    totals[ckb] += walk_cells(strips, path, ckb)
            for ckb in table:
                table[ckb].append(totals[ckb])
        print(f"seed {seed}: {len(cases)} cases, {len(followed)} followed (left out); rows per lane "
              f"{config.rows_per_lane}, margin {CHECKPOINT_MARGIN} columns")
        print(f"{'sweeps from':>24} | {'max cells M':>11} {'p99':>7} {'median':>7} {'sum':>8} | "
              f"{'max steps k':>11} {'p99':>7} {'sum M':>7} | back-offs | max cells less")
        full = np.array(table[0])
        for ckb, rows in table.items():
            a = np.array(rows)
            name = "column 0" if ckb == 0 else f"CKB {ckb} ({ckb * COLS} cols)"
            print(f"{name:>24} | {a[:, 0].max() / 1e6:11.2f} {np.percentile(a[:, 0], 99) / 1e6:7.2f} "
                  f"{np.median(a[:, 0]) / 1e6:7.3f} {a[:, 0].sum() / 1e6:8.0f} | {a[:, 1].max() / 1e3:11.1f} "
                  f"{np.percentile(a[:, 1], 99) / 1e3:7.1f} {a[:, 1].sum() / 1e6:7.2f} | {a[:, 2].sum():9d} | "
                  f"{full[:, 0].max() / a[:, 0].max():.1f}x")


if __name__ == "__main__":
    main()
