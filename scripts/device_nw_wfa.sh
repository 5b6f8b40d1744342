#!/bin/bash
# One device call for `gpu`'s wavefront kernel (issue 26), logs under $OUT, tables last:
#   1. device_nw.py --side (below), then pytest of every nw GPU test file and the kernel's host-build model (device_nw_batch.py),
#      fresh random batches of every mode x cost model (bands alone and the adaptive `gpu`)
#      against `multicore`, every CIGAR re-scored; the 2,000 x 10 kb at 5% batch against pywfa
#      on every core by processes;
#   2. (first) device_nw.py --side: fresh random pairs (the WFA kernel forced, and `gpu` cost-adaptive)
#      against the reference, then the single pairs against pywfa on one core.
# Usage (device): bash scripts/device_nw_wfa.sh [side cases...]; pywfa's wheel in .whl/.
set -u
OUT=${OUT:-device_out}
mkdir -p "$OUT"
if ls .whl/pywfa-*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/pywfa-*.whl \
        && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
CASES=${*:-30368-10 30368-unrelated 100000-1 100000-5 1000000-1}
python3 scripts/device_nw.py --side --force-wfa --side-cases $CASES --pairs 60 --mode-pairs 60 --budget 400 --out "$OUT" \
    >"$OUT/side.log" 2>&1
echo "side rc $?"
python3 scripts/device_nw_batch.py --repeats 3 --fresh 30 >"$OUT/batch.log" 2>&1
echo "batch rc $?"
grep -E "FAIL|passed|failed|error" "$OUT/batch.log" | head -20
sed -n '/^# NVIDIA/,$p' "$OUT/batch.log" | tail -20
grep -E "FAIL|correctness|modes x|large" "$OUT/side.log" | head -20
grep -E "^  (gpu|pywfa) " "$OUT/side.log" | cut -c1-240
sed -n '/^| case | costs/,$p' "$OUT/side.log"
