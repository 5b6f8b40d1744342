#!/usr/bin/env bash
# Issue 22 target 1 as an A/B of trees on one GPU machine: each arm's own `benchmarks/spliced_cold.py --targets 1`
# in fresh processes, one process an arm a round, the arms in turn, the same seed for every arm of a round; then
# scripts/cold_ab_summary.py (medians, each arm against the first round by round). Run from the repository root:
#
#   ARMS="main=. branch=.wt/k/branch" [CHECK=branch] [RANDOM_CASES=600] [ROUNDS=5] [SEED0=2440000] [END=540] \
#       bash scripts/device_spliced_cold_ab.sh
#
# An arm is NAME=PATH (a tree with src/ and benchmarks/, relative to the root; arms may share a tree); PP_NAME, if
# set, is a folder put first on that arm's PYTHONPATH (a sitecustomize.py that sets a tuning, say). Each tree's numba
# host code is compiled first (`python -m splicedalign.kernels host`, in parallel); CHECK names the arm whose spliced
# GPU tests and `device_spliced.py --random RANDOM_CASES` (0: none) run before the rounds. No process starts after
# END seconds, and none runs past END + 60 (a call's limit must leave room for the summary after that). A fresh
# machine's first ~5 minutes are slow, host and GPU (round 25: replay kernels 42-70 ms against ~12): put the checks
# (CHECK) first. Wheels under .whl/ (pytest-xdist, for the tests) are installed into /tmp/site first. Logs under $OUT.
set -u
OUT=${OUT:-device_out}; mkdir -p "$OUT"; OUT=$(realpath "$OUT")
ROOT=$PWD
export PYTHONUNBUFFERED=1
[ -d .whl ] && python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
declare -A TREE
for arm in $ARMS; do TREE[${arm%%=*}]=${arm#*=}; done
for path in $(printf '%s\n' "${TREE[@]}" | sort -u); do  # (once a tree)
  (cd "$path" && PYTHONPATH=src:/tmp/site python3 -m splicedalign.kernels host > "$OUT/host_${path//[\/.]/_}.log" 2>&1
   echo "host code of $path: rc $?") &
done
wait; echo "host code compiled at $SECONDS s"
if [ -n "${CHECK:-}" ]; then
  (cd "${TREE[$CHECK]}" && PYTHONPATH=src:/tmp/site python3 -m pytest -q -p no:cacheprovider -n 8 tests/test_spliced_gpu*.py \
     > "$OUT/pytest_$CHECK.log" 2>&1; echo "spliced GPU pytest of $CHECK: $(tail -n 1 "$OUT/pytest_$CHECK.log")")
  if [ "${RANDOM_CASES:-600}" -gt 0 ]; then
    (cd "${TREE[$CHECK]}" && PYTHONPATH=src:/tmp/site python3 scripts/device_spliced.py --random "${RANDOM_CASES:-600}" \
       --skip-targets --out /tmp/device_spliced > "$OUT/random_$CHECK.log" 2>&1
     echo "random cases of $CHECK: rc $?"; grep -E "failures|seed" "$OUT/random_$CHECK.log" | tail -2)
  fi
  echo "checks done at $SECONDS s"
fi
for r in $(seq 1 "${ROUNDS:-5}"); do
  for arm in $ARMS; do
    name=${arm%%=*}
    [ "$SECONDS" -gt "${END:-540}" ] && break 2
    extra=PP_$name; path=src:/tmp/site; [ -n "${!extra:-}" ] && path=$ROOT/${!extra}:$path
    (cd "${TREE[$name]}" && PYTHONPATH=$path timeout $(( ${END:-540} + 60 - SECONDS )) python3 benchmarks/spliced_cold.py --targets 1 --processes 1 \
       --seed $(( ${SEED0:-2440000} + 1000 * r )) --out "/tmp/cold_${name}_$r" > "$OUT/cold_${name}_$r.log" 2>&1)
    cp "/tmp/cold_${name}_$r/cold.json" "$OUT/cold_${name}_$r.json" 2>/dev/null || echo "$name round $r: no cold.json"
  done
done
python3 "$ROOT/scripts/cold_ab_summary.py" "$OUT" | tee "$OUT/summary.txt"
cd "$OUT" && tar czf logs.tgz --exclude logs.tgz -- * && rm -f cold_*  # (few files come back: the rest in one)
