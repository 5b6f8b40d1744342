#!/usr/bin/env bash
# Build the wheelhouse that carries Snakemake to the GPU device machine (issue 12 target 8).
#
# The device runs Python 3.12 on x86-64 Linux with no network and no Snakemake, so the
# pipeline's missing packages travel as wheels in a git-ignored folder (carried by the device
# call, see scripts/device_pipeline.sh). This downloads the whole dependency closure of
# Snakemake (plus jsonschema and PyYAML, which the config validation needs) as cp312
# manylinux wheels; a requirement published only as a source distribution (connection_pool)
# is built here into a pure-Python wheel and the download retried, until the closure
# resolves. The closure is complete on its own: `pip install --no-index --find-links DIR
# snakemake` works in an empty Python 3.12 environment, and on the device pip keeps the
# packages its image already has where their versions fit.
#
# Usage: scripts/build_device_wheels.sh [DIR]   (default .device_wheels; SNAKEMAKE=9.27.1)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-.device_wheels}
SNAKEMAKE=${SNAKEMAKE:-$(python3 -c 'import importlib.metadata as m; print(m.version("snakemake"))' 2>/dev/null || echo 9.27.1)}
REQS=("snakemake==$SNAKEMAKE" jsonschema pyyaml)
TARGET=(--only-binary=:all: --python-version 3.12 --implementation cp --abi cp312 --abi abi3 --abi none
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
        --platform manylinux2014_x86_64 --platform manylinux1_x86_64)
quiet() { grep -v "^WARNING: Location" || true; }  # pip's notes on absent local index folders

rm -rf "$DIR" && mkdir -p "$DIR"
resolved=
for attempt in $(seq 1 10); do
    if out=$(python3 -m pip download --disable-pip-version-check "${TARGET[@]}" --find-links "$DIR" \
             -d "$DIR" "${REQS[@]}" 2>&1); then
        resolved=yes
        break
    fi
    missing=$(sed -n 's/^ERROR: No matching distribution found for \(.*\)$/\1/p' <<<"$out" | head -1)
    if [[ -z $missing ]]; then
        quiet <<<"$out" >&2
        echo "build_device_wheels: download failed for another reason (above)" >&2
        exit 1
    fi
    echo "build_device_wheels: no cp312 wheel of '$missing': building it from its source distribution"
    python3 -m pip wheel -q --disable-pip-version-check --no-deps -w "$DIR" "$missing" 2>&1 | quiet
    built=$(ls "$DIR" | grep -iv -- '-py3-none-any\.whl$\|-py2\.py3-none-any\.whl$\|cp312\|abi3' || true)
    if [[ -n $built ]]; then
        echo "build_device_wheels: '$missing' built a platform-specific wheel ($built): not portable" >&2
        exit 1
    fi
done
[[ -n $resolved ]] || { echo "build_device_wheels: closure did not resolve in 10 rounds" >&2; exit 1; }
ls "$DIR"/*.tar.gz "$DIR"/*.zip 2>/dev/null && { echo "build_device_wheels: source archives left in $DIR" >&2; exit 1; }
echo "build_device_wheels: $(ls "$DIR" | wc -l) wheels, $(du -sh "$DIR" | cut -f1) in $DIR (snakemake $SNAKEMAKE)"
