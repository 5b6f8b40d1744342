"""Checkpoint: validate the data set, apply the case filter, write the run manifest."""

import logging
import sys

from splicedalign.core.errors import EXIT_INPUT, InputError
from splicedalign.core.logs import log_to
from splicedalign.workloads.spliced.pipeline import write_run_manifest

log_to(snakemake.log[0])
try:
    write_run_manifest(
        snakemake.input[0],
        snakemake.output[0],
        include=snakemake.params.include,
        max_cells=snakemake.params.max_cells,
        limit=snakemake.params.limit,
    )
except InputError as exc:  # bad data set: its one line goes to the log, not a traceback
    logging.getLogger("splicedalign").error("%s", exc)
    sys.exit(EXIT_INPUT)
