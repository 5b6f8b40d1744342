"""Snakemake script of rule primer_synthetic: one seeded paper-shaped case -> alpha and beta FASTA."""

from splicedalign.core.logs import log_to
from splicedalign.workloads.primer.pipeline import write_synthetic

sm = snakemake  # noqa: F821 (snakemake injects it)
log_to(sm.log[0])
write_synthetic(sm.wildcards.case, sm.params.seed, sm.output.alpha, sm.output.beta)
