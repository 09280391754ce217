"""AppTest: the Overview page and the shared sidebar / URL state."""

import pytest

from ragrecall_app import overview_sections as sections
from tests.dashboard_support import app, no_exception, table, titles, trec_workspace
from tests.plain_scores import mean


@pytest.fixture
def at(monkeypatch):
    return app(monkeypatch=monkeypatch)


def test_overview_renders_on_data_samples(at):
    no_exception(at)
    assert titles(at) == ["Overview"]
    headline = table(at)
    assert list(headline["run"]) == [
        "bm25",
        "dense-minilm",
        "hybrid-rrf-k10-titleboost",
        "hybrid-rrf",
    ]
    assert {"Recall@5", "Hit@5", "MRR@5", "P@5", "Judged@5", "nDCG@5"} <= set(headline.columns)
    # bm25 Recall@5 = 102.5 / 129 = 0.794574 (tests/plain_scores.py, from the raw files),
    # with a CI around it
    assert mean("bm25", 5) == pytest.approx(102.5 / 129)
    cell = headline.loc[headline.run == "bm25", "Recall@5"].iloc[0]
    value, interval = cell.split(" ", 1)
    low, high = map(float, interval.strip("[]").split("–"))
    assert value == "0.795" and low < 0.795 < high
    assert any("relevant = grade >= 1" in t.value for t in at.text)


def test_overview_shows_redacted_config_and_warnings(at):
    at.session_state[sections.CONFIGS_OPEN] = True  # the configurations' box, opened
    at.run()
    configs = [t.value for t in at.text]  # each run config as JSON text
    assert any("dense-cosine" in c for c in configs)
    assert not any("sk-" in c or "hunter2" in c for c in configs)
    assert any("tied scores" in w.value for w in at.warning)


def test_k_and_filter_change_numbers_and_url(at):
    before = table(at)
    at.pills(key="side_k").select(10).run()
    no_exception(at)
    assert "Recall@10" in table(at).columns
    assert at.query_params["k"] in ("10", ["10"])
    at.pills(key="side_type").select("paraphrase").run()
    after = table(at)
    assert at.query_params["type"] in ("paraphrase", ["paraphrase"])
    assert not after.equals(before)


def _recall5(at, run: str) -> str:
    headline = table(at)  # the headline table
    return headline.loc[headline.run == run, "Recall@5"].iloc[0].split(" ")[0]


def _plain_recall5(run: str, **policy) -> str:
    """Recall@5 as the headline shows it, computed from the raw files by
    tests/plain_scores.py (the measure's definition, not ragrecall's code)."""
    return f"{mean(run, 5, **policy):.3f}"


def test_policy_unit_document_changes_headline_as_the_definition_says(at):
    assert _recall5(at, "bm25") == _plain_recall5("bm25") == "0.795"
    at.selectbox(key="side_unit").select("doc").run()
    no_exception(at)
    # a document counts once, at its first chunk's rank: 112 / 129 at document level
    assert _recall5(at, "bm25") == _plain_recall5("bm25", unit="doc") == "0.868"
    assert at.query_params["unit"] in ("doc", ["doc"])
    assert any("unit = doc" in t.value for t in at.text)


def test_policy_from_deep_link_changes_every_number_source(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"rel": "2", "manual": "0"})
    no_exception(at)
    assert at.session_state["side_rel"] == 2 and at.session_state["side_manual"] is False
    # grade >= 2 in the gold alone: q018 and q066 (their "grades"), each fully in the top 5
    expected = _plain_recall5("dense-minilm", rel_level=2, reviewers=False)
    assert _recall5(at, "dense-minilm") == expected == "1.000"
    assert _recall5(at, "dense-minilm") != _plain_recall5("dense-minilm")  # "0.934"
    assert any(
        "grade >= 2" in t.value and "reviewers' grades = ignored" in t.value for t in at.text
    )
    at.switch_page("pages/queries.py").run()
    no_exception(at)
    assert any("grade \\>\\= 2" in c.value for c in at.caption)


def test_deep_link_params_set_the_view(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"k": "3", "split": "test", "run": ["bm25"]})
    no_exception(at)
    assert at.session_state["side_k"] == 3
    assert at.session_state["side_split"] == "test"
    assert list(table(at)["run"]) == ["bm25"]


def test_bad_params_are_dropped_not_raised(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"k": "zero", "run": "nope", "type": "<x>"})
    no_exception(at)
    assert at.session_state["side_k"] == 5
    assert at.session_state["side_type"] == ""


def test_overview_on_trec_data_says_what_is_missing(tmp_path, monkeypatch):
    at = app(trec_workspace(tmp_path), monkeypatch)
    no_exception(at)
    assert titles(at) == ["Overview"]
    infos = " ".join(i.value for i in at.info)
    assert "no query text" in infos and "No corpus" in infos


def test_invalid_workspace_shows_problems_not_traceback(tmp_path, monkeypatch):
    (tmp_path / "runs").mkdir()
    (tmp_path / "gold.jsonl").write_text(
        '{"id": "q1", "query": "x", "relevant_ids": ["a"]}\n'
        '{"id": "q1", "query": "y", "relevant_ids": ["b"]}\n'
    )
    (tmp_path / "runs" / "r.jsonl").write_text(
        '{"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 0, "score": 1}]}\n'
    )
    at = app(tmp_path, monkeypatch)
    assert not at.exception
    assert at.error and "problem" in at.error[0].value
    assert "gold.jsonl" in at.code[0].value
