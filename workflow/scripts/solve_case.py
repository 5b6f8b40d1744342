"""One case x solver: warm-up, median of `repeats` timed runs, JSON record (or n/a)."""

from splicedalign.case import Scoring
from splicedalign.pipeline import set_threads, solve_case
from splicedalign.progress import log_to

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
