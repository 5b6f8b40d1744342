#!/usr/bin/env bash
# Primer workload on the device machine: GPU tests, correctness (>= 1,000 random cases vs the
# CPU `sequential`) and the benchmark table. Usage (repo root): bash scripts/device_primer.sh
# Logs and tables go to $OUT (default ./device-out).
set -uo pipefail
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export PYTHONPATH=src
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
lscpu | grep -E "^(Model name|Thread|Core|Socket|CPU\(s\))" | tee "$OUT/cpu.txt"
timeout 70 python3 -m pytest -q -p no:cacheprovider tests/test_primer_gpu.py 2>&1 | tail -5 | tee "$OUT/pytest_primer_gpu.txt"
timeout 215 python3 scripts/device_primer.py --out "$OUT" --budget 190 "$@"
echo "device_primer.py exit $?"
