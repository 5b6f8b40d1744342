#!/usr/bin/env bash
# The device check of every GPU solver, one workload after another (default: all four).
# For each workload: build its kernels for sm_90 (registers, spills, DPX/PRMT op counts), run
# its GPU tests, then scripts/device_<workload>.py: fresh random cases against the CPU
# `sequential` (identical answers, chains/CIGARs checked), then its benchmark/target table.
# Each workload's table is printed as it ends and all of them again, last.
#
#   bash scripts/device_check.sh [spliced|primer|nw|sw ...]
#
# Run from the repository root on a GPU machine (logs under $OUT, default ./device_out).
# Per-workload options: SPLICED_ARGS, PRIMER_ARGS, NW_ARGS, SW_ARGS (passed to the .py).
# spliced also runs benchmarks/spliced_cold.py (issue 22 targets 1-4; options: SPLICED_COLD_ARGS).
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1
OUT=${OUT:-device_out}
mkdir -p "$OUT"
status=0
workloads=("${@:-spliced}")
[ $# -eq 0 ] && workloads=(spliced primer nw sw)

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$OUT/gpu.txt"

for w in "${workloads[@]}"; do
  mkdir -p "$OUT/$w"
  {
    for f in src/splicedalign/workloads/"$w"/gpu/*.cu; do
      nvcc -arch=sm_90 -std=c++17 -I src/splicedalign/gpu/include -cubin --resource-usage -Werror all-warnings \
        -o "$OUT/$w/$(basename "$f" .cu).cubin" "$f" 2>&1 | grep -E "error|warning|Used|spill" | sort | uniq -c
      if command -v cuobjdump >/dev/null; then
        echo "SASS op counts, all of $(basename "$f"):"
        cuobjdump -sass "$OUT/$w/$(basename "$f" .cu).cubin" \
          | grep -oE "(VIADDMNMX|VIMNMX3|VIMNMX|VIBMAX|PRMT|SHFL)[.A-Z0-9]*" | sort | uniq -c
      fi
    done
    rm -f "$OUT/$w"/*.cubin
  } > "$OUT/$w/build.log" 2>&1 || status=1
  grep -E "error|spill" "$OUT/$w/build.log" | grep -v " 0 bytes spill" | head -5
  python3 -m pytest -q -p no:cacheprovider tests/test_"$w"_gpu*.py > "$OUT/$w/pytest.log" 2>&1 || status=1
  echo "$w GPU tests: $(tail -n 1 "$OUT/$w/pytest.log")"
  args_var="$(echo "$w" | tr a-z A-Z)_ARGS"
  # shellcheck disable=SC2086  # the options are meant to split
  python3 scripts/device_"$w".py --out "$OUT/$w" ${!args_var:-} 2>&1 | tee "$OUT/$w/check.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; echo "$w: device check FAILED"; }
  if [ "$w" = spliced ]; then  # issue 22 targets 1-4: fresh processes, fresh seeds, the CLI end to end
    # shellcheck disable=SC2086
    python3 benchmarks/spliced_cold.py --out "$OUT/spliced/cold" ${SPLICED_COLD_ARGS:-} 2>&1 | tee "$OUT/spliced/cold.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; echo "spliced: cold benchmark FAILED"; }
  fi
done

echo
echo "================ summary ($(head -n 2 "$OUT/gpu.txt" | tail -n 1 | cut -d, -f1)) ================"
for w in "${workloads[@]}"; do
  echo "--- $w: $(tail -n 1 "$OUT/$w/pytest.log")"
  # each check prints its table last; show its final block
  awk 'BEGIN{RS=""} {block=$0} END{print block}' "$OUT/$w/check.log"
  [ -f "$OUT/$w/cold.log" ] && awk 'BEGIN{RS=""} {block=$0} END{print block}' "$OUT/$w/cold.log"
done
exit $status
