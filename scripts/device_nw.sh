#!/usr/bin/env bash
# The one device check of the nw GPU solvers: nvcc build for sm_90 (registers, spills, DPX ops
# in SASS), then scripts/device_nw.py: >= 1,000 fresh random pairs against `sequential` (every
# CIGAR re-scored), large pairs against `multicore`, then the benchmark table (printed last).
# Run from the repository root on the device machine:  bash scripts/device_nw.sh [options]
# (logs under $OUT, default ./device_out)
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1
OUT=${OUT:-device_out}
mkdir -p "$OUT"
status=0
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
  for f in src/splicedalign/workloads/nw/gpu/*.cu; do
    nvcc -arch=sm_90 -std=c++17 -cubin --resource-usage -Werror all-warnings \
      -o "$OUT/$(basename "$f" .cu).cubin" "$f" 2>&1 | grep -E "error|Used|spill" || true
  done
  if command -v cuobjdump >/dev/null; then
    echo "SASS op counts, nw_strips<8,true>:"
    cuobjdump -sass "$OUT/strips.cubin" | awk '/Function : .*nw_stripsILi8ELb1E/{f=1;next} /Function :/{f=0} f' \
      | grep -oE "(VIADDMNMX|VIMNMX|IMNMX|PRMT|SHFL|LDG|STG|IADD3|ISETP|SEL|BRA)[.A-Z0-9]*" | sort | uniq -c
  fi
  rm -f "$OUT"/*.cubin
} > "$OUT/build.log" 2>&1 || status=1
tail -n 24 "$OUT/build.log"
python3 -m pytest tests/test_nw_gpu.py tests/test_gpu_nvcc.py -q -p no:cacheprovider > "$OUT/pytest.log" 2>&1 || status=1
tail -n 3 "$OUT/pytest.log"
python3 scripts/device_nw.py --out "$OUT" "$@" || status=1
exit $status
