"""Snakemake script of rule nw_synthetic: one paper-shaped synthetic pair as a FASTA file."""

from splicedalign.core.logs import log_to
from splicedalign.workloads.nw.pipeline import write_paper_case

log_to(snakemake.log[0])  # noqa: F821 (snakemake injects it)
write_paper_case(snakemake.wildcards.case, snakemake.params.seed, snakemake.output[0])  # noqa: F821
