# Data sets: each ends as a manifest (cases.tsv, see splicedalign.workloads.spliced.datasets); the checkpoint
# validates it, applies the case filter and fixes the case list the rest fans out over.


rule synthetic_dataset:
    output:
        f"{RESULTS}/data/{{set}}/cases.tsv",
    log:
        f"{RESULTS}/logs/synthetic_{{set}}.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        seed=(
            ""
            if config["synthetic"].get("seed") is None
            else f"--seed {config['synthetic']['seed']}"
        ),
    shell:
        "splicedalign synthetic {wildcards.set} $(dirname {output}) {params.seed} > {log} 2>&1"


checkpoint manifest:
    input:
        source_manifest,
    output:
        f"{RESULTS}/cases.tsv",
    log:
        f"{RESULTS}/logs/manifest.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        include=config["cases"].get("include", []),
        max_cells=config["cases"].get("max_cells"),
        limit=config["cases"].get("limit"),
    script:
        "../scripts/manifest.py"


rule ncbi_dataset:
    input:
        homologene=in_workflow(config["ncbi"]["homologene"]),
    output:
        f"{RESULTS}/data/ncbi/cases.tsv",
    log:
        f"{RESULTS}/logs/ncbi_dataset.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        genes=config["ncbi"]["genes"],
        base_url=config["ncbi"]["base_url"],
        flank=config["ncbi"]["flank"],
        max_targets=config["ncbi"]["max_targets"],
        cache=f"{RESULTS}/data/ncbi_cache",
    shell:
        "python -m splicedalign.workloads.spliced.ncbi_datasets --genes {params.genes} --homologene {input.homologene}"
        " --base-url {params.base_url} --cache {params.cache} --flank {params.flank}"
        " --max-targets {params.max_targets} $(dirname {output}) > {log} 2>&1"


rule genscan_exons:
    input:
        dataset_manifest,
    output:
        f"{RESULTS}/data/genscan/cases.tsv",
    log:
        f"{RESULTS}/logs/genscan.log",
    conda:
        "../envs/splicedalign.yaml"
    params:
        binary=config["genscan"]["binary"],
        parameters=config["genscan"]["parameters"],
        subopt=config["genscan"]["subopt"],
    script:
        "../scripts/genscan.py"
