"""The prediction-powered interval (issue 32) against a simulation with a known answer:
a biased synthetic judge's plain mean misses the truth, the interval covers it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragrecall_core.analysis.ppi import Z95, ppi_mean

SEEDS, QUERIES, HUMAN_JUDGED = 100, 1000, 100
TRUTH = 0.4  # the mean of Beta(2, 3): every query's true measure is drawn from it


def simulate(bias: float, noise: float = 0.1):
    """100 replications (one fixed seed each, so the test is derandomized): the true
    per-query values, and a judge that overrates each by ``bias`` plus noise, clipped to
    [0, 1] as a measure is. The humans judged the first 100 queries of each."""
    generators = [np.random.default_rng(seed) for seed in range(SEEDS)]
    y = np.stack([g.beta(2, 3, QUERIES) for g in generators])
    f = np.clip(y + bias + np.stack([g.normal(0, noise, QUERIES) for g in generators]), 0, 1)
    return f, f[:, :HUMAN_JUDGED], y[:, :HUMAN_JUDGED]


def test_a_biased_judge_misses_the_truth_and_the_interval_covers_it():
    f, f_labelled, y_labelled = simulate(bias=0.15)
    result = ppi_mean(f, f_labelled, y_labelled)
    # the plain judge-filled mean, with its own 95% interval, misses in every replication
    plain_half = Z95 * f.std(axis=1, ddof=1) / math.sqrt(QUERIES)
    plain_covers = np.abs(result.judge_mean - TRUTH) <= plain_half
    assert plain_covers.sum() == 0
    assert np.all(result.judge_mean > TRUTH + 0.1)
    covered = (result.low <= TRUTH) & (TRUTH <= result.high)
    assert covered.sum() >= 93, covered.sum()
    # the interval is honest, not merely wide: narrower than the humans' 100 queries alone
    human_half = Z95 * y_labelled.std(axis=1, ddof=1) / math.sqrt(HUMAN_JUDGED)
    assert np.median(result.high - result.low) < np.median(2 * human_half)


def test_an_unbiased_judge_leaves_the_mean_where_it_was():
    f, f_labelled, y_labelled = simulate(bias=0.0, noise=0.0)
    result = ppi_mean(f, f_labelled, y_labelled)
    np.testing.assert_allclose(result.estimate, result.judge_mean, atol=1e-12)


def test_a_small_case_by_hand():
    # f = [0.6, 0.7, 0.8, 0.9]: mean 0.75; labelled f - y = [0.1, 0.2]: mean 0.15
    r = ppi_mean([0.6, 0.7, 0.8, 0.9], [0.6, 0.7], [0.5, 0.5])
    assert r.estimate == pytest.approx(0.6)
    # var(f) = 1/60, var(f - y) = 0.005: se = sqrt(1/240 + 0.0025)
    half = Z95 * math.sqrt(1 / 60 / 4 + 0.005 / 2)
    assert (r.low, r.high) == (pytest.approx(0.6 - half), pytest.approx(0.6 + half))
    assert (r.items, r.labelled, r.rectifier) == (4, 2, pytest.approx(0.15))


def test_fewer_than_two_human_judged_queries_give_no_interval():
    r = ppi_mean([0.5, 0.7], [0.5], [0.4])
    assert r.estimate == pytest.approx(0.5) and math.isnan(r.low) and math.isnan(r.high)
    none = ppi_mean([0.5, 0.7], [], [])
    assert math.isnan(none.estimate)
