"""Snakemake script of rule nw_plots: time vs size per solver."""

import pandas as pd

from splicedalign.core.logs import log_to
from splicedalign.workloads.nw.pipeline import plot_times

sm = snakemake  # noqa: F821 (snakemake injects it)
log_to(sm.log[0])
plot_times(pd.read_csv(sm.input[0], sep="\t"), sm.params.solvers, sm.output[0])
