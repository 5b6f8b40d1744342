"""One solver over the whole data set through its batch API (data-set throughput)."""

from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.pipeline import plan, read_run_manifest, set_threads, solve_batch
from splicedalign.core.logs import log_to

log_to(snakemake.log[0])
set_threads(snakemake.threads)
solver = snakemake.wildcards.solver
rows = read_run_manifest(snakemake.input.manifest)
cases = plan(rows, [solver], snakemake.params.auto, snakemake.params.reference_max_cells)[solver]
solve_batch(
    snakemake.input.manifest,
    cases,
    solver,
    Scoring.from_mapping(snakemake.params.scoring),
    snakemake.params.repeats,
    snakemake.params.traceback,
    snakemake.output[0],
)
