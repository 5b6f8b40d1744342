"""Candidate exons from GENSCAN for every base of the data set (run it, or shipped reports)."""

import logging
import sys
from pathlib import Path

from splicedalign.core.errors import EXIT_INPUT, InputError
from splicedalign.core.logs import log_to
from splicedalign.workloads.spliced.genscan_datasets import genscan_dataset

log_to(snakemake.log[0])
try:
    genscan_dataset(
        snakemake.input[0],
        Path(snakemake.output[0]).parent,
        binary=snakemake.params.binary,
        parameters=snakemake.params.parameters,
        subopt=snakemake.params.subopt,
    )
except InputError as exc:  # GENSCAN failed or a report is bad: one line in the log, no traceback
    logging.getLogger("splicedalign").error("%s", exc)
    sys.exit(EXIT_INPUT)
