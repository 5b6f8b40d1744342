"""The benchmark pipeline's steps, shared by the Snakemake rules and a plain command line.

Layout under a results folder ``R`` (Snakemake uses ``results/spliced/{name}``, the name of
the data set actually run, see ``results_name``):
``R/cases.tsv`` (run manifest: the data set's manifest after the case filter, plus m, n, K,
cells), ``R/cases/{case}/{solver}.json`` (one timed solve), ``R/batch/{solver}.json`` (the
whole set through ``solve_many``), ``R/tables/*.tsv`` and ``R/plots/*.{png,svg}``.

Without Snakemake (e.g. on a GPU machine), the same steps run as

    python -m splicedalign.workloads.spliced.pipeline solve  --manifest M --out R [--solvers auto|a,b] [--repeats 3]
    python -m splicedalign.workloads.spliced.pipeline report --out R

``solve`` needs only NumPy/numba (and CuPy for GPU solvers); ``report`` needs pandas and
matplotlib, so records made on one machine can be reported on another.
"""

from __future__ import annotations

import argparse
import csv
import functools
import hashlib
import json
import logging
import multiprocessing
import os
import re
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from splicedalign.core.errors import InputError
from splicedalign.core.logs import log_to
from splicedalign.core.machine import cpu_model
from splicedalign.gpu.device import device_info, unavailable_reason
from splicedalign.workloads.spliced.bench import REFERENCE_MAX_CELLS, case_record, solver_applies, timed_batch
from splicedalign.workloads.spliced.datasets import (
    MANIFEST_COLUMNS,
    CaseEntry,
    manifest_row,
    read_manifest,
    write_manifest,
)
from splicedalign.workloads.spliced.load import CaseFiles
from splicedalign.workloads.spliced.records import CaseSet, CaseSetMaker, Scoring
from splicedalign.workloads.spliced.solvers import SOLVERS

log = logging.getLogger("splicedalign")

RUN_COLUMNS = (*MANIFEST_COLUMNS, "m", "n", "K", "cells")
PLAN_FILE = "solvers.json"  # the standalone runner's record of what it ran, for ``report``


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


def results_name(dataset: str, *, manifest: str | Path | None = None, bundled: str | Path | None = None,
                 synthetic_set: str | None = None, seed: int | None = None,
                 genes: Sequence[str] = (), candidate_exons: str = "manifest") -> str:
    """The results folder's name: it names the data set actually run, so two data sets never
    share (or overwrite) one folder.

    ``bundled`` for the shipped manifest (``manifest`` resolving to ``bundled``); another
    manifest gives ``manifest-{its folder}-{hash of its path}``; synthetic sets
    ``synthetic-{set}`` (``-seed{seed}`` unless the set's own seed); NCBI ``ncbi-{genes}``
    (a hash beyond three genes); ``-genscan`` when GENSCAN gives the candidate exons.
    """
    if dataset == "bundled":
        path = Path(manifest).resolve()
        if bundled is not None and path == Path(bundled).resolve():
            name = "bundled"
        else:
            digest = hashlib.sha1(str(path).encode()).hexdigest()[:8]
            name = f"manifest-{_slug(path.parent.name)}-{digest}"
    elif dataset == "synthetic":
        name = f"synthetic-{synthetic_set}" + ("" if seed is None else f"-seed{seed}")
    elif dataset == "ncbi":
        listed = "-".join(_slug(g) for g in genes[:3])
        if len(genes) > 3:
            listed += "-" + hashlib.sha1("\t".join(genes).encode()).hexdigest()[:8]
        name = f"ncbi-{listed}"
    else:
        raise ValueError(f"unknown data set {dataset!r}")
    return name + ("-genscan" if candidate_exons == "genscan" else "")


def check_plan(dataset: str, manifest: str | Path | None, include: Sequence[str] = (),
               candidate_exons: str = "manifest", genscan_binary: str | None = None,
               genscan_parameters: str | None = None) -> None:
    """What planning can check before any job runs, as InputError naming the config key or the
    file: a data set's manifest when it exists before the run (``manifest``; None for data sets
    the run makes), the case filter's names against it, and GENSCAN's inputs (its binary and
    parameter file, or reports the data set ships in a manifest column ``genscan``)."""
    entries = None
    if manifest is not None:
        try:
            entries = read_manifest(manifest)
        except InputError as exc:
            raise InputError("config key spliced.bundled.manifest", str(exc)) from None
    if include and entries is not None:
        unknown = [c for c in dict.fromkeys(include) if c not in {e.case for e in entries}]
        if unknown:
            known = [e.case for e in entries]
            raise InputError("config key spliced.cases.include",
                             f"{', '.join(unknown)}: not a case of {manifest} (its cases: {', '.join(known[:4])}"
                             f"{', ...' if len(known) > 4 else ''})")
    if candidate_exons != "genscan":
        return
    if (genscan_binary is None) != (genscan_parameters is None):
        raise InputError("config key spliced.genscan", "set both binary and parameters (GENSCAN and its "
                         "parameter file, e.g. HumanIso.smat), or neither to use reports the data set ships")
    if genscan_binary is not None:
        if not os.access(genscan_binary, os.X_OK) or os.path.isdir(genscan_binary):
            raise InputError("config key spliced.genscan.binary", f"{genscan_binary}: not an executable file")
        if not os.path.isfile(genscan_parameters):
            raise InputError("config key spliced.genscan.parameters", f"{genscan_parameters}: file not found")
        return
    without = ([e.case for e in entries if not e.extra.get("genscan")] if entries is not None
               else [f"the {dataset} data set"])
    if without:
        raise InputError("config key spliced.candidate_exons", "genscan needs GENSCAN (spliced.genscan.binary "
                         "and .parameters: the user's own licensed copy) or GENSCAN reports shipped with the "
                         f"data set (manifest column 'genscan'); none for {without[0]}"
                         + (f" ({manifest})" if entries is not None else ""))


def set_threads(threads: int) -> None:
    """Let numba's parallel kernels (the multicore solver) use ``threads`` cores."""
    import numba

    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))


def write_run_manifest(source: str | Path, out: str | Path, include: Sequence[str] = (),
                       max_cells: int | None = None, limit: int | None = None) -> list[dict[str, Any]]:
    """Validate every case of ``source`` (loading it), apply the case filter, write the run
    manifest at ``out`` with paths relative to its folder; returns its rows."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    entries = read_manifest(source)
    if include:
        unknown = sorted(set(include) - {e.case for e in entries})
        if unknown:
            raise InputError("config key spliced.cases.include", f"{', '.join(unknown)}: not a case of {source}")
        entries = [e for e in entries if e.case in set(include)]
    rows = []
    for e in entries:
        case = e.load()
        if max_cells is not None and case.cells > max_cells:
            continue
        rows.append(manifest_row(e, out.parent, m=case.m, n=case.n, K=case.K, cells=case.cells))
        if limit is not None and len(rows) >= limit:
            break
    if not rows:
        raise InputError("config key spliced.cases", f"the case filter leaves no case of {source}")
    write_manifest(out, rows, RUN_COLUMNS[len(MANIFEST_COLUMNS):])
    log.info("%d case(s), %d cells: %s", len(rows), sum(r["cells"] for r in rows), out)
    return rows


def read_run_manifest(path: str | Path) -> list[dict[str, Any]]:
    with open(path, newline="") as handle:
        return [{**r, "cells": int(r["cells"])} for r in csv.DictReader(handle, delimiter="\t")]


def _modified(path: str | Path) -> tuple[str, int]:
    return str(path), os.stat(path).st_mtime_ns


@functools.lru_cache(maxsize=8)
def _run_rows(path: str, mtime_ns: int) -> tuple[dict[str, Any], ...]:
    return tuple(read_run_manifest(path))


@functools.lru_cache(maxsize=8)
def _entries(path: str, mtime_ns: int) -> dict[str, CaseEntry]:
    return {e.case: e for e in read_manifest(path)}


@functools.lru_cache(maxsize=8)
def _case_files(path: str, mtime_ns: int) -> dict[str, tuple[str, ...]]:
    return {e.case: tuple(os.path.normpath(f) for f in (e.base, e.target, e.exons, e.true_exons)
                          if f is not None)
            for e in _entries(path, mtime_ns).values()}


def run_rows(path: str | Path) -> tuple[dict[str, Any], ...]:
    """The run manifest's rows, read once per version of the file (Snakemake asks per job)."""
    return _run_rows(*_modified(path))


def case_files(path: str | Path) -> dict[str, tuple[str, ...]]:
    """{case: its data files} of a manifest, read once per version of the file."""
    return _case_files(*_modified(path))


def plan(rows: Iterable[dict[str, Any]], solvers: Sequence[str], auto: bool,
         reference_max_cells: int = REFERENCE_MAX_CELLS) -> dict[str, list[str]]:
    """{solver: cases it runs on}, in manifest order."""
    rows = list(rows)
    return {s: [r["case"] for r in rows if solver_applies(s, r["cells"], auto, reference_max_cells)]
            for s in solvers}


def load_cases(manifest: str | Path, names: Iterable[str] | None = None) -> CaseSet:
    """The manifest's cases (only ``names``, in manifest order, when given), with their columns
    (records.CaseSetMaker: a batch job's split reads no case object). The manifest is read once
    per version of the file: the pipeline's jobs load one case each from it."""
    wanted = None if names is None else set(names)
    files = CaseFiles()  # a shared base read once
    return CaseSetMaker(e.load(files) for e in _entries(*_modified(manifest)).values()
                        if wanted is None or e.case in wanted).made()


def case_json(root: str | Path, case: str, solver: str) -> Path:
    return Path(root) / "cases" / case / f"{solver}.json"


def batch_json(root: str | Path, solver: str) -> Path:
    return Path(root) / "batch" / f"{solver}.json"


def write_json(obj: Any, path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(obj, indent=1) + "\n")


def read_json(path: str | Path) -> Any:
    return json.loads(Path(path).read_text())


@functools.cache
def device_name(solver: str) -> str:
    """What runs ``solver`` here, recorded with its timings so the tables name the machine:
    the GPU's name for a GPU solver, else the CPU model and the CPUs the process may use."""
    if solver in SOLVERS.gpu_names():
        return device_info()["name"]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cpu_model()} ({cpus} CPUs)"


def _with_device(rec: dict[str, Any], solver: str) -> dict[str, Any]:
    return {**rec, "device": device_name(solver)} if rec.get("available", True) else rec


def solve_case(manifest: str | Path, case: str, solver: str, scoring: Scoring, repeats: int,
               traceback: bool, out: str | Path) -> dict[str, Any]:
    """Time one case × solver and write its record."""
    found = load_cases(manifest, [case])
    if not found:
        raise ValueError(f"case {case!r} is not in {manifest}")
    rec = _with_device(case_record(solver, found[0], scoring, repeats, traceback), solver)
    write_json(rec, out)
    return rec


def solve_batch(manifest: str | Path, cases: Sequence[str], solver: str, scoring: Scoring, repeats: int,
                traceback: bool, out: str | Path) -> dict[str, Any]:
    """Time the whole set (``cases``) through the solver's batch API and write the record."""
    loaded = load_cases(manifest, cases)
    log.info("batch %s: %d case(s), %d cells", solver, len(loaded), loaded.columns.cells().sum())
    rec = _with_device(timed_batch(solver, loaded, scoring, repeats, traceback), solver)
    write_json(rec, out)
    return rec


@contextmanager
def thread_log(path: str | Path) -> Iterator[None]:
    """Send the package's messages from this thread to ``path`` while the block runs.

    A process may run several jobs at once in threads (Snakemake's ``run:`` jobs); each job
    keeps its own log because the handler only takes records made by the job's thread.
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, mode="w")
    handler.setFormatter(logging.Formatter("%(asctime)s pid %(process)d %(levelname)s %(message)s"))
    ident = threading.get_ident()
    handler.addFilter(lambda record: record.thread == ident)
    if log.getEffectiveLevel() > logging.INFO:
        log.setLevel(logging.INFO)
    log.addHandler(handler)
    try:
        yield
    except Exception:
        log.exception("failed")
        raise
    finally:
        log.removeHandler(handler)
        handler.close()


_SOLVER_PROCESSES: dict[str | None, ProcessPoolExecutor] = {}
_SOLVER_PROCESS_LOCK = threading.Lock()


def solver_process(device: str | None = None) -> ProcessPoolExecutor:
    """The process that runs the timing jobs of this pipeline run, started by the first and
    reused: a job costs no interpreter start or kernel loading, and its timed solves do not
    share an interpreter with Snakemake, whose scheduler holds the GIL for tens of milliseconds
    between jobs (in-thread solves of a few ms spread up to 40x). On a node with several GPUs a
    GPU job's ``device`` (its slot, a CUDA_VISIBLE_DEVICES entry: splicedalign.gpu.slots) has a
    process of its own that sees that device only, so GPU jobs on different devices run at once."""
    with _SOLVER_PROCESS_LOCK:
        if device not in _SOLVER_PROCESSES:
            _SOLVER_PROCESSES[device] = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                initializer=None if device is None else _see_only, initargs=() if device is None else (device,))
        return _SOLVER_PROCESSES[device]


def _see_only(device: str) -> None:
    os.environ["CUDA_VISIBLE_DEVICES"] = device  # before anything in this process starts CUDA


def _in_solver_process(job: Any, log_path: str | Path, threads: int, *args: Any) -> None:
    with thread_log(log_path):
        set_threads(threads)
        try:
            job(*args)
        except Exception as exc:  # the error's own class may not survive pickling back
            raise RuntimeError(f"{type(exc).__name__}: {exc} (see {log_path})") from None


def _run_case(manifest: str | Path, case: str, solver: str, scoring: Mapping[str, int], repeats: int,
              traceback: bool, out: str | Path) -> None:
    solve_case(manifest, case, solver, Scoring.from_mapping(scoring), repeats, traceback, out)


def _run_batch(manifest: str | Path, solver: str, auto: bool, reference_max_cells: int,
               scoring: Mapping[str, int], repeats: int, traceback: bool, out: str | Path) -> None:
    cases = plan(run_rows(manifest), [solver], auto, reference_max_cells)[solver]
    solve_batch(manifest, cases, solver, Scoring.from_mapping(scoring), repeats, traceback, out)


def case_job(manifest: str | Path, case: str, solver: str, scoring: Mapping[str, int], repeats: int,
             traceback: bool, threads: int, out: str | Path, log_path: str | Path,
             device: str | None = None) -> None:
    """Rule ``spliced_case``: one timed case × solver in the solver process (``device``'s when
    given), its own log."""
    solver_process(device).submit(_in_solver_process, _run_case, log_path, threads, manifest, case, solver,
                            dict(scoring), repeats, traceback, out).result()


def batch_job(manifest: str | Path, solver: str, auto: bool, reference_max_cells: int,
              scoring: Mapping[str, int], repeats: int, traceback: bool, threads: int,
              out: str | Path, log_path: str | Path, device: str | None = None) -> None:
    """Rule ``spliced_batch``: the solver's planned cases in one batch, in the solver process
    (``device``'s when given)."""
    solver_process(device).submit(_in_solver_process, _run_batch, log_path, threads, manifest, solver, auto,
                            reference_max_cells, dict(scoring), repeats, traceback, out).result()


def report(manifest: str | Path, records: Iterable[str | Path], batches: Iterable[str | Path],
           solvers: Sequence[str], unavailable: dict[str, str], tables: str | Path,
           plots: str | Path | None = None) -> None:
    """Tables (and figures when ``plots`` is given) from the record files."""
    # pandas and matplotlib only here: `solve` runs on GPU nodes without them
    from splicedalign.workloads.spliced.report import aggregate
    from splicedalign.workloads.spliced.report.plots import draw_all

    recs = [read_json(p) for p in records]
    out = aggregate(load_cases(manifest), recs, solvers, tables, [read_json(p) for p in batches], unavailable)
    if plots is not None:
        draw_all(out["cases"], out["parallelism"], solvers, plots)


def _solve_all(args: argparse.Namespace) -> None:
    root = Path(args.out)
    rows = write_run_manifest(args.manifest, root / "cases.tsv", limit=args.limit, max_cells=args.max_cells)
    spec = "auto" if args.solvers == "auto" else args.solvers.split(",")
    solvers, unavailable = SOLVERS.resolve(spec, unavailable_reason() if spec == "auto" else None)
    work = plan(rows, solvers, spec == "auto")
    scoring = Scoring(args.match, args.mismatch, args.gap)
    write_json({"solvers": solvers, "unavailable": unavailable, "plan": work}, root / PLAN_FILE)
    set_threads(os.cpu_count() or 1)
    for s, names in work.items():
        for i, name in enumerate(names, 1):
            log.info("[%s %d/%d] %s", s, i, len(names), name)
            solve_case(root / "cases.tsv", name, s, scoring, args.repeats, args.traceback,
                       case_json(root, name, s))
        if names:
            solve_batch(root / "cases.tsv", names, s, scoring, args.repeats, args.traceback, batch_json(root, s))


def _report_all(args: argparse.Namespace) -> None:
    root = Path(args.out)
    p = read_json(root / PLAN_FILE)
    records = [case_json(root, c, s) for s, names in p["plan"].items() for c in names]
    batches = [batch_json(root, s) for s, names in p["plan"].items() if names]
    report(root / "cases.tsv", records, batches, p["solvers"], p["unavailable"], root / "tables", root / "plots")
    print((root / "tables" / "summary.tsv").read_text(), end="")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m splicedalign.workloads.spliced.pipeline",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    solve = sub.add_parser("solve", help="time every case × solver and each solver's batch; write records")
    solve.add_argument("--manifest", required=True, help="data-set manifest (cases.tsv)")
    solve.add_argument("--solvers", default="auto", help="auto, or a comma-separated list")
    solve.add_argument("--repeats", type=int, default=3, help="timed runs after the warm-up (median)")
    solve.add_argument("--limit", type=int, help="only the first LIMIT cases")
    solve.add_argument("--max-cells", type=int, help="skip cases with more cells")
    solve.add_argument("--match", type=int, default=1)
    solve.add_argument("--mismatch", type=int, default=-1)
    solve.add_argument("--gap", type=int, default=2)
    solve.add_argument("--traceback", action="store_true",
                       help="time with traceback too (default: the score only; the chain is always "
                            "computed once, untimed)")
    rep = sub.add_parser("report", help="tables and figures from the records under --out")
    for p in (solve, rep):
        p.add_argument("--out", required=True, help="results folder (R)")
    args = parser.parse_args(argv)
    log_to(None)
    {"solve": _solve_all, "report": _report_all}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
