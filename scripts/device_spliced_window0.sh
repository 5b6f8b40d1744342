#!/usr/bin/env bash
# Issue 22 target 1's 1-set row, this tree against a baseline tree's src in one device call: both trees'
# install steps (numba's host code cached), the spliced GPU tests, fresh random cases through every spliced
# solver, the cold works in full (1 set score and traced, 10 sets) for a few seeds, then the 1-set score call
# alone in many fresh processes (trees and this tree's Tuning variants, given as NAME=JSON arguments, taking
# turns), with events (window 0's time at the kernel) and each call's host steal ticks.
# Run from the tree's root: BASE=<baseline src> OUT=<dir> bash <this> [NAME=JSON ...]
# (RANDOM_CASES, FULL_SEEDS, ONE_SEEDS: how many; defaults 1000, 2, 8. Time limits, s: HOST_LIMIT, PYTEST_LIMIT,
# FULL_LIMIT, ONE_LIMIT per stage, COLD_LIMIT per cold process: a tree whose process fails or runs out is not run
# again, so a hang costs its wait once.)
set -uo pipefail
export PYTHONPATH=${PYTHONPATH:-$PWD/src} PYTHONUNBUFFERED=1
OUT=${OUT:-device_out}; mkdir -p "$OUT"; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
for T in "${BASE:?the baseline src}" "$PWD/src"; do
  PYTHONPATH=$T timeout "${HOST_LIMIT:-120}" python3 -m splicedalign.kernels host --no-libraries > /dev/null 2>&1
  echo "kernels host $T rc=$? [t=$((SECONDS - T0)) s]"
done
timeout "${PYTEST_LIMIT:-150}" python3 -m pytest -q -x -p no:cacheprovider -m "slow or not slow" tests/test_spliced_gpu_solvers.py \
  tests/test_spliced_target_ends.py > "$OUT/pytest.log" 2>&1
echo "GPU pytest rc=$? [t=$((SECONDS - T0)) s]: $(tail -1 "$OUT/pytest.log")"
timeout "${FULL_LIMIT:-200}" python3 scripts/device_spliced.py --out "$OUT/full" --random "${RANDOM_CASES:-1000}" --skip-targets \
  --cold main="$BASE" --cold-seeds "${FULL_SEEDS:-2}" --cold-events --cold-timeout "${COLD_LIMIT:-60}" > "$OUT/full.log" 2>&1
echo "full works rc=$? [t=$((SECONDS - T0)) s]"
grep -E "^correctness|FAIL|cold .* seed" "$OUT/full.log" | cut -c1-400
sed -n '/GPU target/,$p' "$OUT/full.log"
timeout "${ONE_LIMIT:-240}" python3 scripts/device_spliced.py --out "$OUT/one" --skip-correctness --skip-targets \
  --cold main="$BASE" --cold-seeds "${ONE_SEEDS:-8}" --cold-works "1 set score" --cold-events \
  --cold-timeout "${COLD_LIMIT:-60}" --cold-tuning "$@" \
  > "$OUT/one.log" 2>&1
echo "1 set alone rc=$? [t=$((SECONDS - T0)) s]"
grep -E "FAIL|events 1 set|cold .* seed" "$OUT/one.log" | cut -c1-700
sed -n '/GPU target/,$p' "$OUT/one.log"
