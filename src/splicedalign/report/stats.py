"""Estimation-accuracy statistics with numpy alone (scipy is not a dependency)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's r of the ranks, ties sharing their mean rank."""
    rx = pd.Series(x, dtype=float).rank(method="average").to_numpy()
    ry = pd.Series(y, dtype=float).rank(method="average").to_numpy()
    if len(rx) < 2 or rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def linear_fit(units: Sequence[float], seconds: Sequence[float]) -> dict[str, float]:
    """Least-squares ``seconds ≈ a·units + c``, its R², and the fit's absolute % errors."""
    x = np.asarray(units, dtype=float)
    y = np.asarray(seconds, dtype=float)
    nan = float("nan")
    if len(x) < 2 or np.ptp(x) == 0:
        return {"a": nan, "c": nan, "r2": nan, "median_abs_pct_error": nan, "max_abs_pct_error": nan}
    a, c = np.polyfit(x, y, 1)
    predicted = a * x + c
    ss_res = float(((y - predicted) ** 2).sum())
    ss_tot = float(((y - y.mean()) ** 2).sum())
    error = np.abs(predicted - y) / y * 100.0
    return {
        "a": float(a),
        "c": float(c),
        "r2": 1.0 - ss_res / ss_tot if ss_tot > 0 else nan,
        "median_abs_pct_error": float(np.median(error)),
        "max_abs_pct_error": float(error.max()),
    }


def theil_sen(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Robust line ``y ≈ slope·x + intercept``: the median of the pairwise slopes, then the
    median intercept. Up to ~29% of wild points do not move it (least squares follows them)."""
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    i, j = np.triu_indices(len(xs), 1)
    keep = xs[j] != xs[i]
    slope = float(np.median((ys[j] - ys[i])[keep] / (xs[j] - xs[i])[keep])) if keep.any() else 0.0
    return slope, float(np.median(ys - slope * xs))
