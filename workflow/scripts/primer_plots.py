"""Snakemake script of rule primer_plots: results table -> time vs size and speedup plots."""

import pandas as pd

from splicedalign.core.logs import log_to
from splicedalign.workloads.primer.pipeline import plot_time_vs_size

sm = snakemake  # noqa: F821 (snakemake injects it)
log_to(sm.log[0])
plot_time_vs_size(pd.read_csv(sm.input[0], sep="\t"), sm.params.solvers, sm.output[0])
