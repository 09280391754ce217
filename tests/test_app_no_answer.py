"""AppTest: the No-answer page (issue #7), and Harm@k on the Overview and Queries pages."""

import pandas as pd
import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.no_answer import no_answer_report
from ragrecall_core.views import no_answer_text as nat
from tests import fixtures_regressions as fx
from tests.dashboard_support import (
    app,
    no_exception,
    titles,
    trec_workspace,
    unescaped_text,
)
from tests.dashboard_support import figures as chart_figures
from tests.dashboard_support import table as shown_table
from tests.samples import shared_samples

PAGE = "pages/no_answer.py"
RUNS = ["bm25", "dense-minilm", "hybrid-rrf-k10-titleboost", "hybrid-rrf"]


# the boxes whose content is sent only while open: the sweep curve, the score charts, the
# tops table
BOXES = ("noans_sweep_chart_open", "noans_scores_open", "noans_tops_open")


def open_page(monkeypatch, workspace=None, params=None, opened=BOXES):
    """The page with the boxes ``opened`` open."""
    at = app(workspace, monkeypatch, params)
    for key in opened:
        at.session_state[key] = True
    return at.switch_page(PAGE).run()


def table(at, first_columns):
    for frame in at.dataframe:
        if list(frame.value.columns[: len(first_columns)]) == first_columns:
            return frame.value
    raise KeyError(first_columns)


def picked(at):
    return table(at, ["run", "threshold"])


def tops(at):
    return table(at, ["query_id", "query", "run", "top chunk"])


def figures(at):
    return chart_figures(at)


def test_renders_per_run_on_data_samples(monkeypatch):
    at = open_page(monkeypatch)
    no_exception(at)
    assert titles(at) == ["No-answer queries"]
    expected = no_answer_report(Workspace.open(shared_samples()), 5).pick(0.1)
    shown = picked(at).set_index("run")
    assert list(shown.index) == RUNS
    for _, row in expected.iterrows():
        cell = shown.at[row["run"], "threshold"]  # shown to 4 decimals
        assert float(cell) == pytest.approx(row["threshold"], abs=5e-5)
    # a score subplot per run (never pooled), on its own axis, plus the sweep curve
    titles_ = [f["layout"].get("title", {}).get("text", "") for f in figures(at)]
    assert any(t.startswith("Threshold sweep") for t in titles_)
    (scores,) = [f for f in figures(at) if f["layout"].get("xaxis4")]
    subplots = [a["text"] for a in scores["layout"]["annotations"]]
    assert [t.split(" · ")[0] for t in subplots if " · " in t] == RUNS
    assert len({trace["xaxis"] for trace in scores["data"]}) == len(RUNS)
    listed = tops(at)
    assert len(listed) == 15 * len(RUNS) and set(listed["run"]) == set(RUNS)
    assert listed["text"].str.len().gt(0).any()


def test_the_score_charts_and_the_tops_are_sent_only_while_their_boxes_are_open(monkeypatch):
    at = open_page(monkeypatch, opened=())
    no_exception(at)
    assert [e.label for e in at.expander] == [
        *(nat.SWEEP_CHART_TITLE, nat.SCORES_TITLE, "The threshold sweep as a table"),
        nat.TOPS_TITLE,
    ]
    assert figures(at) == []
    with pytest.raises(KeyError):
        tops(at)
    closed = picked(at)
    at.session_state["noans_sweep_chart_open"] = True
    at.run()
    (sweep,) = figures(at)  # the sweep curve alone: no score chart
    assert sweep["layout"]["title"]["text"].startswith("Threshold sweep")
    at.session_state["noans_scores_open"] = True
    at.run()
    assert len(figures(at)) == 2
    at.session_state["noans_tops_open"] = True
    at.run()
    no_exception(at)
    assert len(tops(at)) == 15 * len(RUNS)
    assert picked(at).equals(closed)  # what the page shows above the boxes is the same


def test_slider_changes_the_picked_threshold(monkeypatch):
    at = open_page(monkeypatch)
    before = picked(at)
    at.slider(key="noans_fc").set_value(50).run()
    no_exception(at)
    after = picked(at)
    assert at.query_params["fc"] in ("50", ["50"])
    shares = pd.to_numeric(after["false confidence"].str.rstrip("%"), errors="coerce") / 100
    assert (shares.fillna(0) <= 0.5).all()
    assert not after.equals(before)


def test_split_filter_changes_the_content(monkeypatch):
    at = open_page(monkeypatch)
    all_queries = len(tops(at))
    at.pills(key="side_split").select("test").run()
    no_exception(at)
    in_test = tops(at)
    assert 0 < len(in_test) < all_queries
    gold = Workspace.open(shared_samples()).cursor()
    test_ids = {
        r[0] for r in gold.execute("SELECT query_id FROM queries WHERE split = 'test'").fetchall()
    }
    assert set(in_test["query_id"]) <= test_ids


def test_trec_data_without_corpus(tmp_path, monkeypatch):
    at = open_page(monkeypatch, trec_workspace(tmp_path))
    no_exception(at)
    infos = " ".join(i.value for i in at.info)
    assert "no query text" in infos and "No corpus" in infos
    assert any("chunk text is empty" in c.value for c in at.caption)
    assert len(tops(at)) == 1


def test_relevant_grade_on_a_no_answer_query_is_a_possible_gold_error(tmp_path, monkeypatch):
    ws = fx.write_workspace(tmp_path / "ws")
    fx.write_jsonl(
        ws / "grades" / "boris.jsonl",
        [
            {
                "query_id": "t09",
                "chunk_id": "noise-base-t09#n1",
                "grade": 2,
                "harmful": False,
                "reason": "answers it after all",
                "annotator": "boris",
            }
        ],
    )
    at = open_page(monkeypatch, ws)
    no_exception(at)
    errors = table(at, ["query_id", "query", "chunk graded relevant"])
    assert list(errors["query_id"]) == ["t09"]
    assert list(errors["annotators"]) == ["boris"]


def test_harm_on_overview_and_queries(tmp_path, monkeypatch):
    ws = fx.write_workspace(tmp_path / "ws")
    at = app(ws, monkeypatch)
    no_exception(at)
    headline = shown_table(at).set_index("run")
    # anna flagged noise-cand-t01#n1 harmful; it is the candidate's rank 1 for t01: 1 of 13
    assert headline.at["candidate", "Harm@5 ↓"].startswith(f"{1 / 13:.3f}")
    assert headline.at["baseline", "Harm@5 ↓"].startswith("0.000")
    at.switch_page("pages/queries.py").run()
    at.pills(key="side_focus").select("candidate").run()
    no_exception(at)
    shown = at.dataframe(key="queries_table").value.set_index("query_id")
    harm = shown["Harm@5"].astype(int)  # shown as text: "1" / "0"
    assert harm["t01"] == 1 and harm.sum() == 1


def test_picked_stars_at_one_point_are_nested_not_hidden(monkeypatch):
    """bm25 and dense-minilm pick thresholds at the same (coverage, false confidence) on
    data_samples: each star must stay visible (distinct sizes, smaller drawn on top) and
    every star is drawn after every curve."""
    at = open_page(monkeypatch)
    no_exception(at)
    sweep = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("Threshold"))
    traces = sweep["data"]
    stars = [t for t in traces if t.get("marker", {}).get("symbol") == "star"]
    assert len(stars) == 3  # hybrid-rrf keeps no threshold at 10%
    first_star = traces.index(stars[0])
    assert all(t.get("marker", {}).get("symbol") == "star" for t in traces[first_star:])
    points = {}
    for star in stars:
        points.setdefault((star["x"][0], star["y"][0]), []).append(star["marker"]["size"])
    shared = [sizes for sizes in points.values() if len(sizes) > 1]
    assert shared, "the sample has runs picked at the same point"
    for sizes in shared:
        assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == len(sizes)


def test_a_rankless_distance_run_is_warned_of_on_the_page(tmp_path, monkeypatch):
    """The page reads a run's direction as the CLI does: a CSV run without ranks is ordered
    by score, highest first, so distances read as "higher is better"; the page says the
    file's scores rise as given, as evaluate and `ragrecall no-answer` do."""
    ws = tmp_path / "ws"
    (ws / "runs").mkdir(parents=True)
    fx.write_jsonl(
        ws / "gold.jsonl",
        [
            {"id": "q1", "query": "one", "relevant_ids": ["a"]},
            {"id": "q2", "query": "two", "relevant_ids": ["b"]},
            {"id": "q3", "query": "three", "relevant_ids": []},
        ],
    )
    (ws / "runs" / "faiss.csv").write_text(
        "query_id,chunk_id,score\nq1,a,0.1\nq1,x,0.5\nq2,b,0.2\nq2,y,0.7\nq3,u,0.3\nq3,v,0.6\n",
        encoding="utf-8",
    )
    at = open_page(monkeypatch, ws, opened=())
    no_exception(at)
    said = [unescaped_text(w.value) for w in at.warning]
    said = [text for text in said if "scores rise down" in text]
    assert len(said) == 1 and "faiss.csv" in said[0] and "add a rank column" in said[0]
