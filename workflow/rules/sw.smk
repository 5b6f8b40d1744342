# Local-alignment database search (paper 003): data set -> one timed job per case x solver ->
# tables (fails naming the case if solvers disagree), Table III beside the published values,
# and a GCUPS plot, under results/sw/{data set}/. Data sets: `bundled` (real proteins,
# resources/sw), or the seeded synthetic `tiny`, `paper` (Table III shapes), `scaleup`.
from splicedalign.workloads.sw.pipeline import (
    case_files,
    solve_job as sw_solve_job,
    solver_threads,
)
from splicedalign.workloads.sw.solvers import SOLVERS as SW_REGISTRY

SW_CONFIG = config["sw"]
SW_DATASET = SW_CONFIG["dataset"]
SW = f"results/sw/{SW_DATASET}"
SW_SOLVERS, _ = SW_REGISTRY.resolve(SW_CONFIG["solvers"], GPU_UNAVAILABLE)
SW_GPU = set(SW_REGISTRY.gpu_names())
SW_CASES = case_files(SW_DATASET, in_workflow(SW_CONFIG["bundled"]), f"{SW}/data")

SW_SYNTHETIC_FILES = [
    path for pair in SW_CASES.values() for path in pair if SW_DATASET != "bundled"
]


rule sw_synthetic:
    output:
        SW_SYNTHETIC_FILES,
    log:
        f"{SW}/logs/data.log",
    benchmark:
        f"{SW}/benchmarks/data.tsv"
    conda:
        "../envs/splicedalign.yaml"
    params:
        dataset=SW_DATASET,
        seed=SW_CONFIG["seed"],
        data=f"{SW}/data",
    script:
        "../scripts/sw_synthetic.py"


rule sw_solve:
    input:
        query=lambda wildcards: SW_CASES[wildcards.case][0],
        db=lambda wildcards: SW_CASES[wildcards.case][1],
    output:
        f"{SW}/records/{{case}}/{{solver}}.json",
    log:
        f"{SW}/logs/records/{{case}}/{{solver}}.log",
    benchmark:
        f"{SW}/benchmarks/records/{{case}}/{{solver}}.tsv"
    wildcard_constraints:
        case=r"[^/]+",
        solver="|".join(SW_REGISTRY.names()),
    threads: lambda wildcards: solver_threads(wildcards.solver, workflow.cores)
    resources:
        gpu=lambda wildcards: int(wildcards.solver in SW_GPU),
        bench=lambda wildcards: timing_bench(wildcards.solver in SW_GPU),
    params:
        matrix=SW_CONFIG["matrix"],
        gap=SW_CONFIG["gap"],
        repeats=SW_CONFIG["repeats"],
        reference_max_cells=SW_CONFIG["reference_max_cells"],
    run:
        on_gpu(
            wildcards.solver in SW_GPU,
            wildcards,
            sw_solve_job,
            input.query,
            input.db,
            wildcards.case,
            wildcards.solver,
            params.matrix,
            params.gap,
            params.repeats,
            params.reference_max_cells,
            output[0],
            log[0],
        )


rule sw_tables:
    input:
        expand(
            f"{SW}/records/{{case}}/{{solver}}.json", case=SW_CASES, solver=SW_SOLVERS
        ),
    output:
        results=report(
            f"{SW}/tables/sw_results.tsv",
            caption="../report/sw_results.rst",
            category="sw",
            subcategory="Tables",
        ),
        table3=report(
            f"{SW}/tables/sw_table3.md",
            caption="../report/sw_table3.rst",
            category="sw",
            subcategory="Tables",
        ),
    log:
        f"{SW}/logs/tables.log",
    conda:
        "../envs/splicedalign.yaml"
    script:
        "../scripts/sw_tables.py"


rule sw_plots:
    input:
        rules.sw_tables.output.results,
    output:
        report(
            f"{SW}/plots/sw_gcups.png",
            caption="../report/sw_gcups.rst",
            category="sw",
            subcategory="Figures",
        ),
    log:
        f"{SW}/logs/plots.log",
    conda:
        "../envs/splicedalign.yaml"
    script:
        "../scripts/sw_plots.py"


TARGETS["sw"] = [rules.sw_tables.output, rules.sw_plots.output]
