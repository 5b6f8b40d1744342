#!/bin/bash
# One device call for `gpu`'s wavefront kernel (issue 26, single pairs), logs under $OUT, tables last:
#   1. pytest of the WFA's GPU tests (the kernel against `sequential`, every mode x cost model, single
#      pairs and batches; `gpu`'s choice), then device_nw.py --quick (fresh random pairs, the modes x
#      costs pairs with the WFA kernel forced too, the large pairs);
#   2. profile_nw_wfa.py: the kernel alone (steps, kernel ms, us a score step);
#   3. device_nw.py --side --force-wfa: `gpu` (cost-adaptive) and the WFA kernel forced against pywfa
#      on one core, same process, same inputs (10^6: linear costs only);
#   4. Nsight Compute on one nw_wfa launch (10^5 1%, linear, score).
# Usage (device): bash scripts/device_nw_wfa.sh [side cases...]; pywfa's wheel in .whl/.
set -u
OUT=${OUT:-device_out}
mkdir -p "$OUT"
if ls .whl/pywfa-*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/pywfa-*.whl \
        && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
CASES=${*:-100000-1 30368-10 100000-5 1000000-1}
python3 -m pytest -q -x -p no:cacheprovider tests/test_nw_gpu_wfa.py >"$OUT/pytest.log" 2>&1
echo "pytest rc $?: $(tail -1 "$OUT/pytest.log")"
timeout 90 python3 scripts/device_nw.py --quick --pairs 60 --mode-pairs 60 --out "$OUT/quick" >"$OUT/quick.log" 2>&1
echo "quick rc $?"
grep -E "FAIL|failures|seed" "$OUT/quick.log" | head -12
python3 scripts/profile_nw_wfa.py >"$OUT/profile.log" 2>&1
echo "profile rc $?"
python3 scripts/device_nw.py --side --force-wfa --skip-check --side-cases $CASES --side-affine-max 100000 \
    --budget 120 --out "$OUT/side" >"$OUT/side.log" 2>&1
echo "side rc $?"
if command -v ncu >/dev/null; then
    timeout 60 ncu --set full -k regex:'nw_wfa<' -c 1 python3 scripts/profile_nw_wfa.py --ncu >"$OUT/ncu.txt" 2>&1
    echo "ncu rc $?"
    grep -E "Duration|Elapsed Cycles|Executed Ipc A|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Executed Instructions  " \
        "$OUT/ncu.txt" | head -12
fi
grep -E "FAIL" "$OUT/side.log" | head
grep -E "^  (gpu|pywfa|gpu-wfa) " "$OUT/side.log" | cut -c1-200
cat "$OUT/profile.log"
sed -n '/^| case | costs/,$p' "$OUT/side.log"
