"""Snakemake script of rule sw_tables: records -> results table and paper Table III (fails
naming the case when solvers disagree)."""

from splicedalign.core.logs import log_to
from splicedalign.workloads.sw.pipeline import write_tables

sm = snakemake  # noqa: F821 (snakemake injects it)
log_to(sm.log[0])
write_tables(list(sm.input), sm.output.results, sm.output.table3)
