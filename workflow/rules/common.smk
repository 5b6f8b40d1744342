# Shared by every workload's rules: the TARGETS contract and config path resolution.
# Every included file shares one global namespace, read when jobs run: prefix your globals
# with your workload's name and import modules under prefixed aliases (`from ... import
# pipeline as sw_pipeline`), or another workload's later import replaces your names.
import os
from pathlib import Path

from splicedalign.gpu.device import unavailable_reason

# Each workload's rules set TARGETS["<workload>"] to its final tables and plots; rule
# `all` builds those of the workloads listed in config `workloads`.
TARGETS = {}
# A workload may add CLOSING["<workload>"] = function returning lines (e.g. warnings about
# its results) for the message printed when a run succeeds.
CLOSING = {}


# Whether GPU solvers can run here, asked once (cheap: CuPy sees a device; nothing compiles).
GPU_UNAVAILABLE = unavailable_reason()


def results_folders(targets):
    """The folders (results/<workload>/<data set>/) that hold these targets and exist now."""
    paths = (str(p) for outputs in targets for output in outputs for p in output)
    folders = dict.fromkeys(os.path.join(*Path(p).parts[:3], "") for p in paths)
    return [f for f in folders if os.path.isdir(f)]


def in_workflow(path):
    """Config paths are relative to the workflow's folder unless absolute."""
    return path if os.path.isabs(path) else os.path.join(workflow.basedir, path)
