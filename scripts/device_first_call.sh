#!/usr/bin/env bash
# Issue 22 T1/T2 (spliced-first5): a fresh process's first call on the GPU machine (best on a young one).
# Settings of libgomp (numba's omp layer):
# old = its default spin (300,000 rounds: main's behaviour), passive, GOMP_SPINCOUNT=3000.
# (1) the wake-up latency of the idle team (a tiny parallel pass after 0.3 s idle, 15 times);
# (2) the cold probe's shape on the GPU (scripts/probe_first_call.py --gpu --warm);
# (3) the CLI's first solve: core.jit's lazy shared bitcode against numba's own loads; the CLI row.
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-device_out}; mkdir -p "$OUT"; T0=$SECONDS
nproc; cat /proc/uptime /proc/loadavg
V=(old=GOMP_SPINCOUNT=300000 passive=OMP_WAIT_POLICY=passive s3k=GOMP_SPINCOUNT=3000)
timeout 60 python3 scripts/probe_first_call.py --wake 0.3 --wake-count 15 --variants "${V[@]}" > "$OUT/wake.log" 2>&1
echo "wake rc=$? [t=$((SECONDS-T0)) s]"; cat "$OUT/wake.log" | tail -n 8
( time timeout 200 python3 -m splicedalign.kernels host ) > "$OUT/install.log" 2>&1
echo "install rc=$? [t=$((SECONDS-T0)) s]"; tail -n 4 "$OUT/install.log"
timeout 60 python3 scripts/probe_first_call.py --gpu --warm --rounds 1 --variants "${V[@]}" \
  --json "$OUT/gpu_warm.json" > "$OUT/gpu_warm.log" 2>&1
echo "gpu warm rc=$? [t=$((SECONDS-T0)) s]"; grep -E "^(round|  (first|second|idle)|    process)" "$OUT/gpu_warm.log" | cut -c1-240
timeout 60 python3 scripts/probe_first_call.py --wake 0.3 --wake-count 15 --variants "${V[@]}" > "$OUT/wake2.log" 2>&1
echo "wake again rc=$? [t=$((SECONDS-T0)) s]"; tail -n 6 "$OUT/wake2.log"
timeout 30 python3 scripts/probe_first_call.py --gpu --cli --rounds 1 --variants default eager-loads \
  --json "$OUT/cli_probe.json" > "$OUT/cli_probe.log" 2>&1
echo "cli probe rc=$? [t=$((SECONDS-T0)) s]"; grep -E "^(round|  first)" "$OUT/cli_probe.log" | cut -c1-240
timeout 40 python3 benchmarks/spliced_cold.py --targets 2 --repeats 3 --out "$OUT/cli" > "$OUT/cli.log" 2>&1
echo "cli rc=$? [t=$((SECONDS-T0)) s]"; grep -E "CLI gpu|CLI steps, gpu score" "$OUT/cli.log" | cut -c1-600
cat /proc/uptime; echo "done [t=$((SECONDS-T0)) s]"
