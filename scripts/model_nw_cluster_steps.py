"""What a step of nw_wfa_cluster (wfa_cluster.cu) waits for, counted on the CPU: the linear forward WFA of a pair
(issue 26's 10^6 x 10^6 at 1% by default) step by step, its diagonals dealt as the kernel deals them (groups of 32
round robin over CLUSTER blocks), and for each group a step its chain in rounds of letter loads: the probe (one
round: every lane's first 8 letters, beside the hint lane's first 256), plus a round each further 256 letters of the
hint lane's run past its fused window, plus the warp extension's rounds of every other lane whose first 8 letters
matched (one lane after another, 256 letters a round). A barrier every ``--per`` steps waits for the slowest warp's
rounds of its steps, so an interval's chain is the most over the groups of their rounds summed over its steps.

  python3 scripts/model_nw_cluster_steps.py                  # 1000000-1, linear 0/1/3, 3 steps a barrier
  python3 scripts/model_nw_cluster_steps.py --case 100000-1 --per 1

Prints the steps, the active groups a block, the rounds a step of the slowest group (mean over intervals / per),
against one round a step: how much of a step's chain is the path's extension.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from splicedalign.workloads.nw.gpu import wfa_cluster
from splicedalign.workloads.nw.synthetic import case_pair
from splicedalign.workloads.nw.wfa_kernels import NULL


@njit(cache=True)
def _run(a, b, h, k, n, m):
    """Matches from (h, v = h - k) on: a's letter v against b's letter h."""
    v = h - k
    r = 0
    while h + r < m and v + r < n and a[v + r] == b[h + r]:
        r += 1
    return r


@njit(cache=True)
def model(a, b, x, e, per, last):
    """Per interval: the most rounds of any group (summed over its steps), the groups and the long runs seen."""
    n, m = a.size, b.size
    koff = min(last // e + 1, n)
    width = koff + min(last // e + 1, m) + 1
    ring = max(x, e) + 1
    offs = np.full((ring, width), NULL, np.int64)
    groups_total = (width + 31) // 32 + 1
    hint = np.full(groups_total, -1, np.int64)
    rounds = np.zeros(groups_total, np.int64)  # this interval's, by group
    worst = []
    active = []
    longs = []
    s = 0
    done = False
    while not done and s <= last:
        reach = s // e  # (linear, x = 1: every score reachable, |k| <= s // e)
        lo, hi = max(-reach, -n), min(reach, m)
        row = offs[s % ring]
        row[:] = NULL
        g_lo, g_hi = (lo + koff) >> 5, (hi + koff) >> 5
        count_long = 0
        for g in range(g_lo, g_hi + 1):
            extra = 0
            new_hint = -1
            for lane in range(32):
                k = 32 * g - koff + lane
                if k < lo or k > hi:
                    continue
                if s == 0:
                    h = k if k == 0 else NULL
                else:
                    h = NULL
                    if s >= x:
                        p = offs[(s - x) % ring][k + koff]
                        if p != NULL and p + 1 <= min(m, n + k):
                            h = p + 1
                    if s >= e:
                        if k - 1 + koff >= 0:
                            p = offs[(s - e) % ring][k - 1 + koff]
                            if p != NULL and p + 1 <= m and p + 1 > h:
                                h = p + 1
                        if k + 1 + koff < width:
                            p = offs[(s - e) % ring][k + 1 + koff]
                            if p != NULL and p <= n + k and p > h:
                                h = p
                if h == NULL or h - k < 0:
                    continue
                r = _run(a, b, h, k, n, m)
                if r >= 8:
                    count_long += 1
                    if new_hint < 0:
                        new_hint = lane
                    if lane == hint[g]:  # fused: its first 256 letters in the probe's round
                        extra += (r - 256) // 256 + 1 if r >= 256 else 0
                    else:
                        extra += (r - 8) // 256 + 1  # the warp extension's rounds from letter 8
                row[k + koff] = h + r
                if k == m - n and h + r == m:
                    done = True
            hint[g] = new_hint
            rounds[g] += 1 + extra
        active.append(g_hi - g_lo + 1)
        longs.append(count_long)
        s += 1
        if s % per == 0 or done:
            worst.append(rounds.max())
            rounds[:] = 0
    return s - 1, np.array(worst), np.array(active), np.array(longs)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", default="1000000-1")
    parser.add_argument("--per", type=int, default=wfa_cluster.PER_BARRIER)
    parser.add_argument("--cap", type=int, default=20000, help="scores at most")
    args = parser.parse_args()
    pair = case_pair(args.case)
    t0 = time.perf_counter()
    score, worst, active, longs = model(pair.a, pair.b, 1, 3, args.per, args.cap)
    print(f"{args.case}: score {score} (linear 0/1/3), {time.perf_counter() - t0:.1f} s, {args.per} steps a barrier")
    print(f"groups a step: mean {active.mean():.0f}, last {active[-1]} ({active[-1] / wfa_cluster.CLUSTER:.1f} a block "
          f"of {wfa_cluster.CLUSTER})")
    print(f"lanes whose first 8 letters matched, a step: mean {longs.mean():.2f}, 99th percentile "
          f"{np.percentile(longs, 99):.0f}, most {longs.max()}")
    print(f"rounds of the slowest group an interval: mean {worst.mean():.2f} ({worst.mean() / args.per:.2f} a step; "
          f"1.00 = the probe alone), 90th percentile {np.percentile(worst, 90):.0f}, most {worst.max()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
