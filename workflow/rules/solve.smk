# Timing jobs. Each declares bench=1 and the default profile caps bench at 1, so no two timed
# solves share the machine; GPU solvers also declare gpu=1 so a card is never oversubscribed.


rule solve_case:
    input:
        unpack(case_inputs),
    output:
        f"{RESULTS}/cases/{{case}}/{{solver}}.json",
    log:
        f"{RESULTS}/logs/cases/{{case}}/{{solver}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/cases/{{case}}/{{solver}}.tsv"
    conda:
        solve_env
    threads: solver_threads
    resources:
        gpu=needs_gpu,
        bench=1,
    params:
        scoring=config["scoring"],
        repeats=config["repeats"],
        traceback=config["traceback"],
    script:
        "../scripts/solve_case.py"


rule batch:
    input:
        manifest=run_manifest,
    output:
        f"{RESULTS}/batch/{{solver}}.json",
    log:
        f"{RESULTS}/logs/batch/{{solver}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/batch/{{solver}}.tsv"
    conda:
        solve_env
    threads: solver_threads
    resources:
        gpu=needs_gpu,
        bench=1,
    params:
        scoring=config["scoring"],
        repeats=config["repeats"],
        traceback=config["traceback"],
        auto=AUTO,
        reference_max_cells=REFERENCE_LIMIT,
    script:
        "../scripts/batch.py"
