"""Snakemake script of rule sw_synthetic: the seeded synthetic set's FASTA files."""

from splicedalign.core.logs import log_to
from splicedalign.workloads.sw.pipeline import write_synthetic

sm = snakemake  # noqa: F821 (snakemake injects it)
log_to(sm.log[0])
write_synthetic(sm.params.dataset, sm.params.seed, sm.params.data)
