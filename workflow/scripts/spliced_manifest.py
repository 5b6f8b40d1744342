"""Checkpoint: validate the data set, apply the case filter, write the run manifest."""

from splicedalign.workloads.spliced.pipeline import write_run_manifest
from splicedalign.core.logs import log_to

log_to(snakemake.log[0])
write_run_manifest(
    snakemake.input[0],
    snakemake.output[0],
    include=snakemake.params.include,
    max_cells=snakemake.params.max_cells,
    limit=snakemake.params.limit,
)
