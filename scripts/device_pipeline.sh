#!/usr/bin/env bash
# The real Snakemake pipeline on a GPU node (issue 12 target 8): the spliced workload with the
# GPU solvers, on the bundled set and on a paper-shaped synthetic set, through `snakemake`
# (not the standalone runner), with `--resources bench=1 gpu=1`.
#
# Where Snakemake is missing (the device image has none and no network), it is installed
# offline from the wheelhouse that scripts/build_device_wheels.sh makes (carry it); the package
# itself is installed editable without dependencies (its console script runs the synthetic
# rule), or reached through PYTHONPATH and a shim where that fails. Prints, per data set, the
# wall time, how many jobs declared gpu=1, the score agreement and summary.tsv (which names
# the device of each solver); leaves in OUTDIR one tarball of results, logs and benchmark
# files (configs, Snakemake's logs, each run's account: WORK, default OUTDIR.work, is tarred
# too), plus each summary.tsv. Without a GPU the same run marks the GPU solvers n/a.
#
# Usage: scripts/device_pipeline.sh [OUTDIR]      (default $OUT, else device_out/pipeline)
#   WHEELS=.device_wheels  CORES=$(nproc)  SETS="bundled paper" (the runs, in order)
#   PAPER_EVERY=15, PAPER_MAX_CELLS=200000000: the paper-shaped set's sample, every 15th of its
#   1,010 cases (the manifest lists them gene by gene, largest gene first, so its first cases
#   are not a sample) up to 200 M cells (its one 575 kbp gene, 5 cases of 744 M cells, holds a
#   quarter of the cells and takes ~25 s per case for the paper's accelerators); PAPER_EVERY=1
#   with PAPER_MAX_CELLS=null is the whole set (an hour of jobs with every solver)
#   PAPER_SOLVERS="[sequential, multicore, accel1, accel2, gpu]"  BUDGET_S=0 (whole-script
#   limit in seconds: a run still going then is stopped in time to tar the rest; 0 = none)
#   GPUS=1: `--resources bench=GPUS gpu=GPUS`; on a node with several GPUs, GPUS=2 runs two GPU
#   jobs at once, each on its own device (issue 25; the log's last lines count jobs per device)
set -uo pipefail
cd "$(dirname "$0")/.."
OUTDIR=${1:-${OUT:-device_out/pipeline}}
WHEELS=${WHEELS:-.device_wheels}
CORES=${CORES:-$(nproc)}
SETS=${SETS:-bundled paper}
PAPER_EVERY=${PAPER_EVERY:-15}
PAPER_MAX_CELLS=${PAPER_MAX_CELLS:-200000000}
PAPER_SOLVERS=${PAPER_SOLVERS:-"[sequential, multicore, accel1, accel2, gpu]"}
BUDGET_S=${BUDGET_S:-0}
GPUS=${GPUS:-1}
START=$(date +%s)
export PYTHONUNBUFFERED=1
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
WORK=${WORK:-$OUTDIR.work}
rm -rf "$WORK" && mkdir -p "$WORK"
say() { echo "== $*"; }

# ---- Snakemake and the package, offline
if ! python3 -c 'import snakemake, jsonschema, yaml' 2>/dev/null; then
    say "installing Snakemake from $WHEELS"
    python3 -m pip install -q --disable-pip-version-check --no-index --find-links "$WHEELS" \
        snakemake jsonschema pyyaml || { echo "device_pipeline: Snakemake did not install" >&2; exit 1; }
fi
if ! python3 -c 'import splicedalign' 2>/dev/null || ! command -v splicedalign >/dev/null; then
    if python3 -m pip install -q --disable-pip-version-check --no-index --no-deps --no-build-isolation -e . \
            >"$WORK/pip-install-e.log" 2>&1; then
        PATH="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH"
    else
        say "editable install failed (pip-install-e.log): PYTHONPATH=src and a shim for the console script"
        export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
        mkdir -p "$WORK/.bin"
        printf '#!/bin/sh\nexec python3 -m splicedalign.cli "$@"\n' >"$WORK/.bin/splicedalign"
        chmod +x "$WORK/.bin/splicedalign"
        PATH="$WORK/.bin:$PATH"
    fi
fi
export PATH
say "python $(python3 -c 'import platform; print(platform.python_version())'), snakemake $(python3 -m snakemake --version)," \
    "commit $(cat .commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo "?")"
python3 - <<'EOF'
from splicedalign.gpu.device import device_info, unavailable_reason
from splicedalign.workloads.spliced.pipeline import device_name
reason = unavailable_reason()
print("== GPU:", f"none ({reason})" if reason else device_info(), "| CPU:", device_name("sequential"))
EOF

# ---- one pipeline run per data set: NAME CONFIG-YAML
run() {
    local name=$1 cfg="$WORK/config-$1.yaml" limit=()
    printf '%s\n' "$2" >"$cfg"
    if ((BUDGET_S > 0)); then
        local left=$((BUDGET_S - ($(date +%s) - START) - 30))
        ((left > 10)) || { say "$name: skipped, no time left in BUDGET_S"; return; }
        limit=(timeout "$left")
    fi
    say "$name: snakemake --cores $CORES --resources bench=$GPUS gpu=$GPUS --configfile $cfg"
    local t0 t1 rc
    t0=$(date +%s.%N)
    "${limit[@]}" python3 -m snakemake --cores "$CORES" --resources bench="$GPUS" gpu="$GPUS" --configfile "$cfg" \
        >"$WORK/snakemake-$name.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    tail -n 5 "$WORK/snakemake-$name.log"
    grep -h "^GPU jobs per device" "$WORK/snakemake-$name.log" || true
    python3 scripts/device_pipeline_summary.py "$name" "$WORK/snakemake-$name.log" \
        "$(python3 -c "print(f'{$t1 - $t0:.1f}')")" "$rc" "$WORK"
}

for set in $SETS; do
    case $set in
    bundled) run bundled "workloads: [spliced]
spliced: {dataset: bundled, solvers: auto}" ;;
    paper)
        # the sample's case ids, from the same seeded generator the pipeline's rule runs
        splicedalign synthetic paper "$WORK/paper-ids" >"$WORK/paper-ids.log" 2>&1 || { cat "$WORK/paper-ids.log"; continue; }
        include=$(python3 -c "import csv, sys; rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
print(', '.join(r['case'] for r in rows[::int(sys.argv[2])]))" "$WORK/paper-ids/cases.tsv" "$PAPER_EVERY")
        rm -rf "$WORK/paper-ids"
        run paper "workloads: [spliced]
spliced:
  dataset: synthetic
  synthetic: {set: paper, seed: null}
  cases: {include: [$include], max_cells: $PAPER_MAX_CELLS, limit: null}
  solvers: $PAPER_SOLVERS" ;;
    *) echo "device_pipeline: unknown set '$set' in SETS (bundled, paper)" >&2 ;;
    esac
done

# ---- what comes back: one tarball (results without the data copies, Snakemake's logs)
cp "$WORK"/summary-*.tsv "$OUTDIR"/ 2>/dev/null
tar -czf "$OUTDIR/pipeline_results.tar.gz" --exclude='results/spliced/*/data' results/spliced .snakemake/log \
    -C "$(dirname "$WORK")" "$(basename "$WORK")"
say "tarball $(du -h "$OUTDIR/pipeline_results.tar.gz" | cut -f1); whole script $(($(date +%s) - START)) s"
echo
cat "$WORK"/closing-*.txt
