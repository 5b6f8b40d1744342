"""One case x solver: warm-up, median of `repeats` timed runs, JSON record (or n/a)."""

from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.pipeline import set_threads, solve_case
from splicedalign.core.logs import log_to

log_to(snakemake.log[0])
set_threads(snakemake.threads)
solve_case(
    snakemake.input.manifest,
    snakemake.wildcards.case,
    snakemake.wildcards.solver,
    Scoring.from_mapping(snakemake.params.scoring),
    snakemake.params.repeats,
    snakemake.params.traceback,
    snakemake.output[0],
)
