# Peers: installed gene-structure aligners (spaln, exonerate est2genome) beside ours on the
# annotated cases of the spliced data set, ours once per candidate-exon source; exon- and
# nucleotide-level accuracy and seconds (splicedalign.workloads.spliced.peers).


rule peers_accuracy:
    input:
        manifest=spliced_run_manifest,
    output:
        table=report(
            f"{SPLICED}/tables/peers_accuracy.tsv",
            caption="../report/peers_accuracy.rst",
            category="peers",
        ),
        plot=report(
            f"{SPLICED}/plots/peers_accuracy.png",
            caption="../report/peers_accuracy.rst",
            category="peers",
        ),
    log:
        f"{SPLICED}/logs/peers_accuracy.log",
    benchmark:
        f"{SPLICED}/benchmarks/peers_accuracy.tsv"
    conda:
        "../envs/splicedalign.yaml"
    resources:
        bench=1,
    params:
        tools=config["peers"]["tools"],
        sources=config["peers"]["sources"],
        solver=config["peers"]["solver"],
        scoring=SPLICED_CONFIG["scoring"],
        modes=config["peers"].get("scorings") or [{}],
    script:
        "../scripts/peers_accuracy.py"


TARGETS["peers"] = [rules.peers_accuracy.output]
