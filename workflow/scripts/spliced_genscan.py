"""Candidate exons from GENSCAN for every base of the data set (run it, or shipped reports)."""

from pathlib import Path

from splicedalign.workloads.spliced.genscan_datasets import genscan_dataset
from splicedalign.core.logs import log_to

log_to(snakemake.log[0])
genscan_dataset(
    snakemake.input[0],
    Path(snakemake.output[0]).parent,
    binary=snakemake.params.binary,
    parameters=snakemake.params.parameters,
    subopt=snakemake.params.subopt,
)
