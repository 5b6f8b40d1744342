#!/usr/bin/env bash
# The one device check of the sw GPU solvers: compile for sm_90 (registers, spills, DPX op
# counts), the sw GPU tests, then scripts/device_sw.py (>= 1,000 fresh random pairs against
# `sequential`, Table III, scale-up database); its table comes last. Run from the repository
# root on the device machine:  bash scripts/device_sw.sh [device_sw.py options]
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1
OUT=${OUT:-device_out}
mkdir -p "$OUT"
status=0
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  for f in src/splicedalign/workloads/sw/gpu/*.cu; do
    nvcc -arch=sm_90 -std=c++17 -cubin --resource-usage -Werror all-warnings \
      -o "$OUT/$(basename "$f" .cu).cubin" "$f" 2>&1 | grep -E "error|warning|Used|spill" | sort | uniq -c || true
  done
  if command -v cuobjdump >/dev/null; then
    for inst in 'Lane16x2ELi24ELi8ELb1E' 'Lane32ELi24ELi8ELb1E'; do
      echo "SASS op counts, sw_inter $inst:"
      cuobjdump -sass "$OUT/inter.cubin" | awk -v pat="$inst" '/Function :/{f=index($0, pat)>0; next} f' \
        | grep -oE "(VIADDMNMX|VIMNMX3|VIMNMX|IMNMX|PRMT|SHFL|LDS|LDG|STG|IADD3|ISETP|SEL|BRA)[.A-Z0-9]*" | sort | uniq -c
    done
  fi
  rm -f "$OUT"/*.cubin
} > "$OUT/sw_build.log" 2>&1 || status=1
tail -n 40 "$OUT/sw_build.log"
python3 -m pytest tests/test_sw_gpu.py -q -p no:cacheprovider > "$OUT/sw_pytest.log" 2>&1 || status=1
tail -n 5 "$OUT/sw_pytest.log"
python3 scripts/device_sw.py --out "$OUT" "$@" || status=1
exit $status
