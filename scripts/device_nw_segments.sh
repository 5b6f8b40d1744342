#!/bin/bash
# One device call for segments.py's pieces on the GPU (issue 26's linear single pairs), logs under $OUT, tables last:
# correctness (this tree's GPU pytest of the pieces, FULL_CHECK=1: of nw_wfa / nw_biwfa and gpu, QUICK=1:
# device_nw.py --quick), then
# probe_nw_segments.py (this tree with and without the pieces, same process: algorithm, score, rounds, ms), once a
# VARIANTS entry (a piece's threads and rows), then, with SIDE=1, device_nw.py --side of this tree and of main's src (BASE, e.g.
# BASE=$(realpath ../../src) with this tree carried under .wt/NAME): `gpu` against pywfa (built here,
# scripts/pywfa_native.sh from WHEELS, default .whl: ../../.whl from .wt/NAME) on one core, same inputs.
set -u
OUT=${OUT:-device_out}
mkdir -p "$OUT"
TREE=$PWD/src
BASE=${BASE:-}
CASES=${CASES:-100000-1 30368-10 100000-5 1000000-1}
nvidia-smi --query-gpu=name --format=csv,noheader
CHECK=$OUT/check.log PROBE_LOG=$OUT/probe.log SIDE_LOG=$OUT/side.log
if [ "${SIDE:-0}" = 1 ]; then  # (built in the background while the tests run)
    (scripts/pywfa_native.sh "${WHEELS:-.whl}" /tmp/site "$OUT/pywfa_build.log" && touch /tmp/site/.ok) &
    BUILD=$!
fi
if [ "${PYTEST:-1}" = 1 ]; then
    PYTHONPATH=$TREE timeout 200 python3 -m pytest -q -x -s -p no:cacheprovider tests/test_nw_gpu_segments.py >>"$CHECK" 2>&1
    echo "pytest segments rc $?: $(tail -1 "$CHECK")"
    grep -E "^(FAIL|E  )" "$CHECK" | head -12
fi
if [ "${FULL_CHECK:-1}" = 1 ]; then
    PYTHONPATH=$TREE timeout 150 python3 -m pytest -q -x -p no:cacheprovider tests/test_nw_gpu_wfa.py tests/test_nw_gpu.py \
        >>"$CHECK" 2>&1
    echo "pytest wfa, gpu rc $?: $(tail -1 "$CHECK")"
    grep -E "^(FAIL|E  )" "$CHECK" | head -8
fi
if [ "${QUICK:-1}" = 1 ]; then
    PYTHONPATH=$TREE timeout 120 python3 scripts/device_nw.py --quick --pairs 150 --mode-pairs 200 --budget 110 \
        >"$OUT/quick.tmp" 2>&1
    echo "quick rc $?"
    grep -E "checked|correctness failures|^FAIL" "$OUT/quick.tmp" | head -8
    cat "$OUT/quick.tmp" >>"$CHECK" && rm "$OUT/quick.tmp"
fi
[ "${PROBE:-1}" = 1 ] || VARIANTS=skip
for v in ${VARIANTS:-""}; do
    [ "$v" = skip ] && break  # (a variant's flags joined by commas: --threads=512,--rows=384)
    echo "== $v" >>"$PROBE_LOG"
    PYTHONPATH=$TREE timeout 200 python3 scripts/probe_nw_segments.py --cases ${PROBE_CASES:-$CASES} \
        --modes ${MODES:-global prefix} --repeats "${REPEATS:-30}" --costs "${COSTS:-linear}" ${v//,/ } \
        >>"$PROBE_LOG" 2>&1
    echo "probe $v rc $?"
done
if [ "${SIDE:-0}" = 1 ]; then
    wait $BUILD
    [ -f /tmp/site/.ok ] || { echo "pywfa build failed"; tail -5 "$OUT/pywfa_build.log"; }
    for src in $TREE $BASE; do
        echo "== side $src" >>"$SIDE_LOG"
        PYTHONPATH=$src:/tmp/site timeout 220 python3 scripts/device_nw.py --side --skip-check --side-cases $CASES \
            --side-costs "${COSTS:-linear}" --budget "${SIDE_BUDGET:-150}" --out /tmp/side_$$ >>"$SIDE_LOG" 2>&1
        echo "side $src rc $?"
    done
fi
echo "== probe (this tree: pieces, beside use_segments=False)"
[ -f "$PROBE_LOG" ] && grep -E "^(==|case|[0-9]+-|failures|Traceback|[A-Za-z]*Error)" "$PROBE_LOG" | cut -c1-260
if [ -f "$SIDE_LOG" ]; then
    grep -E "^== side|^  (gpu|pywfa) |FAIL" "$SIDE_LOG" | cut -c1-300
    grep -E "^== side|^\| (case|[0-9])" "$SIDE_LOG"
fi
