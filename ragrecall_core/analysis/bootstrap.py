"""Percentile bootstrap confidence intervals of a mean over queries: the package's one
bootstrap, used by the Overview's CIs and by ``compare``'s CI of the mean delta.

Resamples queries with replacement (the same resamples for every measure, so intervals
are comparable), with a fixed seed so a page shows the same numbers on every rerun.
Resample ``r`` draws ``rng.integers(0, n, size=n)`` from one generator, resample after
resample; drawing them in blocks gives the same indices (numpy's generator yields the
same int64 stream whatever the block shape), so memory stays bounded at any size.

>>> lo, hi = mean_ci([0, 1, 1, 1], n_resamples=2000, seed=0)
>>> 0.0 <= lo <= 0.75 <= hi <= 1.0
True
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

CONFIDENCE = 0.95
RESAMPLES = 1000
SEED = 20240
BLOCK_CELLS = 2_000_000  # drawn indices held at once (16 MB of int64)


def resample_means(values: np.ndarray, n_resamples: int = RESAMPLES, seed: int = SEED):
    """``(n_resamples, columns)`` means of resampled rows of ``values`` (rows = queries).

    A NaN is outside its column's mean (as in the core's means): a resample's mean of a
    column is the sum of its drawn non-NaN values over how many it drew; NaN when none.
    """
    values = np.asarray(values, dtype=float).reshape(len(values), -1)
    n = len(values)
    if n == 0:
        return np.full((n_resamples, values.shape[1]), np.nan)
    present = ~np.isnan(values)
    sums_and_counts = np.hstack([np.where(present, values, 0.0), present.astype(float)])
    counts = resample_counts(n, n_resamples, seed)
    totals = np.empty((n_resamples, sums_and_counts.shape[1]))
    block = max(1, BLOCK_CELLS // n)
    for start in range(0, n_resamples, block):
        stop = min(start + block, n_resamples)
        totals[start:stop] = counts[start:stop].astype(float) @ sums_and_counts
    columns = values.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return totals[:, :columns] / totals[:, columns:]


def resample_counts(n: int, n_resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """``(n_resamples, n)``: how often each of ``n`` rows is drawn in each resample.

    They depend on ``n`` and the seed alone, so a page showing other measures (another k)
    of the same queries reuses them: 20 MB at 10,000 queries, kept for the last four sizes
    (kept by value: ``resample_counts(n)`` finds what ``resample_counts(n, RESAMPLES,
    SEED)`` drew, which a cache keyed by the call's own arguments would draw again).
    Read-only. A count is at most ``n``: 16 bits hold it below 65,536 rows."""
    return _drawn_counts(int(n), int(n_resamples), int(seed))


@functools.lru_cache(maxsize=4)
def _drawn_counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """:func:`resample_counts`, kept per (size, resamples, seed)."""
    rng = np.random.default_rng(seed)
    counts = np.empty((n_resamples, n), dtype=np.uint16 if n < 2**16 else np.uint32)
    block = max(1, BLOCK_CELLS // n)
    for start in range(0, n_resamples, block):
        stop = min(start + block, n_resamples)
        drawn = rng.integers(0, n, size=(stop - start, n))
        # one bincount per resample: each stays in cache, unlike one over the whole block
        counts[start:stop] = [np.bincount(row, minlength=n) for row in drawn]
    counts.flags.writeable = False
    return counts


def percentile_bounds(draws: np.ndarray, confidence: float = CONFIDENCE):
    """``(low, high)`` arrays: the percentile interval of each column, NaN draws left out."""
    alpha = (1 - confidence) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column's bounds are NaN
        low = np.nanquantile(draws, alpha, axis=0)
        high = np.nanquantile(draws, 1 - alpha, axis=0)
    return low, high


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
    low, high = percentile_bounds(resample_means(arr, n_resamples, seed), confidence)
    return float(low[0]), float(high[0])


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
    frames = []
    for run, group in per_query.groupby("run", sort=False):
        values = group[list(measures)].to_numpy(dtype=float)
        queries = (~np.isnan(values)).sum(axis=0)
        low = high = np.full(len(measures), np.nan)
        if len(values):
            low, high = percentile_bounds(resample_means(values, n_resamples, seed), confidence)
        with np.errstate(invalid="ignore"):
            means = np.where(
                queries > 0, np.nansum(values, axis=0) / np.maximum(queries, 1), np.nan
            )
        frames.append(
            pd.DataFrame(
                {
                    "run": run,
                    "measure": list(measures),
                    "value": means,
                    "low": np.where(queries > 0, low, np.nan),
                    "high": np.where(queries > 0, high, np.nan),
                    "queries": queries.astype(int),
                }
            )
        )
    columns = ["run", "measure", "value", "low", "high", "queries"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
