# Spliced alignment: data set -> run manifest (checkpoint) -> one timed job per case x solver
# and one batch job per solver -> tables -> figures, under results/spliced/{data set name}/.
#
# The timing jobs are `run:` jobs (in threads of Snakemake's process: the default profile sets
# force-use-threads) that hand their solve to one reused solver process
# (pipeline.solver_process): a job costs its solve and no interpreter start, imports or kernel
# loading, and timings stay clear of Snakemake's scheduler; each job still has its own
# output, log and benchmark file and reruns by its path. On a cluster each job runs as its
# own Snakemake process on its node.
import splicedalign.workloads.spliced.report as spliced_report
import splicedalign.workloads.spliced.report.names as spliced_figures
from splicedalign.workloads.spliced.ncbi_datasets import missing_inputs


include: "spliced_common.smk"


# ---- data sets: each ends as a manifest (cases.tsv, see workloads/spliced/datasets.py); the
# checkpoint validates it, applies the case filter and fixes the case list of the fan-out.


rule spliced_synthetic:
    output:
        f"{SPLICED}/data/cases.tsv",
    log:
        f"{SPLICED}/logs/synthetic.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        set=SPLICED_CONFIG["synthetic"]["set"],
        seed=(
            ""
            if SPLICED_CONFIG["synthetic"].get("seed") is None
            else f"--seed {SPLICED_CONFIG['synthetic']['seed']}"
        ),
    shell:
        "splicedalign synthetic {params.set} $(dirname {output}) {params.seed} > {log} 2>&1"


# HomoloGene is needed only for genes without target accessions in config ncbi.targets;
# without either, stop now with one line saying what is missing and how to get it.
SPLICED_NCBI_TARGETS = SPLICED_CONFIG["ncbi"].get("targets") or {}
SPLICED_NCBI_HOMOLOGENE = in_workflow(SPLICED_CONFIG["ncbi"]["homologene"])
SPLICED_NCBI_NEEDS_HOMOLOGENE = any(
    not SPLICED_NCBI_TARGETS.get(g) for g in SPLICED_CONFIG["ncbi"]["genes"]
)
if SPLICED_DATASET == "ncbi" and missing_inputs(
    SPLICED_CONFIG["ncbi"]["genes"], SPLICED_NCBI_HOMOLOGENE, SPLICED_NCBI_TARGETS
):
    stop(
        missing_inputs(
            SPLICED_CONFIG["ncbi"]["genes"],
            SPLICED_NCBI_HOMOLOGENE,
            SPLICED_NCBI_TARGETS,
        )
    )


rule spliced_ncbi:
    input:
        homologene=SPLICED_NCBI_HOMOLOGENE if SPLICED_NCBI_NEEDS_HOMOLOGENE else [],
    output:
        f"{SPLICED}/data/ncbi/cases.tsv",
    log:
        f"{SPLICED}/logs/ncbi_dataset.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        genes=SPLICED_CONFIG["ncbi"]["genes"],
        base_url=SPLICED_CONFIG["ncbi"]["base_url"],
        flank=SPLICED_CONFIG["ncbi"]["flank"],
        max_targets=SPLICED_CONFIG["ncbi"]["max_targets"],
        cache=f"{SPLICED}/data/ncbi_cache",
        homologene=(
            f"--homologene {SPLICED_NCBI_HOMOLOGENE}"
            if SPLICED_NCBI_NEEDS_HOMOLOGENE
            else ""
        ),
        targets=" ".join(
            f"{gene}={','.join(accs)}" for gene, accs in SPLICED_NCBI_TARGETS.items()
        ),
    shell:
        "python -m splicedalign.workloads.spliced.ncbi_datasets --genes {params.genes} {params.homologene}"
        " --targets {params.targets}"
        " --base-url {params.base_url} --cache {params.cache} --flank {params.flank}"
        " --max-targets {params.max_targets} $(dirname {output}) > {log} 2>&1"


rule spliced_genscan:
    input:
        spliced_dataset_manifest,
    output:
        f"{SPLICED}/data/genscan/cases.tsv",
    log:
        f"{SPLICED}/logs/genscan.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        binary=SPLICED_CONFIG["genscan"]["binary"],
        parameters=SPLICED_CONFIG["genscan"]["parameters"],
        subopt=SPLICED_CONFIG["genscan"]["subopt"],
    script:
        "../scripts/spliced_genscan.py"


checkpoint spliced_manifest:
    input:
        spliced_source_manifest,
    output:
        f"{SPLICED}/cases.tsv",
    log:
        f"{SPLICED}/logs/manifest.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        include=SPLICED_CONFIG["cases"].get("include", []),
        max_cells=SPLICED_CONFIG["cases"].get("max_cells"),
        limit=SPLICED_CONFIG["cases"].get("limit"),
    script:
        "../scripts/spliced_manifest.py"


# ---- timing jobs. Each declares bench=1 and the default profile caps bench at 1, so no two
# timed solves share the machine; GPU solvers also declare gpu=1 so a card is never shared.
# With several GPUs (common.smk: on_gpu_device), a GPU job takes 1 bench unit and a device's slot,
# a CPU job every bench unit: `--resources gpu=N bench=N` runs N GPU jobs at once.


rule spliced_case:
    input:
        unpack(spliced_case_inputs),
    output:
        f"{SPLICED}/cases/{{case}}/{{solver}}.json",
    log:
        f"{SPLICED}/logs/cases/{{case}}/{{solver}}.log",
    benchmark:
        f"{SPLICED}/benchmarks/cases/{{case}}/{{solver}}.tsv"
    wildcard_constraints:
        case=r"[^/]+",
        solver=SPLICED_SOLVER_PATTERN,
    threads: spliced_threads
    resources:
        gpu=spliced_gpu,
        bench=lambda wildcards: timing_bench(spliced_gpu(wildcards)),
    params:
        scoring=SPLICED_CONFIG["scoring"],
        repeats=SPLICED_CONFIG["repeats"],
        traceback=SPLICED_CONFIG["traceback"],
    run:
        on_gpu_device(
            spliced_gpu(wildcards),
            wildcards,
            spliced_pipeline.case_job,
            input.manifest,
            wildcards.case,
            wildcards.solver,
            params.scoring,
            params.repeats,
            params.traceback,
            threads,
            output[0],
            log[0],
        )


rule spliced_batch:
    input:
        manifest=spliced_run_manifest,
    output:
        f"{SPLICED}/batch/{{solver}}.json",
    log:
        f"{SPLICED}/logs/batch/{{solver}}.log",
    benchmark:
        f"{SPLICED}/benchmarks/batch/{{solver}}.tsv"
    wildcard_constraints:
        solver=SPLICED_SOLVER_PATTERN,
    threads: spliced_threads
    resources:
        gpu=spliced_gpu,
        bench=lambda wildcards: timing_bench(spliced_gpu(wildcards)),
    params:
        auto=SPLICED_AUTO,
        reference_max_cells=SPLICED_REFERENCE_LIMIT,
        scoring=SPLICED_CONFIG["scoring"],
        repeats=SPLICED_CONFIG["repeats"],
        traceback=SPLICED_CONFIG["traceback"],
    run:
        on_gpu_device(
            spliced_gpu(wildcards),
            wildcards,
            spliced_pipeline.batch_job,
            input.manifest,
            wildcards.solver,
            params.auto,
            params.reference_max_cells,
            params.scoring,
            params.repeats,
            params.traceback,
            threads,
            output[0],
            log[0],
        )


# ---- aggregation: tables (fails naming the cases if solvers disagree on a score) and the
# paper's figures, in the report under the category "spliced" with workflow/report captions.


rule spliced_tables:
    input:
        manifest=spliced_run_manifest,
        records=spliced_records,
        batches=spliced_batches,
    output:
        **{
            name: report(
                f"{SPLICED}/tables/{name}.tsv",
                caption=f"../report/{name}.rst",
                category="spliced",
                subcategory="Tables",
            )
            for name in spliced_report.TABLES
        },
    log:
        f"{SPLICED}/logs/tables.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        solvers=SPLICED_SOLVERS,
        unavailable=SPLICED_UNAVAILABLE,
    script:
        "../scripts/spliced_tables.py"


rule spliced_plots:
    input:
        cases=rules.spliced_tables.output.cases,
        parallelism=rules.spliced_tables.output.parallelism,
    output:
        figures=[
            report(
                f"{SPLICED}/plots/{name}.png",
                caption=f"../report/{name.split('_')[0]}.rst",
                category="spliced",
                subcategory="Figures",
            )
            for name in spliced_figures.STATIC
        ],
        overlays=report(
            expand(
                f"{SPLICED}/plots/{{name}}.png",
                name=[spliced_figures.overlay_name(s) for s in SPLICED_SOLVERS],
            ),
            caption="../report/fig17_19.rst",
            category="spliced",
            subcategory="Estimation",
        ),
        svg=expand(
            f"{SPLICED}/plots/{{name}}.svg",
            name=[
                *spliced_figures.STATIC,
                *(spliced_figures.overlay_name(s) for s in SPLICED_SOLVERS),
            ],
        ),
    log:
        f"{SPLICED}/logs/plots.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        solvers=SPLICED_SOLVERS,
    script:
        "../scripts/spliced_plots.py"


TARGETS["spliced"] = [rules.spliced_tables.output, rules.spliced_plots.output]
