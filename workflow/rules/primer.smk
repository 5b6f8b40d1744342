# k-difference primer problem (paper 001): data set -> one timed job per case x solver ->
# tables (fails naming the case if solvers disagree), the paper's Tables 1-3 and 5 beside ours,
# and plots (time vs size, speedup), under results/primer/{data set}/.
# Data sets: `bundled` (real: mouse Il10 mRNA vs the human IL10 region, resources/primer) or
# `synthetic` (seeded, paper-shaped, scaled down by `scale`, generated here).
# (rule files share one namespace: the module, not its function names, is imported here)
import splicedalign.workloads.primer.pipeline as primer_pipeline
from splicedalign.workloads.primer.solvers import SOLVERS as PRIMER_REGISTRY

PRIMER_CONFIG = config["primer"]
PRIMER_DATASET = PRIMER_CONFIG["dataset"]
PRIMER = f"results/primer/{PRIMER_DATASET}"
PRIMER_SOLVERS, _ = PRIMER_REGISTRY.resolve(PRIMER_CONFIG["solvers"], GPU_UNAVAILABLE)
PRIMER_GPU = set(PRIMER_REGISTRY.gpu_names())
if PRIMER_DATASET == "bundled":
    PRIMER_CASES = {
        c.name: (c.alpha, c.beta, c.k)
        for c in primer_pipeline.bundled_cases(in_workflow(PRIMER_CONFIG["bundled"]))
    }
else:
    PRIMER_CASES = {
        name: (
            f"{PRIMER}/data/{name}.alpha.fa",
            f"{PRIMER}/data/{name}.beta.fa",
            primer_pipeline.synthetic_k(name),
        )
        for name in (
            primer_pipeline.synthetic_name(shape, PRIMER_CONFIG["synthetic"]["scale"])
            for shape in PRIMER_CONFIG["synthetic"]["shapes"]
        )
    }


rule primer_synthetic:
    output:
        alpha=f"{PRIMER}/data/{{case}}.alpha.fa",
        beta=f"{PRIMER}/data/{{case}}.beta.fa",
    log:
        f"{PRIMER}/logs/data/{{case}}.log",
    benchmark:
        f"{PRIMER}/benchmarks/data/{{case}}.tsv"
    wildcard_constraints:
        case=r"[a-z0-9]+(-s\d+)?",
    conda:
        "../envs/splicedalign.yaml"
    params:
        seed=PRIMER_CONFIG["synthetic"]["seed"],
    script:
        "../scripts/primer_synthetic.py"


rule primer_solve:
    input:
        alpha=lambda wildcards: PRIMER_CASES[wildcards.case][0],
        beta=lambda wildcards: PRIMER_CASES[wildcards.case][1],
    output:
        f"{PRIMER}/records/{{case}}/{{solver}}.json",
    log:
        f"{PRIMER}/logs/records/{{case}}/{{solver}}.log",
    benchmark:
        f"{PRIMER}/benchmarks/records/{{case}}/{{solver}}.tsv"
    wildcard_constraints:
        case=r"[^/]+",
        solver="|".join(PRIMER_REGISTRY.names()),
    threads: lambda wildcards: workflow.cores if wildcards.solver == "multicore" else 1
    resources:
        gpu=lambda wildcards: int(wildcards.solver in PRIMER_GPU),
        bench=lambda wildcards: timing_bench(wildcards.solver in PRIMER_GPU),
    params:
        k=lambda wildcards: PRIMER_CASES[wildcards.case][2],
        repeats=PRIMER_CONFIG["repeats"],
        reference_max_cells=PRIMER_CONFIG["reference_max_cells"],
    run:
        on_gpu(
            wildcards.solver in PRIMER_GPU,
            wildcards,
            primer_pipeline.solve_job,
            input.alpha,
            input.beta,
            params.k,
            wildcards.case,
            wildcards.solver,
            params.repeats,
            params.reference_max_cells,
            output[0],
            log[0],
        )


rule primer_tables:
    input:
        expand(
            f"{PRIMER}/records/{{case}}/{{solver}}.json",
            case=PRIMER_CASES,
            solver=PRIMER_SOLVERS,
        ),
    output:
        results=report(
            f"{PRIMER}/tables/primer_results.tsv",
            caption="../report/primer_results.rst",
            category="primer",
            subcategory="Tables",
        ),
        paper=report(
            f"{PRIMER}/tables/primer_paper_tables.tsv",
            caption="../report/primer_paper_tables.rst",
            category="primer",
            subcategory="Tables",
        ),
    log:
        f"{PRIMER}/logs/tables.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        solvers=PRIMER_SOLVERS,
    script:
        "../scripts/primer_tables.py"


rule primer_plots:
    input:
        rules.primer_tables.output.results,
    output:
        report(
            f"{PRIMER}/plots/primer_time_vs_size.png",
            caption="../report/primer_time_vs_size.rst",
            category="primer",
            subcategory="Figures",
        ),
    log:
        f"{PRIMER}/logs/plots.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        solvers=PRIMER_SOLVERS,
    script:
        "../scripts/primer_plots.py"


TARGETS["primer"] = [rules.primer_tables.output, rules.primer_plots.output]
