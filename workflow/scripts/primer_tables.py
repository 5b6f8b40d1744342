"""Snakemake script of rule primer_tables: records -> results table and the paper's tables
beside ours (fails naming the case when solvers disagree)."""

import json

from splicedalign.core.logs import log_to
from splicedalign.workloads.primer.pipeline import aggregate, paper_tables

sm = snakemake  # noqa: F821 (snakemake injects it)
log_to(sm.log[0])
results = aggregate([json.loads(open(path).read()) for path in sm.input], sm.params.solvers)
results.to_csv(sm.output.results, sep="\t", index=False)
paper_tables(results).to_csv(sm.output.paper, sep="\t", index=False)
