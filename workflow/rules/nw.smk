# Global alignment (paper 002): data set -> one timed job per case x solver -> tables (fails
# naming the case if solvers disagree) and a time-vs-size plot, under results/nw/{data set}/.
# Data sets: `bundled` (real homologous pairs, resources/nw) or `paper` (seeded synthetic
# pairs shaped like paper 002's Table 1, generated here).
from splicedalign.workloads.nw.pipeline import (
    bundled_cases,
    paper_case_names,
    solve_job as nw_solve_job,
)
from splicedalign.workloads.nw.solvers import SOLVERS as NW_REGISTRY

NW_CONFIG = config["nw"]
NW_DATASET = NW_CONFIG["dataset"]
NW = f"results/nw/{NW_DATASET}"
NW_SOLVERS, _ = NW_REGISTRY.resolve(NW_CONFIG["solvers"], GPU_UNAVAILABLE)
NW_GPU = set(NW_REGISTRY.gpu_names())
if NW_DATASET == "bundled":
    NW_CASES = {
        c.name: c.fasta for c in bundled_cases(in_workflow(NW_CONFIG["bundled"]))
    }
else:
    NW_CASES = {
        name: f"{NW}/data/{name}.fa"
        for name in paper_case_names(
            NW_CONFIG["paper"]["sizes"], NW_CONFIG["paper"]["kinds"]
        )
    }


rule nw_synthetic:
    output:
        f"{NW}/data/{{case}}.fa",
    log:
        f"{NW}/logs/data/{{case}}.log",
    benchmark:
        f"{NW}/benchmarks/data/{{case}}.tsv"
    wildcard_constraints:
        case=r"(mutated|unrelated)-\d+",
    conda:
        "../envs/splicedalign.yaml"
    params:
        seed=NW_CONFIG["paper"]["seed"],
    script:
        "../scripts/nw_synthetic.py"


rule nw_solve:
    input:
        lambda wildcards: NW_CASES[wildcards.case],
    output:
        f"{NW}/records/{{case}}/{{solver}}.json",
    log:
        f"{NW}/logs/records/{{case}}/{{solver}}.log",
    benchmark:
        f"{NW}/benchmarks/records/{{case}}/{{solver}}.tsv"
    wildcard_constraints:
        case=r"[^/]+",
        solver="|".join(NW_REGISTRY.names()),
    threads: lambda wildcards: workflow.cores if wildcards.solver == "multicore" else 1
    resources:
        gpu=lambda wildcards: int(wildcards.solver in NW_GPU),
        bench=lambda wildcards: timing_bench(wildcards.solver in NW_GPU),
    params:
        costs=NW_CONFIG["costs"],
        repeats=NW_CONFIG["repeats"],
        traceback=NW_CONFIG["traceback"],
        reference_max_cells=NW_CONFIG["reference_max_cells"],
    run:
        on_gpu(
            wildcards.solver in NW_GPU,
            wildcards,
            nw_solve_job,
            input[0],
            wildcards.case,
            wildcards.solver,
            params.costs,
            params.repeats,
            params.traceback,
            params.reference_max_cells,
            output[0],
            log[0],
        )


rule nw_tables:
    input:
        expand(
            f"{NW}/records/{{case}}/{{solver}}.json", case=NW_CASES, solver=NW_SOLVERS
        ),
    output:
        results=report(
            f"{NW}/tables/nw_results.tsv",
            caption="../report/nw_results.rst",
            category="nw",
            subcategory="Tables",
        ),
        table1=report(
            f"{NW}/tables/nw_table1.tsv",
            caption="../report/nw_table1.rst",
            category="nw",
            subcategory="Tables",
        ),
    log:
        f"{NW}/logs/tables.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        solvers=NW_SOLVERS,
    script:
        "../scripts/nw_tables.py"


rule nw_plots:
    input:
        rules.nw_tables.output.results,
    output:
        report(
            f"{NW}/plots/nw_time_vs_size.png",
            caption="../report/nw_time_vs_size.rst",
            category="nw",
            subcategory="Figures",
        ),
    log:
        f"{NW}/logs/plots.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        solvers=NW_SOLVERS,
    script:
        "../scripts/nw_plots.py"


TARGETS["nw"] = [rules.nw_tables.output, rules.nw_plots.output]
