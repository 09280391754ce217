"""The vectorised significance tests against straightforward loops (issue 13).

The references below follow the definitions in ``analysis/significance.py`` and
``analysis/bootstrap.py`` one permutation, one resample and one query at a time, drawing
from the same seeded generator in the same order: the p-values must be identical and the
CI bounds equal up to the order of floating-point additions.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ragrecall_core.analysis.bootstrap import mean_ci, percentile_bounds, resample_means
from ragrecall_core.analysis.significance import TIE_TOLERANCE, sign_flip_p_values


def reference_extreme(total: float, observed: float, largest: float) -> bool:
    return abs(total) >= abs(observed) - TIE_TOLERANCE * max(largest, 1.0)


def reference_sampled_p(deltas: list[float], n_permutations: int, seed: int) -> float:
    """One permutation at a time: bit ``i % 32`` of word ``i // 32`` flips query ``i``."""
    rng = np.random.default_rng(seed)
    observed, largest = math.fsum(deltas), math.fsum(abs(d) for d in deltas)
    words = (len(deltas) + 31) // 32
    extreme = 0
    for _ in range(n_permutations):
        drawn = [int(w) for w in rng.integers(0, 2**32, size=words, dtype=np.uint32)]
        total = 0.0
        for i, delta in enumerate(deltas):
            flipped = (drawn[i // 32] >> (i % 32)) & 1
            total += -delta if flipped else delta
        extreme += reference_extreme(total, observed, largest)
    return (extreme + 1) / (n_permutations + 1)


def reference_exact_p(deltas: list[float]) -> float:
    """Every sign assignment of the nonzero deltas, enumerated."""
    nonzero = [d for d in deltas if d != 0]
    observed, largest = math.fsum(nonzero), math.fsum(abs(d) for d in nonzero)
    assignments = list(itertools.product((1, -1), repeat=len(nonzero)))
    extreme = sum(
        reference_extreme(
            math.fsum(s * d for s, d in zip(signs, nonzero, strict=True)), observed, largest
        )
        for signs in assignments
    )
    return extreme / len(assignments)


def reference_bootstrap(values: list[float], n_resamples: int, seed: int, confidence=0.95):
    """One resample at a time: ``n`` indices drawn with replacement, NaN values left out of
    that resample's mean; then numpy's default (linear) percentile of the means."""
    rng = np.random.default_rng(seed)
    means = []
    for _ in range(n_resamples):
        picked = [values[int(i)] for i in rng.integers(0, len(values), size=len(values))]
        kept = [v for v in picked if not math.isnan(v)]
        if kept:
            means.append(math.fsum(kept) / len(kept))
    means.sort()

    def percentile(q: float) -> float:
        position = (len(means) - 1) * q
        below = math.floor(position)
        above = min(below + 1, len(means) - 1)
        return means[below] + (position - below) * (means[above] - means[below])

    alpha = (1 - confidence) / 2
    return percentile(alpha), percentile(1 - alpha)


def small_deltas(seed: int, n: int) -> list[float]:
    """Deltas of the kinds measures give: many ties at 0, +-1 steps, and fractions."""
    rng = np.random.default_rng(seed)
    kinds = rng.choice([0.0, 1.0, -1.0, 0.5, -1 / 3], size=n)
    return [float(v) for v in np.where(rng.random(n) < 0.2, rng.normal(size=n), kinds)]


@pytest.mark.parametrize(("seed", "n"), [(1, 40), (2, 33), (3, 64), (4, 70)])
def test_sampled_p_value_is_the_loop_reference_exactly(seed, n):
    deltas = small_deltas(seed, n)
    got = sign_flip_p_values(np.array(deltas), n_permutations=300, seed=seed)[0]
    assert got == reference_sampled_p(deltas, 300, seed)


def test_block_size_does_not_change_the_sampled_p_value(monkeypatch):
    from ragrecall_core.analysis import significance

    deltas = np.array(small_deltas(5, 50))
    whole = sign_flip_p_values(deltas, n_permutations=500, seed=9)
    monkeypatch.setattr(significance, "BLOCK_BYTES", 8 * 7)  # 7 permutations per block
    assert sign_flip_p_values(deltas, n_permutations=500, seed=9) == whole


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exact_p_value_is_the_enumeration(seed):
    deltas = small_deltas(seed, 9)
    assert sign_flip_p_values(np.array(deltas), n_permutations=9999)[0] == pytest.approx(
        reference_exact_p(deltas), abs=0
    )


def test_every_measure_column_is_tested_on_its_own_values():
    """A column's NaN rows are outside its test: as if those queries were not there."""
    a, b = small_deltas(6, 60), small_deltas(7, 60)
    b_with_gaps = [np.nan if i % 4 == 0 else v for i, v in enumerate(b)]
    got = sign_flip_p_values(np.column_stack([a, b_with_gaps]), n_permutations=200, seed=3)
    zeroed = [0.0 if math.isnan(v) else v for v in b_with_gaps]
    assert list(got) == [reference_sampled_p(a, 200, 3), reference_sampled_p(zeroed, 200, 3)]


def test_all_deltas_zero_give_p_one():
    assert sign_flip_p_values(np.zeros((50, 2)))[0] == 1.0
    assert sign_flip_p_values(np.zeros((50_000, 1)), n_permutations=99)[0] == 1.0


def test_a_large_consistent_shift_gives_the_smallest_p():
    rng = np.random.default_rng(0)
    shifted = 0.3 + rng.normal(scale=0.1, size=2000)
    assert sign_flip_p_values(shifted)[0] == pytest.approx(1 / 10_000)
    # exactly: all 14 nonzero deltas positive, only all-plus and all-minus reach the sum
    assert sign_flip_p_values(np.ones(14), n_permutations=2**14)[0] == pytest.approx(2 / 2**14)


def test_no_shift_gives_a_large_p():
    rng = np.random.default_rng(1)
    noise = rng.choice([-1.0, 1.0], size=4000)
    noise[-1] = -noise[:-1].sum() if abs(noise[:-1].sum()) <= 1 else noise[-1]
    assert sign_flip_p_values(noise)[0] > 0.5


@pytest.mark.parametrize(("seed", "n"), [(1, 30), (2, 57), (3, 200)])
def test_bootstrap_ci_is_the_loop_reference(seed, n):
    values = small_deltas(seed, n)
    low, high = mean_ci(values, n_resamples=400, seed=seed)
    ref_low, ref_high = reference_bootstrap(values, 400, seed)
    assert (low, high) == pytest.approx((ref_low, ref_high), rel=1e-12, abs=1e-12)


def test_bootstrap_leaves_nan_rows_out_of_each_resample_mean():
    values = small_deltas(4, 80)
    values_with_gaps = [np.nan if i % 3 == 0 else v for i, v in enumerate(values)]
    low, high = percentile_bounds(resample_means(np.array(values_with_gaps), 300, 11))
    reference = reference_bootstrap(values_with_gaps, 300, 11)
    assert (low[0], high[0]) == pytest.approx(reference, rel=1e-12, abs=1e-12)


def test_bootstrap_block_size_does_not_change_the_interval(monkeypatch):
    from ragrecall_core.analysis import bootstrap

    values = small_deltas(8, 120)
    whole = mean_ci(values, n_resamples=300, seed=2)
    monkeypatch.setattr(bootstrap, "BLOCK_CELLS", 120 * 7)  # 7 resamples per block
    bootstrap._drawn_counts.cache_clear()  # drawn again, in blocks of 7
    # the same resamples; only the order of the additions inside a block may differ
    assert mean_ci(values, n_resamples=300, seed=2) == pytest.approx(whole, rel=1e-12)


def test_kept_resamples_serve_other_values_of_the_same_size():
    """The draws are kept per (size, resamples, seed): other measures of the same queries
    (another k) reuse them and still get exactly their own interval."""
    first, second = small_deltas(5, 90), small_deltas(6, 90)
    mean_ci(first, n_resamples=300, seed=4)
    low, high = mean_ci(second, n_resamples=300, seed=4)
    assert (low, high) == pytest.approx(reference_bootstrap(second, 300, 4), rel=1e-12, abs=1e-12)


def test_resamples_drawn_ahead_are_the_ones_a_mean_reads():
    """Kept by value, not by how the call spelled them: the dashboard's launcher draws a
    fresh server's resamples ahead as ``resample_counts(n)``, and the Overview's means read
    them as ``resample_counts(n, RESAMPLES, SEED)``: one draw."""
    from ragrecall_core.analysis import bootstrap

    ahead = bootstrap.resample_counts(173)
    assert bootstrap.resample_counts(173, bootstrap.RESAMPLES, bootstrap.SEED) is ahead
    assert bootstrap.resample_counts(173, n_resamples=bootstrap.RESAMPLES) is ahead
    assert bootstrap.resample_counts(173, seed=bootstrap.SEED + 1) is not ahead


def test_bootstrap_of_identical_values_is_that_value():
    assert mean_ci([0.25] * 40) == (0.25, 0.25)
