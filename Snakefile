# splicedalign benchmark pipeline: for each workload, data set -> timed jobs -> tables, figures;
# one HTML report holds every workload (snakemake --report results/report.html).
# Main command: snakemake --cores all   (config: config/config.yaml, see config/README.md)
import os

import yaml
from snakemake.utils import min_version

from splicedalign.core.pipeline_config import ConfigError, check, stop

min_version("8.0")


configfile: "config/config.yaml"


# Validated against workflow/schemas/config.schema.yaml, with --config strings read as the
# schema's types; a bad key stops here in one line (no traceback, no schema).
with open(
    os.path.join(workflow.basedir, "workflow/schemas/config.schema.yaml")
) as _schema:
    try:
        _checked = check(config, yaml.safe_load(_schema))
    except ConfigError as _error:
        stop(_error)
config.clear()
config.update(_checked)


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"


# A workload's rules live in workflow/rules/<workload>.smk (peers.smk adds other tools beside
# the spliced solvers); each rule file sets TARGETS[<workload>].
WORKLOAD_ORDER = ("spliced", "peers", "primer", "nw", "sw")
RULE_FILES = {
    w: f"workflow/rules/{w}.smk"
    for w in WORKLOAD_ORDER
    if os.path.exists(os.path.join(workflow.basedir, f"workflow/rules/{w}.smk"))
}


for _rules in RULE_FILES.values():

    include: _rules


WORKLOADS = (
    [w for w in WORKLOAD_ORDER if w in TARGETS]
    if config["workloads"] == "all"
    else config["workloads"]
)
_missing = [w for w in WORKLOADS if w not in TARGETS]
if _missing:
    raise ValueError(
        f"config workloads: no rules for {', '.join(_missing)} (have: {', '.join(TARGETS)})"
    )


rule all:
    default_target: True
    input:
        [TARGETS[w] for w in WORKLOADS],


onsuccess:
    print(
        "\nsplicedalign: tables and figures under",
        ", ".join(results_folders(TARGETS[w] for w in WORKLOADS)),
    )
    for w in WORKLOADS:
        for line in CLOSING.get(w, list)():
            print("WARNING", line)
    for line in gpu_summary():
        print(line)
    print("HTML report: snakemake --report results/report.html\n")
