"""The dashboard's core modules: state <-> URL, per-query table, detail, groups, ranks, CI."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.bootstrap import mean_ci, summary_with_ci
from ragrecall_core.analysis.query_detail import (
    HARMFUL,
    NOT_RELEVANT,
    RELEVANT,
    UNJUDGED,
    query_detail,
)
from ragrecall_core.analysis.query_table import NO_ANSWER, filter_table, neighbour, query_table
from ragrecall_core.inputs.workspace import workspace_facts
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.views.charts import run_colors
from ragrecall_core.views.dashboard_state import (
    Source,
    ViewOptions,
    ViewState,
    from_params,
    k_choices,
    parse_source,
    read_params,
    to_params,
)
from ragrecall_core.views.failure_groups import failure_groups
from ragrecall_core.views.plot_events import point_run_and_label, selected_points, selected_rows
from ragrecall_core.views.ranks import (
    NOT_RETRIEVED,
    first_rank_counts,
    hit_rate_by_depth,
    rank_bins,
)
from tests.plain_scores import mean, plain_scores
from tests.samples import shared_samples

DATA = shared_samples()


@pytest.fixture(scope="module")
def ws():
    return Workspace.open(DATA)


@pytest.fixture(scope="module")
def table(ws):
    return query_table(ws, 5)


# ---------------------------------------------------------------- state <-> URL
@pytest.mark.parametrize(
    "params, field, value",
    [
        ({"k": ["10"]}, "k", 10),
        ({"k": ["0"]}, "k", 5),
        ({"k": ["ten"]}, "k", 5),
        ({"run": ["a", "b"]}, "runs", ("a", "b")),
        # kept whole: the workspace's runs split it (a run may be named a,b), in fit
        ({"run": "a,b"}, "runs", ("a,b",)),
        ({"failing": ["1"]}, "failing_only", True),
        ({"failing": ["no"]}, "failing_only", False),
        ({"q": ["q042"]}, "query_id", "q042"),
        ({"fclass": ["never retrieved"]}, "failure_class", "never retrieved"),
        ({"rule": ["hit"]}, "pass_rule", "hit"),
        ({"rule": ["recall"]}, "pass_rule", "recall"),
        ({"rule": ["Recall"]}, "pass_rule", "capped"),
        ({}, "pass_rule", "capped"),
    ],
)
def test_from_params(params, field, value):
    assert getattr(from_params(params), field) == value


def test_commas_between_loaded_runs_separate_them():
    options = ViewOptions(runs=("a", "b", "c"))
    assert from_params({"run": "a,b"}).fit(options).runs == ("a", "b")


def test_round_trip_and_defaults_left_out():
    state = ViewState(runs=("bm25",), k=10, section="hr", failing_only=True, query_id="q1")
    params = to_params(state)
    assert params == {"run": ["bm25"], "k": "10", "section": "hr", "failing": "1", "q": "q1"}
    assert from_params(params) == state
    assert to_params(ViewState()) == {}


def test_policy_round_trips_through_the_url():
    state = ViewState(
        rel_level=2, unit="doc", partial="relevant", harmful="as_graded", manual_grades=False
    )
    params = to_params(state)
    assert params == {
        "rel": "2",
        "unit": "doc",
        "partial": "relevant",
        "harmful": "as_graded",
        "manual": "0",
    }
    assert from_params(params) == state
    assert state.policy() == Policy(
        rel_level=2, unit="doc", partial="relevant", harmful="as_graded", manual_grades=False
    )
    assert ViewState().policy() == Policy()
    assert to_params(ViewState(unit="chunk", manual_grades=True)) == {}


def test_fit_replaces_policy_values_the_dashboard_does_not_offer():
    bad = from_params({"rel": "7", "unit": "page", "partial": "x", "harmful": "y"})
    assert bad.fit(ViewOptions(runs=["a"])).policy() == Policy()


def test_fit_drops_what_the_workspace_lacks():
    options = ViewOptions(runs=["a", "b"], k_choices=(1, 3, 5, 10), sections=["hr"])
    state = ViewState(runs=("zzz",), focus="zzz", k=7, section="nope").fit(options)
    assert state.runs == ("a", "b") and state.focus == "a" and state.section == ""
    assert state.k == 5


def test_k_choices_follow_depth():
    assert k_choices(20) == (1, 2, 3, 5, 10, 20)
    assert k_choices(7) == (1, 2, 3, 5, 7)


def test_parse_source(tmp_path):
    default = tmp_path / "d"
    assert parse_source([], {}, default) == Source(workspace=default)
    assert parse_source([], {"RAGRECALL_WORKSPACE": "/w"}, default).workspace == Path("/w")
    src = parse_source(["--gold", "g", "--run", "r1", "--run", "r2", "--corpus", "c"], {}, default)
    assert src.gold == Path("g") and src.runs == (Path("r1"), Path("r2"))
    assert parse_source(["-q", "--workspace", "w"], {}, default).workspace == Path("w")


def test_workspace_facts_offer_the_filters_depths_and_counts(ws):
    facts = workspace_facts(ws)
    assert facts.splits == ("dev", "test")
    assert "finance" in facts.sections and "" not in facts.sections
    assert facts.depths == {
        "bm25": 20,
        "dense-minilm": 20,
        "hybrid-rrf-k10-titleboost": 10,
        "hybrid-rrf": 20,
    }
    assert (facts.queries, facts.has_query_text) == (144, True)
    assert facts.corpus_chunks > 0 and facts.grades > 0


def test_workspace_facts_keep_hostile_values_as_data(tmp_path):
    hostile = "x' OR 1=1 --"
    (tmp_path / "runs").mkdir()
    (tmp_path / "gold.jsonl").write_text(
        json.dumps(
            {"id": "q1", "query": "q", "relevant_ids": ["A"], "section": hostile, "split": ""}
        )
        + "\n"
    )
    (tmp_path / "runs" / "r.jsonl").write_text(json.dumps({"id": "q1", "retrieved": []}) + "\n")
    facts = workspace_facts(Workspace.open(tmp_path))
    assert (facts.sections, facts.splits, facts.query_types) == ((hostile,), (), ())
    assert facts.depths == {"r": 0}  # a run that returned nothing has depth 0
    assert (facts.has_query_text, facts.corpus_chunks, facts.grades) == (True, 0, 0)


# ---------------------------------------------------------------- per-query table
def test_table_matches_the_definitions(table):
    """Every run's Recall@5, RR@5 and Hit@5 per query equal the values tests/plain_scores.py
    computes from the raw files by the measures' definitions (not by ragrecall)."""
    for run in table["run"].unique():
        expected = pd.DataFrame.from_dict(plain_scores(run, 5), orient="index").sort_index()
        mine = table[(table.run == run) & (table.relevant > 0)].set_index("query_id")
        mine = mine.sort_index()[["Recall@5", "RR@5", "Hit@5"]]
        assert list(mine.index) == list(expected.index)  # the same 129 answerable queries
        assert np.allclose(mine.to_numpy(), expected[["Recall", "RR", "Hit"]].to_numpy())
    # by hand: q076's gold chunk is bm25's #4 (RR 1/4) and the chunk both reviewers add
    # (sick-leave#chunk-02) is not in its top 5, so Recall@5 = 1/2
    q076 = table[(table.run == "bm25") & (table.query_id == "q076")].iloc[0]
    assert (q076["Recall@5"], q076["RR@5"], q076["Hit@5"]) == (0.5, 0.25, 1.0)
    assert len(table) == 4 * 144
    assert (table["failure_class"] == NO_ANSWER).sum() == 4 * 15


def test_failing_means_recall_below_one(table):
    assert (table["failing"] == (table["Recall@5"] < 1)).all()
    assert set(table.loc[table.failing, "failure_class"]) <= {
        "partial",
        "ranked below k",
        "never retrieved",
        "missing from run",
        "gold not in corpus",
    }


def test_seed_000_columns(table):
    row = table[(table.run == "bm25") & (table.query_id == "q042")].iloc[0]
    assert row["expected"] == ["incident-response#chunk-02"]
    assert "anna 0" in row["manual_grades"] and row["reason"] == "unrelated topic"
    assert row["doc_length"].split()[0] in ("short", "medium", "long")


def test_filter_and_neighbour(table):
    rows = filter_table(table, {"section": "hr"}, ["bm25"], True)
    assert set(rows.section) == {"hr"} and rows.failing.all() and set(rows.run) == {"bm25"}
    assert neighbour(["a", "b", "c"], "c", 1) == "a"
    assert neighbour(["a", "b", "c"], "a", -1) == "c"
    assert neighbour(["a", "b"], "zzz", 1) == "a"
    assert neighbour([], "a", 1) is None


# ---------------------------------------------------------------- detail
def test_detail_marks(ws):
    d = query_detail(ws, "bm25", "q066", 5)
    marks = dict(zip(d.retrieved.chunk_id, d.retrieved["mark"], strict=True))
    assert marks["per-diem-2025#chunk-01"] == RELEVANT
    assert marks.get("per-diem-2023#chunk-01", HARMFUL) == HARMFUL
    assert set(d.retrieved["mark"]) <= {RELEVANT, NOT_RELEVANT, HARMFUL, UNJUDGED}
    assert d.has_corpus and not d.missing
    assert not query_detail(ws, "bm25", "no-such-query", 5).found


# ---------------------------------------------------------------- groups and ranks
def test_groups_count_beside_rate(table):
    groups = failure_groups(table, "section")
    assert (groups["rate"] == groups["failing"] / groups["queries"]).all()
    bm25 = groups[groups.run == "bm25"]
    assert bm25["failing"].sum() == table[(table.run == "bm25")].failing.sum()
    with pytest.raises(KeyError):
        failure_groups(table, "nope")


def test_histogram_and_hit_curve_agree_with_hit(ws, table):
    hist = first_rank_counts(table, 20)
    bm25 = hist[hist.run == "bm25"].set_index("bin")
    answerable = table[(table.run == "bm25") & (table.relevant > 0)]
    assert bm25["queries"].sum() == len(answerable)
    assert bm25.loc[NOT_RETRIEVED, "queries"] == answerable["FirstRank"].isna().sum()
    curve = hit_rate_by_depth(table, {"bm25": 20})
    # 105 of bm25's 129 answerable queries have a relevant chunk in the top 5 (plain_scores)
    assert curve.set_index("k").loc[5, "hit"] == pytest.approx(mean("bm25", 5, "Hit"))
    assert curve.set_index("k").loc[5, "hit"] == pytest.approx(105 / 129)


def test_rank_bins():
    assert [b[0] for b in rank_bins(3)] == ["1", "2", "3"]
    labels = [b[0] for b in rank_bins(100)]
    assert labels[:10] == [str(i) for i in range(1, 11)] and labels[-1] == "51–100"


# ---------------------------------------------------------------- CI, colours, events
def test_bootstrap_ci_covers_mean_and_matches_scipy():
    from scipy.stats import bootstrap

    rng = np.random.default_rng(0)
    x = rng.random(300)
    lo, hi = mean_ci(x)
    ref = bootstrap((x,), np.mean, method="percentile", n_resamples=2000, random_state=0)
    assert lo < x.mean() < hi
    assert lo == pytest.approx(ref.confidence_interval.low, abs=0.01)
    assert hi == pytest.approx(ref.confidence_interval.high, abs=0.01)


def test_summary_skips_nan_like_the_core():
    frame = pd.DataFrame({"run": ["a"] * 4, "m": [1.0, 0.0, np.nan, 1.0]})
    row = summary_with_ci(frame, ["m"]).iloc[0]
    assert row["value"] == pytest.approx(2 / 3) and row["queries"] == 3


def test_run_colors_stable():
    assert run_colors(["a", "b"])["b"] == run_colors(["a", "b", "c"])["b"]


def test_events():
    assert selected_rows({"selection": {"rows": [3]}}) == [3]
    assert selected_rows(None) == []
    point = {"curve_number": 1, "y": "hr"}
    assert selected_points({"selection": {"points": [point]}}) == [point]
    assert point_run_and_label(point, ["a", "b"], "y") == ("b", "hr")
    assert point_run_and_label({"customdata": ["a", "x"]}, [], "y") == ("a", "x")


def test_overview_shows_the_precision_band_beside_p_at_k():
    import pandas as pd

    from ragrecall_core.views import overview

    summary = pd.DataFrame(
        {
            "run": ["new"] * 3,
            "measure": ["P@3", "Pmax@3", "Judged@3"],
            "value": [0.0, 2 / 3, 1 / 3],
            "low": [0.0, 2 / 3, 1 / 3],
            "high": [0.0, 2 / 3, 1 / 3],
            "queries": [1, 1, 1],
        }
    )
    table = overview.headline_table(summary, 3)
    assert table.loc[0, overview.band_label(3)] == "0.000 – 0.667"
    assert "Pmax@3" not in set(overview.chart_frame(summary).measure)


def test_an_unknown_pass_rule_in_the_url_is_refused_and_named():
    state, refused = read_params({"rule": ["always"]})
    assert state.pass_rule == "capped"
    assert len(refused) == 1 and "rule" in refused[0] and "capped, recall, hit" in refused[0]
    assert to_params(ViewState(pass_rule="hit")) == {"rule": "hit"}
