# Shared by every workload's rules: the TARGETS contract and config path resolution.
# Every included file shares one global namespace, read when jobs run: prefix your globals
# with your workload's name and import modules under prefixed aliases (`from ... import
# pipeline as sw_pipeline`), or another workload's later import replaces your names.
import os
from pathlib import Path

from splicedalign.gpu.device import MEMORY_CAP_ENV, unavailable_reason

# Each workload's rules set TARGETS["<workload>"] to its final tables and plots; rule
# `all` builds those of the workloads listed in config `workloads`.
TARGETS = {}
# A workload may add CLOSING["<workload>"] = function returning lines (e.g. warnings about
# its results) for the message printed when a run succeeds.
CLOSING = {}


# Whether GPU solvers can run here, asked once (cheap: CuPy sees a device; nothing compiles).
GPU_UNAVAILABLE = unavailable_reason()
# config gpu_memory: the most GPU memory each GPU solver of the run takes (default: what the
# device has free); the solver processes of the jobs inherit it.
if config.get("gpu_memory"):
    os.environ[MEMORY_CAP_ENV] = str(config["gpu_memory"])


def results_folders(targets):
    """The folders (results/<workload>/<data set>/) that hold these targets and exist now."""
    paths = (str(p) for outputs in targets for output in outputs for p in output)
    folders = dict.fromkeys(os.path.join(*Path(p).parts[:3], "") for p in paths)
    return [f for f in folders if os.path.isdir(f)]


def in_workflow(path):
    """Config paths are relative to the workflow's folder unless absolute."""
    return path if os.path.isabs(path) else os.path.join(workflow.basedir, path)


# ---- several GPUs on one node (issue 25). `--resources gpu=N` caps the GPU jobs running at
# once but pins none to a device (snakemake issue #281): a GPU job's body runs through
# on_gpu, which holds one device's slot (splicedalign.gpu.slots: a lock file per device, so
# never two jobs on one) and makes that device current. On a node with N GPUs,
# `--resources gpu=N bench=N` runs N GPU jobs at once while a CPU timing job, which takes every
# bench unit (timing_bench), still runs alone. One visible GPU (or none): no slots, as before.
import time

from splicedalign.gpu.devices import parse_devices, resolve_devices, visible_count
from splicedalign.gpu.slots import jobs_per_device, on_slot, visible_names

GPU_SLOTS = os.path.join(".snakemake", "gpu-slots")
GPU_RUN_START = time.time()


def timing_bench(gpu):
    """Bench units a timing job takes: one for a GPU job, all of them for a CPU one."""
    bench = workflow.global_resources.get("bench")  # a snakemake Resource (or None)
    return 1 if gpu else int(getattr(bench, "value", bench) or 1)


def on_gpu(gpu, wildcards, job, *args):
    """``job(*args)``, as a GPU job when ``gpu``: with several GPUs visible it holds a device's
    slot for its duration (the ledger names the job and its wildcards), the device current in
    this thread.
    One GPU or none: ``job(*args)`` as it is."""
    return _on_gpu(gpu, wildcards, job, args, False)


def on_gpu_device(gpu, wildcards, job, *args):
    """As on_gpu, the device's name passed to ``job`` as ``device=`` instead (a job that solves
    in a process of its own per device)."""
    return _on_gpu(gpu, wildcards, job, args, True)


def _on_gpu(gpu, wildcards, job, args, named):
    count = visible_count() if gpu and GPU_UNAVAILABLE is None else 0
    if count < 2:
        return job(*args)
    names = visible_names(count)
    taken = resolve_devices(parse_devices(config["devices"]), count, "config devices")
    name = " ".join([job.__name__, *map(str, wildcards)])
    return on_slot(GPU_SLOTS, [names[d] for d in taken], name, job, args, named)


def gpu_summary():
    """The run's GPU jobs per device (slots taken since it started), for the closing message."""
    counts = jobs_per_device(GPU_SLOTS, GPU_RUN_START)
    return (
        ["GPU jobs per device: " + ", ".join(f"{d}: {n}" for d, n in counts.items())]
        if counts
        else []
    )
