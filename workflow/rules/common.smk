# Shared settings and input functions. Solver selection happens here, once per invocation:
# `solvers: auto` probes the machine running Snakemake (CPU solvers always, GPU ones when CuPy
# sees a device); on a cluster list the solvers explicitly, since the head node may lack a GPU.
import os

from splicedalign.workloads.spliced.bench import (
    REFERENCE_MAX_CELLS,
    gpu_solvers,
    resolve_solvers,
)
from splicedalign.workloads.spliced.datasets import read_manifest
from splicedalign.workloads.spliced.pipeline import (
    batch_json,
    case_json,
    plan,
    read_run_manifest,
)
from splicedalign.workloads.spliced.solvers import available_solvers

DATASET = config["dataset"]
RESULTS = f"results/{DATASET}"
AUTO = config["solvers"] == "auto"
SOLVERS, UNAVAILABLE = resolve_solvers(config["solvers"])
GPU_SOLVERS = set(gpu_solvers())
REFERENCE_LIMIT = config.get("reference_max_cells", REFERENCE_MAX_CELLS)


wildcard_constraints:
    solver="|".join(available_solvers()),
    case=r"[^/]+",


def in_workflow(path):
    """Config paths are relative to the workflow's folder unless absolute."""
    return path if os.path.isabs(path) else os.path.join(workflow.basedir, path)


def source_manifest(wildcards):
    if config.get("candidate_exons", "manifest") == "genscan":
        return f"{RESULTS}/data/genscan/cases.tsv"
    return dataset_manifest(wildcards)


def dataset_manifest(wildcards):
    if DATASET == "synthetic":
        return f"{RESULTS}/data/{config['synthetic']['set']}/cases.tsv"
    if DATASET == "bundled":
        return in_workflow(config["bundled"]["manifest"])
    return f"{RESULTS}/data/ncbi/cases.tsv"


def run_manifest(wildcards=None):
    return checkpoints.manifest.get().output[0]


def planned():
    """{solver: cases it runs on}; reads the manifest, so only valid after the checkpoint."""
    return plan(read_run_manifest(run_manifest()), SOLVERS, AUTO, REFERENCE_LIMIT)


def case_inputs(wildcards):
    manifest = run_manifest()
    for e in read_manifest(manifest):
        if e.case == wildcards.case:
            files = [e.base, e.target, e.exons, e.true_exons]
            return {
                "manifest": manifest,
                "files": [os.path.normpath(f) for f in files if f is not None],
            }
    raise ValueError(f"case {wildcards.case!r} is not in {manifest}")


def all_records(wildcards):
    return [
        str(case_json(RESULTS, c, s)) for s, cases in planned().items() for c in cases
    ]


def all_batches(wildcards):
    return [str(batch_json(RESULTS, s)) for s, cases in planned().items() if cases]


def solver_threads(wildcards):
    # multicore gets the cores (Snakemake caps threads at --cores); the others use one
    if wildcards.solver == "multicore":
        return config.get("multicore_threads") or workflow.cores
    return 1


def needs_gpu(wildcards):
    return int(wildcards.solver in GPU_SOLVERS)


def solve_env(wildcards):
    return (
        "../envs/gpu.yaml"
        if wildcards.solver in GPU_SOLVERS
        else "../envs/splicedalign.yaml"
    )
