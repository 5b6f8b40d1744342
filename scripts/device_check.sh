#!/usr/bin/env bash
# The one device check of the spliced GPU solvers: compile for sm_90 (registers, spills), GPU
# tests, then scripts/device_check.py (golden via pytest, >= 2,000 fresh random cases against
# `sequential`, chains by the oracle, issue-12 GPU targets); its table comes last. Run from the
# repository root on the device machine:  bash scripts/device_check.sh [device_check.py options]
# (logs under $OUT, default ./device_out)
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1
OUT=${OUT:-device_out}
mkdir -p "$OUT"
status=0
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  for f in src/splicedalign/workloads/spliced/gpu/*.cu; do
    nvcc -arch=sm_90 -std=c++17 -cubin --resource-usage -o "$OUT/$(basename "$f" .cu).cubin" "$f" 2>&1 | grep -E "error|Used|spill" || true
  done
  if command -v cuobjdump >/dev/null; then
    echo "SASS op counts, wavefront<int,8,true>:"
    cuobjdump -sass "$OUT/wavefront.cubin" | awk '/Function : .*wavefrontIiLi8ELb1E/{f=1;next} /Function :/{f=0} f' \
      | grep -oE "(VIADDMNMX|VIMNMX|IMNMX|PRMT|SHFL|LDG|STG|IADD3|ISETP|SEL|BRA)[.A-Z0-9]*" | sort | uniq -c
  fi
  rm -f "$OUT"/*.cubin
} > "$OUT/build.log" 2>&1 || status=1
tail -n 30 "$OUT/build.log"
python3 -m pytest tests/test_spliced_gpu_plan.py tests/test_spliced_gpu_trace.py tests/test_gpu_nvcc.py tests/test_spliced_gpu_solvers.py \
  tests/test_spliced_golden.py -q -p no:cacheprovider > "$OUT/pytest.log" 2>&1 || status=1
tail -n 5 "$OUT/pytest.log"
python3 scripts/device_check.py --out "$OUT" "$@" || status=1
exit $status
