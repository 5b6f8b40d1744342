#!/usr/bin/env bash
# Shipped kernels on the device (issue 22 target 3; gpu/kernels.py): the binaries load, and the
# first `splicedalign align --solver gpu` on a machine with empty caches costs at most 1 s more
# than a warm one. Then the GPU tests of every workload (their constants from one definition).
#
#   OUT=device_out bash scripts/device_kernels.sh
#
# Each timing is one fresh process on the bundled data set (16 cases, gene models, JSON): "cold"
# starts with empty CuPy kernel, driver JIT and numba caches (a fresh machine), "gpu-cold" with
# empty CuPy and driver caches only (numba's warm: the kernels' share alone); "nvrtc" ignores
# the shipped binaries (SPLICEDALIGN_SHIPPED_KERNELS=0), as the package did before.
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
OUT=${OUT:-device_out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
nvcc --version | tail -1
if [ ! -f src/splicedalign/gpu/shipped/index.json ]; then
  /usr/bin/time -f "kernel build: %e s" python3 -m splicedalign.kernels build
fi
CACHES=$(mktemp -d)
run() {  # label, cupy cache, numba cache, extra env...
  local label=$1 cupy=$2 numba=$3; shift 3
  local t0 t1
  t0=$(date +%s.%N)
  env CUPY_CACHE_DIR="$CACHES/$cupy" CUDA_CACHE_PATH="$CACHES/$cupy-cuda" NUMBA_CACHE_DIR="$CACHES/$numba" "$@" \
    python3 -m splicedalign.cli align --manifest resources/bundled/cases.tsv --solver gpu -q --format json -o "$OUT/$label.json" \
    2> "$OUT/$label.err"
  local rc=$?
  t1=$(date +%s.%N)
  printf "%-22s %6.2f s  rc=%d\n" "$label" "$(awk "BEGIN { print $t1 - $t0 }")" "$rc" | tee -a "$OUT/times.txt"
}
run shipped-cold c1 n1
run shipped-warm c1 n1
run shipped-warm-again c1 n1
run shipped-gpu-cold c2 n1
run nvrtc-gpu-cold c3 n1 SPLICEDALIGN_SHIPPED_KERNELS=0
run nvrtc-warm c3 n1 SPLICEDALIGN_SHIPPED_KERNELS=0
python3 - "$OUT" <<'PY' | tee -a "$OUT/times.txt"
import json, sys
def answers(label):  # every result without its timings
    return [{k: v for k, v in r.items() if "seconds" not in k and "mcups" not in k}
            for r in json.load(open(f"{sys.argv[1]}/{label}.json"))]
first = answers("shipped-cold")
for label in ("shipped-warm", "shipped-gpu-cold", "nvrtc-gpu-cold", "nvrtc-warm"):
    print(f"{label}: {len(first)} answers", "identical" if answers(label) == first else "DIFFER")
PY
NUMBA_CACHE_DIR="$CACHES/n1" python3 -m pytest -q -p no:cacheprovider -m "" tests/test_gpu_kernels.py \
  tests/test_primer_gpu.py tests/test_spliced_gpu_solvers.py tests/test_spliced_gpu_trace.py tests/test_nw_gpu.py \
  tests/test_sw_gpu.py > "$OUT/pytest.log" 2>&1
echo "GPU tests: $(tail -n 1 "$OUT/pytest.log")"
grep -E "FAILED|Error" "$OUT/pytest.log" | head -5
echo "---- fresh-process align --solver gpu, bundled set ($(cat "$OUT/gpu.txt"))"
cat "$OUT/times.txt"
