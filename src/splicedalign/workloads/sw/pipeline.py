"""The sw workload in the pipeline: data -> cases -> one timed record per case x solver ->
tables (per case cells, seconds, GCUPS, speedup vs sequential, peers side by side with "n/a"
when not installed), paper 003's Table III beside the published values, and plots.
Aggregation fails naming the case when two solvers disagree on any score."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from splicedalign.core.logs import log, log_to
from splicedalign.workloads.sw import synthetic
from splicedalign.workloads.sw.bench import Row, add_speedups, check_agreement, measure, paper_table
from splicedalign.workloads.sw.datasets import read_manifest, write_set
from splicedalign.workloads.sw.load import load_database, load_queries
from splicedalign.workloads.sw.records import Scoring

SYNTHETIC_CASES = {"tiny": ["tiny"], "paper": [f"len{n}" for n in synthetic.PAPER_LENGTHS], "scaleup": ["scaleup"]}


def case_files(dataset: str, bundled_manifest: str | Path, data_dir: str) -> dict[str, tuple[str, str]]:
    """{case: (query FASTA, database FASTA)}: the bundled manifest's, or those the synthetic
    set will write into ``data_dir``."""
    if dataset == "bundled":
        return {e.case: (str(e.query), str(e.db)) for e in read_manifest(bundled_manifest)}
    return {c: (f"{data_dir}/{c}.query.fa", f"{data_dir}/{c}.db.fa") for c in SYNTHETIC_CASES[dataset]}


def write_synthetic(dataset: str, seed: int | None, data_dir: str) -> None:
    write_set(dataset, Path(data_dir), seed)


def solver_threads(solver: str, cores: int) -> int:
    """Cores a solve job takes: all for the solvers that use them, else one."""
    return cores if solver in ("multicore", "pyopal") else 1


def solve_job(query: str, db: str, case: str, solver: str, matrix: str, gap: int, repeats: int,
              reference_max_cells: int, out: str, log_path: str) -> None:
    """Time one solver on one case (every query record against the database); write its
    record: one row per query (case "<case>:<query id>" when the file holds several) and
    the scores. A solver that cannot run here gets rows saying why."""
    log_to(log_path)
    scoring = Scoring.linear(gap, matrix)
    queries = load_queries(query, scoring.matrix)
    database = load_database(db, scoring.matrix)
    records = []
    for q in queries:
        name = case if len(queries) == 1 else f"{case}:{q.id}"
        if solver == "reference" and q.length * database.residues > reference_max_cells:
            row, scores = Row(name, solver, len(database), q.length * database.residues, None,
                              note=f"n/a: over reference_max_cells ({reference_max_cells:,})"), None
        else:
            row, scores = measure(name, q, database, solver, repeats, 1, scoring)
        log.info("%s %s: %s", name, solver, row.note or f"{row.seconds:.4g} s, {row.gcups:.3g} GCUPS")
        records.append({"row": row.as_dict(), "scores": None if scores is None else scores.tolist()})
    Path(out).write_text(json.dumps(records))


def aggregate(paths: list[str]) -> pd.DataFrame:
    """Rows of every record, speedups added; raises (naming the case) if scores disagree."""
    rows, scores = [], {}
    for path in paths:
        for rec in json.loads(Path(path).read_text()):
            row = Row(**rec["row"])
            rows.append(row)
            scores.setdefault(row.case, {})[row.solver] = None if rec["scores"] is None else np.array(rec["scores"])
    for case, by_solver in scores.items():
        check_agreement(case, by_solver)
    return pd.DataFrame([r.as_dict() for r in add_speedups(rows)])


def write_tables(paths: list[str], results_tsv: str, table3_md: str) -> None:
    table = aggregate(paths)
    table.to_csv(results_tsv, sep="\t", index=False)
    rows = [Row(**{k: (None if pd.isna(v) else v) for k, v in r.items()}) for r in table.to_dict("records")]
    text = paper_table(rows) if any(r.case.startswith("len") for r in rows) else (
        "Table III needs the `paper` data set (config sw: dataset: paper).\n")
    Path(table3_md).write_text(text)


def plot(results_tsv: str, out_png: str) -> None:
    """GCUPS per solver and case (log scale): the paper set's cases along database length."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = pd.read_csv(results_tsv, sep="\t").dropna(subset=["gcups"])
    fig, ax = plt.subplots(figsize=(7, 4))
    cases = list(dict.fromkeys(table["case"]))
    for solver, part in table.groupby("solver", sort=False):
        x = [cases.index(c) for c in part["case"]]
        ax.plot(x, part["gcups"], marker="o", label=solver)
    ax.set_xticks(range(len(cases)), cases, rotation=30, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("GCUPS (median, host to host)")
    ax.set_title("sw: database search throughput per solver")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_png, dpi=120)
