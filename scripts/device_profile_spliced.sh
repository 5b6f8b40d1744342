#!/usr/bin/env bash
# Profiles of the spliced `gpu` solver on the issue-12 shapes (a GPU machine; logs under $OUT):
# host stages per call (benchmarks/spliced_profile.py), then Nsight Compute on the second call's
# kernels: warp states, scheduler and per-instruction stall samples of the score and recording
# wavefronts, and the device traceback's duration. Each report is exported as CSV.
#
#   bash scripts/device_profile_spliced.sh
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1
OUT=${OUT:-device_out}
mkdir -p "$OUT"
P="python3 benchmarks/spliced_profile.py"
{ for w in paper sets10 il1 il1-trace; do $P --work $w --repeats 3; done; $P --work paper-trace --repeats 3 --cprofile; } 2>&1 | tee "$OUT/stages.txt"
NCU="ncu --clock-control none --section WarpStateStats --section SchedulerStats --section SourceCounters
     --section LaunchStats --section SpeedOfLight"
# warm-up call: one wavefront (score) launch; traced: one recording wavefront and trace_chains
$NCU --kernel-name regex:wavefront --launch-skip 1 --launch-count 1 -o "$OUT/score" -f \
    $P --work paper --repeats 1 > "$OUT/ncu_score.log" 2>&1
$NCU --kernel-name regex:'wavefront|trace_chains' --launch-skip 2 --launch-count 2 -o "$OUT/trace" -f \
    $P --work paper-trace --repeats 1 > "$OUT/ncu_trace.log" 2>&1
for r in score trace; do
  ncu --import "$OUT/$r.ncu-rep" --page details --csv > "$OUT/${r}_details.csv" 2>&1
  ncu --import "$OUT/$r.ncu-rep" --page source --csv --print-source sass > "$OUT/${r}_sass.csv" 2>&1
  rm -f "$OUT/$r.ncu-rep"
done
grep -E 'Duration|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Eligible Warps|Warp Cycles Per Issued' \
  "$OUT"/*_details.csv | cut -c1-220
