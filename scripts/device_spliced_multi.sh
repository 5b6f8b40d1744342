#!/usr/bin/env bash
# The 10-set cold call (issue 22 target 1) of this tree against a baseline tree's src, in one device call:
# fresh random cases through every spliced solver (exactness; also the answer digests of the cold works
# against the baseline's), then `device_spliced.py --cold` with its events, this tree's Tuning variants
# given as NAME=JSON arguments. Run from the tree's root: BASE=<baseline src> OUT=<dir> bash <this> [NAME=JSON ...]
# (CHECK=--skip-correctness: no random cases, the digests against the baseline only; WORK="1 set score": that
# work's timelines printed instead of the 10 sets').
set -uo pipefail
export PYTHONPATH=${PYTHONPATH:-$PWD/src} PYTHONUNBUFFERED=1
OUT=${OUT:-device_out}; mkdir -p "$OUT"; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
timeout "${LIMIT:-300}" python3 scripts/device_spliced.py --out "$OUT/sp" ${CHECK:---random 200} --skip-targets \
  --cold main="${BASE:?the baseline src}" --cold-seeds "${SEEDS:-2}" --cold-events --cold-tuning "$@" > "$OUT/cold.log" 2>&1
echo "device_spliced rc=$? [t=$((SECONDS - T0)) s]"
grep -E "^correctness|FAIL|events ${WORK:-10 sets}|cold .* seed" "$OUT/cold.log" | cut -c1-900
sed -n '/GPU target/,$p' "$OUT/cold.log"
