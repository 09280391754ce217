"""Percentile bootstrap confidence intervals of a mean over queries.

Resamples queries with replacement (the same resamples for every measure of a
run, so intervals are comparable), with a fixed seed so a page shows the same
numbers on every rerun.

>>> lo, hi = mean_ci([0, 1, 1, 1], n_resamples=2000, seed=0)
>>> 0.0 <= lo <= 0.75 <= hi <= 1.0
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

CONFIDENCE = 0.95
RESAMPLES = 1000
SEED = 20240


def _resample_counts(n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_resamples, n)``: how often each row is drawn in each resample."""
    out = np.empty((n_resamples, n), dtype=np.float64)
    chunk = max(1, 4_000_000 // max(n, 1))
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        offsets = (np.arange(stop - start) * n)[:, None]
        out[start:stop] = np.bincount(
            (idx + offsets).ravel(), minlength=(stop - start) * n
        ).reshape(stop - start, n)
    return out


def _resample_means(values: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """``(n_resamples, columns)`` means of resampled rows of ``values`` (rows = queries).

    A NaN is outside its column's mean (as in the core's means).
    """
    rng = np.random.default_rng(seed)
    counts = _resample_counts(len(values), n_resamples, rng)
    present = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ np.where(present, values, 0.0)) / (counts @ present.astype(float))


def mean_ci(
    values: Sequence[float],
    confidence: float = CONFIDENCE,
    n_resamples: int = RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of ``values`` (NaN values dropped)."""
    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    if len(arr) == 0:
        return (float("nan"), float("nan"))
    means = _resample_means(arr[:, None], n_resamples, seed)[:, 0]
    alpha = (1 - confidence) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


def summary_with_ci(
    per_query: pd.DataFrame,
    measures: Sequence[str],
    confidence: float = CONFIDENCE,
    n_resamples: int = RESAMPLES,
    seed: int = SEED,
) -> pd.DataFrame:
    """``(run, measure, value, low, high, queries)`` from a wide per-query frame.

    ``per_query`` has ``run`` and one column per measure; a NaN value (e.g. a
    no-answer query) is outside that measure's mean, as in the core's means.
    """
    records = []
    alpha = (1 - confidence) / 2
    for run, group in per_query.groupby("run", sort=False):
        values = group[list(measures)].to_numpy(dtype=float)
        means = _resample_means(values, n_resamples, seed) if len(values) else None
        for j, measure in enumerate(measures):
            column = values[:, j]
            n = int((~np.isnan(column)).sum())
            if n == 0:
                records.append((run, measure, np.nan, np.nan, np.nan, 0))
                continue
            draws = means[:, j]
            draws = draws[~np.isnan(draws)]
            records.append(
                (
                    run,
                    measure,
                    float(np.nanmean(column)),
                    float(np.quantile(draws, alpha)),
                    float(np.quantile(draws, 1 - alpha)),
                    n,
                )
            )
    return pd.DataFrame(records, columns=["run", "measure", "value", "low", "high", "queries"])
