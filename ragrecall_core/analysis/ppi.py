"""Prediction-powered inference for a mean (Angelopoulos et al. 2023, "Prediction-Powered
Inference", Science 382; the estimator ARES uses).

A judge's value ``f`` is known for every item (here: a query's measure computed from the
judge's grades), the humans' value ``y`` only for ``n`` of them (the human-judged
queries). The judge's mean alone is biased by however far the judge is from the humans;
the prediction-powered mean removes that bias, measured where both are known::

    theta = mean(f over all N) - mean(f - y over the n labelled)
    se    = sqrt(var(f) / N + var(f - y) / n)          (sample variances, ddof = 1)
    95% CI = theta +/- z(0.975) * se

so a biased judge moves the interval, not the truth, and a judge far from the humans
widens it. The labelled items may be among the N (the covariance this leaves out makes
the interval, if anything, a little wider). Vectorised: each argument may carry leading
axes (one row per simulation), the mean is taken over the last.

>>> r = ppi_mean([0.6, 0.7, 0.8, 0.9], judge_labelled=[0.6, 0.7], human_labelled=[0.5, 0.5])
>>> round(r.estimate, 3), round(r.judge_mean, 3)
(0.6, 0.75)
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

Z95 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class PPIMean:
    """The prediction-powered mean, its 95% interval, the judge's plain mean and the
    counts behind them (arrays when the inputs carried leading axes)."""

    estimate: float | np.ndarray
    low: float | np.ndarray
    high: float | np.ndarray
    judge_mean: float | np.ndarray
    rectifier: float | np.ndarray  # mean(f - y) on the labelled: the judge's bias
    items: int
    labelled: int

    def to_dict(self) -> dict:
        return {
            "ppi_mean": float(self.estimate),
            "ppi_low": float(self.low),
            "ppi_high": float(self.high),
            "judge_mean": float(self.judge_mean),
            "judge_bias": float(self.rectifier),
            "queries": self.items,
            "human_judged_queries": self.labelled,
        }


def ppi_mean(judge_all, judge_labelled, human_labelled, confidence_z: float = Z95) -> PPIMean:
    """The prediction-powered mean of ``judge_all`` (``f`` on all N items) corrected by
    ``judge_labelled - human_labelled`` (``f`` and ``y`` on the n labelled items).

    NaN when fewer than 2 labelled items (no variance to measure the correction with)."""
    f = np.asarray(judge_all, dtype=float)
    difference = np.asarray(judge_labelled, dtype=float) - np.asarray(human_labelled, dtype=float)
    big_n, n = f.shape[-1], difference.shape[-1]
    judge_mean = f.mean(axis=-1)
    rectifier = difference.mean(axis=-1) if n else np.full(judge_mean.shape, np.nan)
    estimate = judge_mean - rectifier
    if n < 2 or big_n < 2:
        spread = np.full(np.shape(estimate), np.nan)
    else:
        spread = confidence_z * np.sqrt(
            f.var(axis=-1, ddof=1) / big_n + difference.var(axis=-1, ddof=1) / n
        )
    return PPIMean(
        estimate=_scalar(estimate),
        low=_scalar(estimate - spread),
        high=_scalar(estimate + spread),
        judge_mean=_scalar(judge_mean),
        rectifier=_scalar(rectifier),
        items=big_n,
        labelled=n,
    )


def _scalar(value: np.ndarray) -> float | np.ndarray:
    return float(value) if np.ndim(value) == 0 else value
