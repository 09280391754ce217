"""Compare's scatter at scale: every query counted, a bounded number drawn (the browser
draws each point as an SVG node; 8,000 of them took ~2 s of main-thread time at 10k)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ragrecall_core.views import compare_view as cv


def outcomes(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    base = rng.choice([0.0, 0.5, 1.0], n)
    cand = rng.choice([0.0, 0.5, 1.0], n)
    outcome = np.where(
        base > cand, "regression", np.where(base < cand, "improvement", "still passing")
    )
    return pd.DataFrame(
        {
            "query_id": [f"q{i:05d}" for i in range(n)],
            "query": "text",
            "baseline": base,
            "candidate": cand,
            "outcome": outcome,
        }
    )


def drawn(fig) -> dict[str, int]:
    return {t.name: len(t.x) for t in fig.data if t.mode == "markers"}


def test_each_outcome_draws_at_most_the_cap_and_names_every_query():
    frame = outcomes(10_000)
    fig = cv.scatter_figure(cv.scatter_points(frame), "a", "b", "Recall@5")
    counts = frame["outcome"].value_counts()
    for name, n in drawn(fig).items():
        label = name.split(":")[0]
        outcome = {v[0]: k for k, v in cv.OUTCOMES.items()}[label]
        assert n == min(counts[outcome], cv.MAX_POINTS)
        assert f"{counts[outcome]:,}" in name  # the legend counts every query
    cells = [a.text for a in fig.layout.annotations]
    assert sum(int(c.replace(",", "")) for c in cells) == 10_000  # cell counts: all queries


def test_small_comparisons_draw_every_point_and_the_sample_is_stable():
    frame = outcomes(300)
    fig = cv.scatter_figure(cv.scatter_points(frame), "a", "b", "Recall@5")
    assert sum(drawn(fig).values()) == 300
    big = cv.scatter_points(outcomes(5_000))
    again = cv.scatter_points(outcomes(5_000))
    assert big.equals(again)  # same jitter on every rerun
    assert big["x"].sub(big["baseline"]).abs().max() <= cv.JITTER
