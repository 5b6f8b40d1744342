#!/bin/bash
# One device call for issue 26's single-pair host time and the pywfa peer's build (nw-host10), run from a
# tree carried under main's .wt/ (main's own src two folders up, ../../src, or BASE_SRC, for the A/B); logs under $OUT,
# a summary last:
#   0. pywfa: the carried wheel (.whl/pywfa-*.whl, built on another CPU) installed, and pywfa built on this
#      host from its sdist (scripts/pywfa_native.sh: -march=native, as a user's `pip install pywfa`) in the
#      background while 1 runs;
#   1. this tree's GPU pytest of the WFA (tests/test_nw_gpu_wfa*.py) beside device_nw.py --quick (fresh
#      random pairs of every mode and cost model against the CPU solvers);
#   2. GpuSolver.solve host to host (scripts/profile_nw_host.py: $CASES, $REPEATS calls; 10^6 1% 30 calls
#      unless LONG=0), main's src and this tree's in turn, $ROUNDS times each;
#   3. both pywfa builds on the side rows (scripts/time_pywfa_builds.py: peers.time_pywfa,
#      $BUILD_PROCESSES fresh processes a build; linear $BUILD_CASES, gap-affine $BUILD_AFFINE);
#   4. with SIDE_AFFINE set: device_nw.py --side, gap-affine, on those cases with the native pywfa
#      (the benchmark's way: `gpu` against pywfa in the same run; pywfa in $SIDE_PROCESSES processes).
set -u
OUT=${OUT:-device_out}
mkdir -p "$OUT"
BASE=${BASE_SRC:-$(realpath ../../src)}  # (the A/B's other tree: main's src, or BASE_SRC)
HERE=$PWD
CASES=${CASES:-100000-1 30368-10 100000-5}
REPEATS=${REPEATS:-200}
ROUNDS=${ROUNDS:-2}
LONG=${LONG:-1}
BUILD_CASES=${BUILD_CASES-100000-1 30368-10 100000-5 1000000-1}
BUILD_AFFINE=${BUILD_AFFINE-100000-1 30368-10}
BUILD_PROCESSES=${BUILD_PROCESSES:-3}
SIDE_AFFINE=${SIDE_AFFINE:-}
SIDE_PROCESSES=${SIDE_PROCESSES:-3}
{ grep -m1 "model name" /proc/cpuinfo; nproc; grep -m1 -o -w "avx512f" /proc/cpuinfo;
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } >"$OUT/summary.txt" 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site_wheel .whl/pywfa-*.whl \
    >>"$OUT/summary.txt" 2>&1
(timeout 200 scripts/pywfa_native.sh .whl /tmp/site_native "$OUT/native_build.log"; echo "native build rc $?" \
    >/tmp/native_rc) &
BUILD=$!
timeout 150 python3 -m pytest -q -x -p no:cacheprovider tests/test_nw_gpu_wfa.py tests/test_nw_gpu_wfa_cluster.py \
    >"$OUT/pytest.log" 2>&1 &
PYTEST=$!
PYTHONPATH=$PYTHONPATH:/tmp/site_wheel timeout 100 python3 scripts/device_nw.py --quick --pairs 150 --mode-pairs 200 \
    --budget 60 --out /tmp/quick >"$OUT/quick.log" 2>&1
echo "quick rc $?: $(grep -E "failures" "$OUT/quick.log" | tr '\n' ' ')" >>"$OUT/summary.txt"
wait $PYTEST
echo "pytest: $(tail -1 "$OUT/pytest.log")" >>"$OUT/summary.txt"
grep -E "^(FAIL|E  )" "$OUT/pytest.log" "$OUT/quick.log" | head >>"$OUT/summary.txt"
wait $BUILD
cat /tmp/native_rc >>"$OUT/summary.txt"
grep -E "^(host|pywfa from|built)" "$OUT/native_build.log" >>"$OUT/summary.txt"
# 2. the host A/B (nothing else running)
host_rows() {  # $CASES, then 10^6 1% unless LONG=0, tagged $1, by the src on PYTHONPATH
    timeout 60 python3 "$HERE/scripts/profile_nw_host.py" --cases $CASES --repeats "$REPEATS" --tag "$1" \
        && { [ "$LONG" = 0 ] || timeout 30 python3 "$HERE/scripts/profile_nw_host.py" --cases 1000000-1 --repeats 30 \
        --tag "$1"; }
}
for round in $(seq "$ROUNDS"); do
    (cd ../.. && PYTHONPATH=$BASE host_rows main$round) >>"$OUT/host_ab.log" 2>&1
    host_rows this$round >>"$OUT/host_ab.log" 2>&1
done
NATIVE=0
grep -q "rc 0" /tmp/native_rc && NATIVE=1
# 3. the pywfa builds on the side rows
if [ $NATIVE = 1 ]; then
    PYTHONPATH=$PYTHONPATH:/tmp/site_wheel timeout 150 python3 scripts/time_pywfa_builds.py \
        --sites wheel=/tmp/site_wheel native=/tmp/site_native --cases $BUILD_CASES --affine-cases $BUILD_AFFINE \
        --processes "$BUILD_PROCESSES" --out "$OUT/builds.json" >"$OUT/builds.log" 2>&1
    echo "builds rc $?" >>"$OUT/summary.txt"
fi
# 4. the side rows with the native build
if [ $NATIVE = 1 ] && [ -n "$SIDE_AFFINE" ]; then
    PYTHONPATH=$PYTHONPATH:/tmp/site_native timeout 120 python3 scripts/device_nw.py --side --skip-check \
        --side-cases $SIDE_AFFINE --side-costs affine --pywfa-processes "$SIDE_PROCESSES" \
        --budget 100 --out /tmp/side >"$OUT/side.log" 2>&1
    echo "side rc $?" >>"$OUT/summary.txt"
fi
{
    echo "== host A/B (GpuSolver.solve, ms)"; grep -E "^(main|this)[0-9]+ " "$OUT/host_ab.log" | grep " ms ("
    echo "== pywfa builds"; grep -E "^(round|FAIL|\|)" "$OUT/builds.log" 2>/dev/null
    echo "== side (native pywfa)"; grep -E "^(FAIL|\|)|^  (gpu|pywfa) " "$OUT/side.log" 2>/dev/null | cut -c1-220
} >>"$OUT/summary.txt"
cat "$OUT/summary.txt"
