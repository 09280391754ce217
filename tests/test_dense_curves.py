"""A long curve is drawn as a line, a short one with a marker on each point (issue 30): at
10,000 queries the No-answer sweep (300 points per run) and the Ranks Hit@k curve (k = 1..100)
sent one SVG marker per point, which merged into a thick line and cost the browser most of
those pages' drawing. Hover still names every point of a line."""

from __future__ import annotations

import pandas as pd

from ragrecall_core.views import charts
from ragrecall_core.views import no_answer_view as nav
from tests.test_no_answer_display import report

COLORS = {"a": "#0072B2", "b": "#E69F00", "r": "#0072B2"}


def hit_curve(depth: int):
    curve = pd.DataFrame(
        [{"run": run, "k": k, "hit": k / depth} for run in ("a", "b") for k in range(1, depth + 1)]
    )
    return charts.hit_curve(curve, COLORS, 5)


def test_a_dense_hit_curve_is_a_line_and_a_short_one_keeps_its_markers():
    assert [t.mode for t in hit_curve(100).data] == ["lines", "lines"]
    assert [t.mode for t in hit_curve(20).data] == ["lines+markers"] * 2
    assert all(t.hovertemplate for t in hit_curve(100).data)  # each k still named on hover


def test_the_10k_sweep_is_a_line_its_picked_threshold_still_a_star():
    fig = nav.sweep_figure(report(8334, 1666), COLORS, ["r"], 0.1)
    curve, star = fig.data[:2]
    assert len(curve.x) > charts.MARKED_POINTS and curve.mode == "lines"
    assert curve.hovertemplate and "threshold" in curve.hovertemplate
    assert star.mode == "markers" and star.marker.symbol == "star"


def test_a_small_sweep_keeps_a_marker_on_each_threshold():
    fig = nav.sweep_figure(report(20, 10), COLORS, ["r"], 0.1)
    assert len(fig.data[0].x) <= charts.MARKED_POINTS
    assert fig.data[0].mode == "lines+markers"
