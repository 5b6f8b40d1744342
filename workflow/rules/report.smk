# Aggregation: tables (fails naming the cases if solvers disagree on a score), figures, and
# the Snakemake report (snakemake --report) built from them with the captions of workflow/report.
from splicedalign.report import TABLES
from splicedalign.report.plots import STATIC, overlay_name


rule tables:
    input:
        manifest=run_manifest,
        records=all_records,
        batches=all_batches,
    output:
        **{
            name: report(
                f"{RESULTS}/tables/{name}.tsv",
                caption=f"../report/{name}.rst",
                category="Tables",
            )
            for name in TABLES
        },
    log:
        f"{RESULTS}/logs/tables.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        solvers=SOLVERS,
        unavailable=UNAVAILABLE,
    script:
        "../scripts/tables.py"


rule plots:
    input:
        cases=rules.tables.output.cases,
        parallelism=rules.tables.output.parallelism,
    output:
        figures=[
            report(
                f"{RESULTS}/plots/{name}.png",
                caption=f"../report/{name.split('_')[0]}.rst",
                category="Figures",
            )
            for name in STATIC
        ],
        overlays=report(
            expand(
                f"{RESULTS}/plots/{{name}}.png",
                name=[overlay_name(s) for s in SOLVERS],
            ),
            caption="../report/fig17_19.rst",
            category="Estimation",
        ),
        svg=expand(
            f"{RESULTS}/plots/{{name}}.svg",
            name=[*STATIC, *(overlay_name(s) for s in SOLVERS)],
        ),
    log:
        f"{RESULTS}/logs/plots.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        solvers=SOLVERS,
    script:
        "../scripts/plots.py"
