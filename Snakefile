# splicedalign benchmark pipeline: data set -> per case x solver timings -> tables, plots, report.
# Main command: snakemake --cores all   (config: config/config.yaml, see config/README.md)
import os

from snakemake.utils import min_version, validate

min_version("8.0")


configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


# Each workload's rule file sets TARGETS[workload] (its final tables and plots); `all` builds
# those of the workloads listed in config `workloads`.
TARGETS = {}


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/solve.smk"
include: "workflow/rules/report.smk"


for _workload in ("primer", "nw", "sw"):
    if os.path.exists(
        os.path.join(workflow.basedir, f"workflow/rules/{_workload}.smk")
    ):

        include: f"workflow/rules/{_workload}.smk"


TARGETS["spliced"] = [rules.tables.output, rules.plots.output]


rule all:
    default_target: True
    input:
        [TARGETS[w] for w in config["workloads"] if w in TARGETS],


onsuccess:
    print(
        f"\nsplicedalign: tables in {RESULTS}/tables/, figures in {RESULTS}/plots/"
        f"\nHTML report: snakemake --report {RESULTS}/report.html\n"
    )
