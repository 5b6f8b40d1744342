"""Aggregate the records into the tables; fails naming the cases if solvers disagree."""

from pathlib import Path

from splicedalign.core.logs import log_to
from splicedalign.workloads.spliced.pipeline import load_cases, read_json
from splicedalign.workloads.spliced.report import aggregate

log_to(snakemake.log[0])
aggregate(
    load_cases(snakemake.input.manifest),
    [read_json(p) for p in snakemake.input.records],
    snakemake.params.solvers,
    Path(snakemake.output.cases).parent,
    [read_json(p) for p in snakemake.input.batches],
    snakemake.params.unavailable,
)
