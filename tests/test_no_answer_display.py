"""No-answer charts at 10,000 queries: the browser gets what a screen can show (a bounded
number of points), while every number stays exact (the box summarises every query, the
labels count every query, the picked threshold is the report's own)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ragrecall_core.analysis.no_answer import NoAnswerReport
from ragrecall_core.views import no_answer_view as nav
from ragrecall_core.views.charts import label_margin
from tests.dashboard_support import app, no_exception
from tests.samples import shared_samples

SWEEP = ["threshold", "false confidence", "answerable coverage"]


def report(answerable: int, no_answer: int, seed: int = 3) -> NoAnswerReport:
    rng = np.random.default_rng(seed)
    kinds = ["answerable"] * answerable + ["no answer"] * no_answer
    scores = np.concatenate([rng.normal(0.7, 0.1, answerable), rng.normal(0.4, 0.1, no_answer)])
    tops = pd.DataFrame(
        {
            "run": "r",
            "query_id": [f"q{i}" for i in range(len(kinds))],
            "kind": kinds,
            "top_score": scores,
            "top_chunk": "c",
        }
    )
    thresholds = np.sort(scores)
    sweep = pd.DataFrame(
        {
            "run": "r",
            "threshold": thresholds,
            "false_confidence": [(scores[answerable:] >= t).mean() for t in thresholds],
            "answerable_coverage": [(scores[:answerable] >= t).mean() for t in thresholds],
        }
    )
    return NoAnswerReport(top_scores=tops, sweep=sweep, k=5)


def traces(fig) -> list[dict]:
    """Each trace's properties, arrays as lists (what the browser will receive)."""
    return [
        {
            key: list(value) if isinstance(value, (tuple, list, np.ndarray, pd.Series)) else value
            for key, value in trace.to_plotly_json().items()
        }
        for trace in fig.data
    ]


def test_display_rows_keep_everything_that_fits_and_the_extremes_otherwise():
    frame = pd.DataFrame({"v": np.random.default_rng(0).permutation(1000).astype(float)})
    assert nav.display_rows(frame, "v", 1000)["v"].tolist() == sorted(frame["v"])
    drawn = nav.display_rows(frame, "v", 50)
    assert len(drawn) == 50 and drawn["v"].is_monotonic_increasing
    assert (drawn["v"].iloc[0], drawn["v"].iloc[-1]) == (0.0, 999.0)
    assert set(drawn.index) <= set(frame.index)


def test_a_small_run_draws_every_query_as_before():
    fig = nav.score_figure(report(120, 30), ["r"], {"r": "#0072B2"}, {"r": 0.5})
    boxes = traces(fig)
    assert [len(t["x"]) for t in boxes] == [120, 30]
    assert [t["y"][0] for t in boxes] == ["answerable (120)", "no answer (30)"]


def test_a_10k_run_draws_a_bounded_sample_and_an_exact_box_of_all():
    r = report(8334, 1666)
    fig = nav.score_figure(r, ["r"], {"r": "#0072B2"}, {"r": 0.5})
    data = traces(fig)
    drawn = sum(len(t.get("x", [])) for t in data)
    assert drawn <= 2 * nav.MAX_POINTS
    assert len(fig.to_json()) < 120_000  # was ~540 KB per run at 10k
    for kind, n in (("answerable", 8334), ("no answer", 1666)):
        label = f"{kind} ({n}; {nav.MAX_POINTS} drawn)"
        (box,) = [t for t in data if t.get("y") == [label] and "q1" in t]
        scores = r.top_scores.loc[r.top_scores["kind"] == kind, "top_score"].to_numpy()
        assert box["q1"][0] == pytest.approx(np.percentile(scores, 25))
        assert box["median"][0] == pytest.approx(np.median(scores))
        assert box["q3"][0] == pytest.approx(np.percentile(scores, 75))
        assert (box["lowerfence"][0], box["upperfence"][0]) == (scores.min(), scores.max())
        (points,) = [t for t in data if t.get("y", [None])[0] == label and "x" in t]
        assert min(points["x"]) == scores.min() and max(points["x"]) == scores.max()


def test_every_run_gets_its_own_subplot_scale_and_threshold_in_one_figure():
    parts = []
    for i, run in enumerate(("a", "b", "c")):
        one = report(40 + i, 10, seed=i).top_scores.assign(run=run)
        parts.append(one.assign(top_score=one["top_score"] * (i + 1)))  # other scales
    tops = pd.concat(parts, ignore_index=True)
    r = NoAnswerReport(top_scores=tops, sweep=report(1, 1).sweep, k=5)
    thresholds = {"a": 0.5, "c": 1.2}  # b has none
    fig = nav.score_figure(r, ["a", "b", "c"], {"a": "#111111", "b": "#222222"}, thresholds)
    by_axis = {}
    for trace in fig.data:
        by_axis.setdefault(trace.xaxis, []).append(len(trace.x))
    assert by_axis == {"x": [40, 10], "x2": [41, 10], "x3": [42, 10]}
    titles = [a.text for a in fig.layout.annotations]
    assert titles == [
        "a · threshold 0.500 (dashed)",
        "b · no threshold",
        "c · threshold 1.200 (dashed)",
    ]
    dashed = sorted((shape.xref, shape.x0) for shape in fig.layout.shapes)
    assert dashed == [("x", 0.5), ("x3", 1.2)]
    assert not any(axis.matches for axis in (fig.layout.xaxis2, fig.layout.xaxis3))


def test_the_sweep_curve_is_thinned_but_the_picked_threshold_is_exact():
    r = report(8334, 1666)
    fig = nav.sweep_figure(r, {"r": "#0072B2"}, ["r"], 0.1)
    curve, star = traces(fig)[:2]
    assert len(curve["x"]) <= nav.MAX_CURVE_POINTS
    picked = r.pick(0.1).iloc[0]
    assert (star["x"][0], star["y"][0]) == (
        picked["answerable_coverage"],
        picked["false_confidence"],
    )
    assert nav.sweep_table(r, "r").shape[0] == len(r.sweep)  # the table keeps every row


def test_the_sweep_tables_are_built_only_while_their_box_is_open(monkeypatch):
    at = app(None, monkeypatch).switch_page("pages/no_answer.py").run()
    no_exception(at)
    sweep_tables = lambda: [d for d in at.dataframe if list(d.value.columns) == SWEEP]  # noqa: E731
    assert sweep_tables() == []
    at.session_state["noans_sweep_open"] = True
    at.run()
    no_exception(at)
    # one tab per run; each table has every distinct threshold of its run
    assert len(sweep_tables()) == 4 and all(len(d.value) > 10 for d in sweep_tables())


@pytest.fixture(scope="module")
def samples_tops():
    from ragrecall_core import Workspace
    from ragrecall_core.analysis.no_answer import no_answer_report

    ws = Workspace.open(shared_samples())
    report = no_answer_report(ws, 5)
    picked = dict(zip(report.pick(0.1)["run"], report.pick(0.1)["threshold"], strict=True))
    return nav.no_answer_tops(ws, report, picked), picked


def test_queries_a_run_answers_above_its_threshold_come_first(samples_tops):
    tops, picked = samples_tops
    above = tops["top score"] >= tops["run"].map(picked)
    flagged = above.groupby(tops["query_id"]).transform("any").to_numpy()
    assert flagged.any() and not flagged.all()  # the sample has both kinds
    # every flagged row before every other, and each query's rows next to each other
    assert list(flagged) == sorted(flagged, reverse=True)
    firsts = tops["query_id"].ne(tops["query_id"].shift()).cumsum()
    assert firsts.groupby(tops["query_id"]).nunique().eq(1).all()


def test_the_page_lists_the_first_queries_with_every_run_of_each(samples_tops):
    from ragrecall_core import Workspace
    from ragrecall_core.analysis.no_answer import no_answer_report

    tops, picked = samples_tops
    report = no_answer_report(Workspace.open(shared_samples()), 5)
    shown = nav.no_answer_tops(Workspace.open(shared_samples()), report, picked, limit=3)
    assert list(shown["query_id"].drop_duplicates()) == list(tops["query_id"].unique()[:3])
    assert shown.groupby("query_id").size().eq(tops["run"].nunique()).all()
    # the same rows, texts included, as the whole list's first ones
    pd.testing.assert_frame_equal(shown, tops.head(len(shown)))


def test_a_long_list_says_how_many_are_not_shown(monkeypatch):
    monkeypatch.setattr(nav, "MAX_TOP_QUERIES", 3)
    at = app(monkeypatch=monkeypatch)
    at.session_state["noans_tops_open"] = True  # the table is sent only while it is open
    at = at.switch_page("pages/no_answer.py").run()
    no_exception(at)
    table = next(d.value for d in at.dataframe if "top chunk" in d.value.columns)
    assert table["query_id"].nunique() == 3
    assert any("The first 3 of" in c.value for c in at.caption)


def test_each_row_says_whether_its_run_answers_above_its_threshold(samples_tops):
    tops, picked = samples_tops

    def expected(run: str, score) -> str:
        if pd.isna(score):
            return "returned nothing"
        if run not in picked:
            return "no threshold"
        return "⚠ above threshold" if score >= picked[run] else "below threshold"

    said = list(tops["confident"])
    assert said == [expected(r, s) for r, s in zip(tops["run"], tops["top score"], strict=True)]
    assert {"no threshold", "⚠ above threshold", "below threshold"} <= set(said)


def test_the_score_chart_leaves_room_for_its_longest_group_label():
    """Given the room its category labels need, plotly draws the figure once (its automargin
    would otherwise widen the margin after a first drawing and draw it all again)."""
    fig = nav.score_figure(report(8334, 1666), ["r"], {"r": "#0072B2"}, {"r": 0.5})
    labels = {trace.y[0] for trace in fig.data}
    longest = max(labels, key=len)
    assert longest == f"answerable (8334; {nav.MAX_POINTS} drawn)"
    assert fig.layout.margin.l == label_margin([longest]) >= 0.6 * 15 * len(longest)
