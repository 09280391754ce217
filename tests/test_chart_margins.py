"""Charts start from margins that hold their labels: where a label needs more room than the
margin gives, plotly's automargin widens it after a first drawing and draws the whole
figure again (issue 30)."""

import pandas as pd

from ragrecall_core.views import charts


def test_a_numeric_chart_starts_from_the_margins_its_axes_need():
    hist = pd.DataFrame({"run": "bm25", "bin": ["1", "2"], "queries": [2, 1], "share": [0.6, 0.3]})
    margin = charts.first_rank_histogram(hist, {}).layout.margin
    assert (margin.l, margin.r, margin.b) == tuple(charts.MARGIN[s] for s in "lrb")


def test_the_failure_bars_leave_room_for_the_longest_group_and_the_axis_title():
    long = "a corpus section with a long name"
    groups = pd.DataFrame(
        {"run": "bm25", "group": ["g", long], "failing": [1, 2], "queries": 10, "rate": 0.1}
    )
    fig = charts.failure_bars(groups, {}, "corpus section", 5)
    room = charts.label_margin([long]) + charts.AXIS_TITLE_ROOM
    assert fig.layout.margin.l == room >= 0.6 * (charts.FONT - 1) * len(long) + 30
