# splicedalign benchmark pipeline: data set -> per case x solver timings -> tables, plots, report.
# Main command: snakemake --cores all   (config: config/config.yaml, see config/README.md)
from snakemake.utils import min_version, validate

min_version("8.0")


configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/solve.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        rules.tables.output,
        rules.plots.output,


onsuccess:
    print(
        f"\nsplicedalign: tables in {RESULTS}/tables/, figures in {RESULTS}/plots/"
        f"\nHTML report: snakemake --report {RESULTS}/report.html\n"
    )
