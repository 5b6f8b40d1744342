"""Snakemake script of rule nw_tables: records -> results table and paper Table 1 (fails naming
the case when solvers disagree)."""

import json

from splicedalign.core.logs import log_to
from splicedalign.workloads.nw.pipeline import aggregate, table1

sm = snakemake  # noqa: F821 (snakemake injects it)
log_to(sm.log[0])
results = aggregate([json.loads(open(path).read()) for path in sm.input], sm.params.solvers)
results.to_csv(sm.output.results, sep="\t", index=False)
table1(results, sm.params.solvers).to_csv(sm.output.table1, sep="\t", index=False)
