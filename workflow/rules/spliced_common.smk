# Spliced alignment: settings and input functions of its rules (workflow/rules/spliced.smk).
# Planning reads config and files only: `solvers: auto` takes the CPU solvers and asks CuPy
# whether it sees a device (nothing is compiled or solved); on a cluster list the solvers
# explicitly, since the submitting node may lack a GPU.
import os

from splicedalign.workloads.spliced import bench as spliced_bench
from splicedalign.workloads.spliced import pipeline as spliced_pipeline
from splicedalign.workloads.spliced import solvers as spliced_solvers
from splicedalign.core.errors import InputError
from splicedalign.core.pipeline_config import stop

SPLICED_CONFIG = config["spliced"]
SPLICED_DATASET = SPLICED_CONFIG["dataset"]
SPLICED_DEFAULT_MANIFEST = "resources/bundled/cases.tsv"
SPLICED_NAME = spliced_pipeline.results_name(
    SPLICED_DATASET,
    manifest=in_workflow(SPLICED_CONFIG["bundled"]["manifest"]),
    bundled=in_workflow(SPLICED_DEFAULT_MANIFEST),
    synthetic_set=SPLICED_CONFIG["synthetic"]["set"],
    seed=SPLICED_CONFIG["synthetic"].get("seed"),
    genes=SPLICED_CONFIG["ncbi"]["genes"],
    candidate_exons=SPLICED_CONFIG.get("candidate_exons", "manifest"),
)
SPLICED = f"results/spliced/{SPLICED_NAME}"
SPLICED_AUTO = SPLICED_CONFIG["solvers"] == "auto"
SPLICED_SOLVERS, SPLICED_UNAVAILABLE = spliced_solvers.SOLVERS.resolve(
    SPLICED_CONFIG["solvers"], GPU_UNAVAILABLE
)
try:
    SPLICED_SOLVERS, SPLICED_UNAVAILABLE = spliced_solvers.for_target_ends(
        SPLICED_SOLVERS,
        SPLICED_UNAVAILABLE,
        SPLICED_CONFIG["scoring"].get("target_ends", "global"),
        SPLICED_AUTO,
    )
except InputError as spliced_error:
    stop(spliced_error)
SPLICED_GPU_SOLVERS = set(spliced_bench.gpu_solvers())
SPLICED_REFERENCE_LIMIT = SPLICED_CONFIG.get(
    "reference_max_cells", spliced_bench.REFERENCE_MAX_CELLS
)
SPLICED_SOLVER_PATTERN = "|".join(spliced_solvers.available_solvers())

# What planning can check (the bundled or user manifest, the case filter, GENSCAN's inputs)
# stops here in one line naming the key or file, before any job runs.
try:
    spliced_pipeline.check_plan(
        SPLICED_DATASET,
        (
            in_workflow(SPLICED_CONFIG["bundled"]["manifest"])
            if SPLICED_DATASET == "bundled"
            else None
        ),
        SPLICED_CONFIG["cases"].get("include") or (),
        SPLICED_CONFIG.get("candidate_exons", "manifest"),
        SPLICED_CONFIG["genscan"]["binary"],
        SPLICED_CONFIG["genscan"]["parameters"],
    )
except InputError as spliced_error:
    stop(spliced_error)


def spliced_dataset_manifest(wildcards):
    if SPLICED_DATASET == "synthetic":
        return f"{SPLICED}/data/cases.tsv"
    if SPLICED_DATASET == "bundled":
        return in_workflow(SPLICED_CONFIG["bundled"]["manifest"])
    return f"{SPLICED}/data/ncbi/cases.tsv"


def spliced_source_manifest(wildcards):
    if SPLICED_CONFIG.get("candidate_exons", "manifest") == "genscan":
        return f"{SPLICED}/data/genscan/cases.tsv"
    return spliced_dataset_manifest(wildcards)


def spliced_run_manifest(wildcards=None):
    return checkpoints.spliced_manifest.get().output[0]


def spliced_planned():
    """{solver: cases it runs on}; reads the run manifest, so only valid after the checkpoint."""
    return spliced_pipeline.plan(
        spliced_pipeline.run_rows(spliced_run_manifest()),
        SPLICED_SOLVERS,
        SPLICED_AUTO,
        SPLICED_REFERENCE_LIMIT,
    )


def spliced_case_inputs(wildcards):
    manifest = spliced_run_manifest()
    files = spliced_pipeline.case_files(manifest).get(wildcards.case)
    if files is None:
        raise ValueError(f"case {wildcards.case!r} is not in {manifest}")
    return {"manifest": manifest, "files": list(files)}


def spliced_records(wildcards):
    return [
        str(spliced_pipeline.case_json(SPLICED, c, s))
        for s, cases in spliced_planned().items()
        for c in cases
    ]


def spliced_batches(wildcards):
    return [
        str(spliced_pipeline.batch_json(SPLICED, s))
        for s, cases in spliced_planned().items()
        if cases
    ]


def spliced_threads(wildcards):
    # multicore gets the cores (Snakemake caps threads at --cores); the others use one
    if wildcards.solver == "multicore":
        return SPLICED_CONFIG.get("multicore_threads") or workflow.cores
    return 1


def spliced_gpu(wildcards):
    return int(wildcards.solver in SPLICED_GPU_SOLVERS)


def spliced_closing():
    """Warnings about unreliable timings in the finished summary (none before it exists)."""
    from splicedalign.report.tables import read_table
    from splicedalign.workloads.spliced.report import unreliable_lines

    summary = f"{SPLICED}/tables/summary.tsv"
    if not os.path.exists(summary):
        return []
    return [
        f"spliced timings: {line}" for line in unreliable_lines(read_table(summary))
    ]


CLOSING["spliced"] = spliced_closing
