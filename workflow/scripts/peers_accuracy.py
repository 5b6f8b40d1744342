"""Peers beside ours on the annotated cases: peers_accuracy.tsv and its figure."""

from splicedalign.core.logs import log_to
from splicedalign.workloads.spliced.peers import write_peers
from splicedalign.workloads.spliced.records import Scoring

log_to(snakemake.log[0])
write_peers(
    snakemake.input.manifest,
    snakemake.output.table,
    snakemake.output.plot,
    peers=snakemake.params.tools,
    solver=snakemake.params.solver,
    scorings=[Scoring.from_mapping({**snakemake.params.scoring, **mode}) for mode in snakemake.params.modes],
    sources=snakemake.params.sources,
)
