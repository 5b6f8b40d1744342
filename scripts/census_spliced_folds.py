"""A paper set's score launch as planned (CPU only, no GPU used): its tasks by kind (strips, fold
tasks, folds written by entry rows, folds with no row: plan.py's module doc) and the longest
dependency path through its tasks (in tasks, and how many of them folds), overall and of its
longest chain (the K = 622 cases end the paper set's kernel: docs/gpu.md). A task's path is one
more than the longest of its inputs' writers' (a row written by an exon's first strip as its
entry row counts as that strip's). Run it with each tree's ``src`` to compare plans:
    PYTHONPATH=src python3 scripts/census_spliced_folds.py --seeds 2012 7132700 6784610
"""

from __future__ import annotations

import argparse

import numpy as np

from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu import plan as gpu_plan
from splicedalign.workloads.spliced.gpu.flat import FlatCases
from splicedalign.workloads.spliced.synthetic import paper_set

F = {name: i for i, name in enumerate(gpu_plan.TASK_FIELDS)}
INPUTS = [F[name] for name in ("in_row", "in2_row", "in3_row") if name in F]


def longest_paths(tasks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per task (launch order, a topological order): the tasks and the folds on the longest
    dependency path ending at it."""
    writer = {int(r): i for i, r in enumerate(tasks[:, F["out_row"]])}
    entry = np.flatnonzero(tasks[:, F["entry_row"]] != gpu_plan.NONE)
    writer.update({int(tasks[i, F["entry_row"]]): int(i) for i in entry})
    fold = tasks[:, F["kind"]] == gpu_plan.KIND_FOLD
    length, folds = np.zeros(len(tasks), np.int64), np.zeros(len(tasks), np.int64)
    for i, rec in enumerate(tasks[:, INPUTS].tolist()):
        best = -1
        for r in rec:
            if r != gpu_plan.NONE:
                w = writer[r]
                if best < 0 or length[w] > length[best]:
                    best = w
        length[i] = 1 + (length[best] if best >= 0 else 0)
        folds[i] = fold[i] + (folds[best] if best >= 0 else 0)
    return length, folds


def census(seed: int) -> dict:
    flat = FlatCases.of(paper_set(seed))
    config = launch.configure(flat, "int", True, False, True)
    plan = gpu_plan.build_plan(flat, config.rows_per_lane, config.floors, config.late, config.entry)
    tasks = plan.tasks
    fold = tasks[:, F["kind"]] == gpu_plan.KIND_FOLD
    # folds some strip or fold reads, per case: max p_k - 1 (plan._exon_order)
    every = int(sum(max(int(plan.p[a:b].max()) - 1, 0) for a, b in zip(plan.exon_start[:-1], plan.exon_start[1:])))
    entries = int((tasks[:, F["entry_row"]] != gpu_plan.NONE).sum())
    length, folds = longest_paths(tasks)
    K = np.diff(plan.exon_start)
    longest = int(np.argmax(K))
    case_of_task = np.empty(len(tasks), np.int64)  # each strip's case; folds by their exon's
    exon_case = np.repeat(np.arange(len(K)), K)
    strip_exon = np.repeat(np.arange(len(plan.strip_start) - 1), np.diff(plan.strip_start))
    case_of_task[:] = -1
    case_of_task[plan.strip_task] = exon_case[strip_exon]
    mine = np.flatnonzero(case_of_task == longest)
    end = mine[np.argmax(length[mine])]
    top = int(np.argmax(length))
    return {"seed": seed, "cases": len(flat), "strips": int((~fold).sum()), "fold tasks": int(fold.sum()),
            "entry folds": entries, "no row": every - int(fold.sum()) - entries, "folds": every,
            "path": int(length[top]), "path folds": int(folds[top]), "K": int(K[longest]),
            "chain path": int(length[end]), "chain path folds": int(folds[end])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[2012])
    args = ap.parse_args()
    rows = [census(s) for s in args.seeds]
    keys = list(rows[0])
    print(" | ".join(keys))
    for r in rows:
        print(" | ".join(str(r[k]) for k in keys))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
