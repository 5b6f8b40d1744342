"""Snakemake script of rule sw_plots: GCUPS per solver and case."""

from splicedalign.core.logs import log_to
from splicedalign.workloads.sw.pipeline import plot

sm = snakemake  # noqa: F821 (snakemake injects it)
log_to(sm.log[0])
plot(sm.input[0], sm.output[0])
