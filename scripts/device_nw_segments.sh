#!/bin/bash
# One device call for segments.py's pieces on the GPU (issue 26's linear single pairs), logs under $OUT, tables last:
# correctness (this tree's GPU pytest of the pieces, FULL_CHECK=1: of nw_wfa / nw_biwfa and gpu, QUICK=1:
# device_nw.py --quick), then
# probe_nw_segments.py (this tree with and without the pieces, same process: algorithm, score, rounds, ms), once a
# VARIANTS entry (a piece's threads and rows), then, with TIMELINE=1, timeline_nw_segments.py of this tree and of
# BASE, and with SIDE=1, device_nw.py --side of this tree and of main's src (BASE, e.g.
# BASE=$(realpath ../../src) with this tree carried under .wt/NAME), SIDE_ROUNDS times in turn: `gpu` against pywfa
# (built here, scripts/pywfa_native.sh from WHEELS, default .whl: ../../.whl from .wt/NAME) on one core, same inputs.
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
    PYTHONPATH=$TREE timeout $((${QUICK_BUDGET:-110} + 10)) python3 scripts/device_nw.py --quick --pairs 150 --mode-pairs 200 \
        --budget "${QUICK_BUDGET:-110}" \
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
if [ "${TIMELINE:-0}" = 1 ]; then  # the 10^5 1% linear solve's timeline, this tree's and main's (its own script)
    for src in $TREE $BASE; do
        echo "== timeline $src" >>"$OUT/timeline.log"
        PYTHONPATH=$src timeout 120 python3 "$(dirname "$src")/scripts/timeline_nw_segments.py" \
            --repeats "${TIMELINE_REPEATS:-100}" >>"$OUT/timeline.log" 2>&1
        echo "timeline $src rc $?"
    done
fi
if [ "${SIDE:-0}" = 1 ]; then
    wait $BUILD
    [ -f /tmp/site/.ok ] || { echo "pywfa build failed"; tail -5 "$OUT/pywfa_build.log"; }
    # SIDE_ROUNDS of fresh processes alternating this tree and BASE; pywfa (PEER_CASES, default CASES) timed in
    # the first process alone, the later ones without it (pywfa n/a)
    for round in $(seq "${SIDE_ROUNDS:-1}"); do
        for src in $TREE $BASE; do
            site="" cases=$CASES
            [ "$round$src" = "1$TREE" ] && site=:/tmp/site cases=${PEER_CASES:-$CASES}
            echo "== side $src round $round" >>"$SIDE_LOG"
            PYTHONPATH=$src$site timeout 220 python3 scripts/device_nw.py --side --skip-check --side-cases $cases \
                --side-costs ${COSTS:-linear} --side-affine-max "${AFFINE_MAX:-1000000000}" \
                --pywfa-processes "${PEER_PROCESSES:-3}" --budget "${SIDE_BUDGET:-150}" --out /tmp/side_$$ \
                >>"$SIDE_LOG" 2>&1
            echo "side $src round $round rc $?"
        done
    done
fi
echo "== probe (this tree: pieces, beside use_segments=False)"
[ -f "$PROBE_LOG" ] && grep -E "^(==|case|[0-9]+-|failures|Traceback|[A-Za-z]*Error)" "$PROBE_LOG" | cut -c1-260
[ -f "$OUT/timeline.log" ] && grep -E "^(==|score|cigar|[0-9]+-|sample alone|floor|kernel alone|Traceback)" \
    "$OUT/timeline.log" | cut -c1-260
if [ -f "$SIDE_LOG" ]; then
    grep -E "^== side|^  (gpu|pywfa) |FAIL" "$SIDE_LOG" | cut -c1-300
    grep -E "^== side|^\| (case|[0-9])" "$SIDE_LOG"
fi
