"""The paper's figures from the tables, PNG and SVG."""

from pathlib import Path

from splicedalign.core.logs import log_to
from splicedalign.report.tables import read_table
from splicedalign.workloads.spliced.report.plots import draw_all

log_to(snakemake.log[0])
draw_all(
    read_table(snakemake.input.cases),
    read_table(snakemake.input.parallelism),
    snakemake.params.solvers,
    Path(snakemake.output.svg[0]).parent,
)
