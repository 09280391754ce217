"""AppTest: the Queries page (table, filters, injected row selection, detail)."""

import json
import re
from html import escape

import pytest

from ragrecall_core import Workspace
from tests.dashboard_support import (
    app,
    hostile_workspace,
    no_exception,
    titles,
    trec_workspace,
)
from tests.plain_scores import failing
from tests.samples import samples_copy, shared_samples

PAGE = "pages/queries.py"


def bm25_failing() -> int:
    """bm25's queries with Recall@5 < 1 on data_samples, counted from the raw files by
    tests/plain_scores.py (not by ragrecall): 29 of the 129 answerable queries."""
    return len(failing("bm25", 5))


def corpus_texts() -> dict[str, str]:
    lines = (shared_samples() / "corpus.jsonl").read_text().splitlines()
    return {r["chunk_id"]: r["text"] for r in map(json.loads, lines)}


def strip_marks(html: str) -> str:
    return re.sub("</?mark>", "", html)


def select_row(at, key, row):
    at.session_state[key] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    return at.run()


@pytest.fixture
def at(monkeypatch):
    at = app(monkeypatch=monkeypatch)
    return at.switch_page(PAGE).run()


def html_text(at) -> str:
    return "\n".join(h.value for h in at.html)


def failing_ids(table) -> list[str]:
    return sorted(table.loc[table["status"] == "✗ FAIL", "query_id"])


def test_table_renders(at):
    no_exception(at)
    assert titles(at) == ["Queries"]
    table = at.dataframe(key="queries_table").value
    assert len(table) == 144
    # what a review reads comes first (it fits 1600 px); the rest follows
    assert list(table.columns[:9]) == [
        "status",
        "query_id",
        "query",
        "type",
        "section",
        "failure class",
        "first rank",
        "Recall@5",
        "Hit@5",
    ]
    assert (table["status"] == "✗ FAIL").sum() == bm25_failing() == 29
    assert failing_ids(table) == failing("bm25", 5)  # the very queries, not just their count
    assert (table["status"] == "– no answer").sum() == 15
    assert {"expected", "found at", "RR", "manual grades (top k)", "reviewer reason"} <= set(
        table.columns[9:]
    )


def test_failing_queries_come_first(at):
    table = at.dataframe(key="queries_table").value
    failing = int((table["status"] == "✗ FAIL").sum())
    assert failing and (table["status"].iloc[:failing] == "✗ FAIL").all()
    # in triage order (tests/test_triage_order.py), each failing query once
    assert sorted(table["query_id"].iloc[:failing]) == failing_ids(table)
    rest = list(table["query_id"].iloc[failing:])
    assert rest == sorted(rest) and "✗ FAIL" not in set(table["status"].iloc[failing:])


def test_filters_change_the_table(at):
    at.pills(key="side_section").select("finance").run()
    table = at.dataframe(key="queries_table").value
    assert 0 < len(table) < 144 and set(table["section"]) == {"finance"}
    at.toggle(key="side_failing").set_value(True).run()
    failing = at.dataframe(key="queries_table").value
    assert len(failing) < len(table) and set(failing["status"]) == {"✗ FAIL"}
    assert at.query_params["failing"] in ("1", ["1"])
    # the switch above the table shows and sets the same state
    assert at.button(key="queries_failing_switch").label == "Failures only: on"
    at.button(key="queries_failing_switch").click().run()
    assert at.toggle(key="side_failing").value is False
    assert at.button(key="queries_failing_switch").label == "Failures only: off"
    assert len(at.dataframe(key="queries_table").value) == len(table)
    assert "failing" not in at.query_params


def test_row_selection_opens_reading_view(at):
    table = at.dataframe(key="queries_table").value
    row = int(table.index[table["query_id"] == "q042"][0])
    select_row(at, "queries_table", row)
    no_exception(at)
    assert [s.value for s in at.subheader] == ["Query q042 · run bm25"]
    shown = html_text(at)
    # the gold chunk and the run's top k, as text, without another click
    corpus = corpus_texts()
    assert escape(corpus["incident-response#chunk-02"]) in strip_marks(shown)
    assert "✗ judged not relevant" in shown and "anna: 0" in shown
    assert "found at rank" in shown or "not retrieved in the top" in shown
    assert "<mark>" in shown
    assert at.query_params["q"] in ("q042", ["q042"])


def test_next_and_previous_failing(at):
    table = at.dataframe(key="queries_table").value
    ids = list(table.loc[table["status"] == "✗ FAIL", "query_id"])  # the table's order
    select_row(at, "queries_table", int(table.index[table["query_id"] == ids[0]][0]))
    assert at.button(key="queries_next").proto.shortcut.lower() == "j"
    assert at.button(key="queries_prev").proto.shortcut.lower() == "k"
    at.button(key="queries_next").click().run()
    assert at.session_state["queries_q"] == ids[1]
    at.button(key="queries_prev").click().run()
    at.button(key="queries_prev").click().run()
    assert at.session_state["queries_q"] == ids[-1]  # wraps round


def test_deep_link_opens_reading_view(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"q": "q029", "focus": "dense-minilm"})
    at.switch_page(PAGE).run()
    no_exception(at)
    assert [s.value for s in at.subheader] == ["Query q029 · run dense-minilm"]
    gold = (
        Workspace.open(shared_samples())
        .cursor()
        .execute("SELECT chunk_id FROM qrels WHERE query_id = 'q029'")
        .fetchall()
    )
    shown = strip_marks(html_text(at))
    for (chunk_id,) in gold:
        assert escape(corpus_texts()[chunk_id]) in shown


def test_trec_data_without_corpus_or_text(tmp_path, monkeypatch):
    at = app(trec_workspace(tmp_path), monkeypatch).switch_page(PAGE).run()
    no_exception(at)
    table = at.dataframe(key="queries_table").value
    assert len(table) == 31
    # no query text, type, section, grades or reasons in TREC files: no columns of dashes
    unfilled = {"query", "type", "section", "manual grades (top k)", "reviewer reason"}
    assert not unfilled & set(table.columns) and "RecallCap@5" in table.columns
    select_row(at, "queries_table", 0)
    no_exception(at)
    said = [
        e.value
        for kind in (at.info, at.caption, at.markdown, at.text, at.html, at.warning)
        for e in kind
        if "no corpus" in e.value.lower()
    ]
    assert len(said) == 1, said
    chunk = at.dataframe(key="queries_table").value  # ids still shown in the cards
    assert chunk is not None and "<code>" in html_text(at)


def test_hostile_text_is_data_not_markup(tmp_path, monkeypatch):
    at = app(hostile_workspace(tmp_path), monkeypatch).switch_page(PAGE).run()
    select_row(at, "queries_table", 0)
    no_exception(at)
    shown = html_text(at)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in strip_marks(shown)
    assert "<script>" not in shown
    assert "[click](javascript:alert(1))" in strip_marks(shown)
    assert not any("<script>" in m.value for m in at.markdown)


# ---------------------------------------------------------------- the meeting's verdict
@pytest.fixture
def meeting(tmp_path, monkeypatch):
    """Queries on a copy of data_samples (a verdict is written to its store), q042 open."""
    folder = tmp_path / "ws"
    samples_copy(folder)
    return app(folder, monkeypatch, params={"q": "q042"}).switch_page(PAGE).run()


def field(at, kind: str, label: str):
    found = [w for w in getattr(at, kind) if w.label == label]
    assert len(found) == 1, [w.label for w in getattr(at, kind)]
    return found[0]


def save_verdict(at, reason: str, note: str = "", owner: str = "") -> None:
    field(at, "selectbox", "Failure reason").select(reason)
    field(at, "text_input", "Note").input(note)
    field(at, "text_input", "Owner (optional)").input(owner)
    field(at, "text_input", "Recorded by").input("dora")
    [save] = [b for b in at.button if b.label == "Save verdict"]
    save.click().run()


def test_a_verdict_is_recorded_from_the_reading_view(meeting):
    assert field(meeting, "selectbox", "Failure reason").value is None
    assert any(m.value == "No verdict yet." for m in meeting.markdown)
    save_verdict(meeting, "chunk boundary", "the exception is in the next chunk", "ops")
    no_exception(meeting)
    table = meeting.dataframe(key="queries_table").value
    assert table.columns[9] == "verdict"  # among the columns a review reads
    assert table.set_index("query_id").at["q042", "verdict"] == "chunk boundary"
    said = " ".join(m.value for m in meeting.markdown)
    assert "Verdict: chunk boundary" in said and "owner: ops" in said
    assert any(e.label == "Verdict history (1)" for e in meeting.expander)
    # the next query's form starts empty: nothing typed for q042 carries over
    meeting.button(key="queries_next").click().run()
    assert meeting.session_state["queries_q"] != "q042"
    assert field(meeting, "selectbox", "Failure reason").value is None
    assert field(meeting, "text_input", "Note").value == ""
    # back on q042 the form holds the current verdict; withdrawing empties the column
    meeting.button(key="queries_prev").click().run()
    assert field(meeting, "selectbox", "Failure reason").value == "chunk boundary"
    save_verdict(meeting, "(no verdict: withdraw)")
    table = meeting.dataframe(key="queries_table").value.set_index("query_id")
    assert table.at["q042", "verdict"] == ""
    assert any(e.label == "Verdict history (2)" for e in meeting.expander)


def test_a_refused_verdict_says_why_and_stores_nothing(meeting):
    save_verdict(meeting, "other", note="x" * 2001)
    assert any("not saved" in e.value for e in meeting.error)
    assert any("at most 2000 characters" in c.value for c in meeting.code)
    assert (
        meeting.dataframe(key="queries_table").value.set_index("query_id").at["q042", "verdict"]
        == ""
    )


def test_a_read_only_store_disables_the_verdict_form(tmp_path, monkeypatch):
    monkeypatch.setattr("ragrecall_core.inputs.store.is_writable", lambda path: False)
    folder = tmp_path / "ws"
    samples_copy(folder)
    at = app(folder, monkeypatch, params={"q": "q042"}).switch_page(PAGE).run()
    no_exception(at)
    assert not [b for b in at.button if b.label == "Save verdict"]
    off = [c.value for c in at.caption if c.value.startswith("Recording verdicts is off")]
    assert len(off) == 1 and "read-only" in off[0]


def test_russian_and_vietnamese_words_are_marked(tmp_path, monkeypatch):
    (tmp_path / "runs").mkdir()
    gold = [
        {"id": "ru", "query": "Сколько дней ОТПУСКА в году?", "relevant_ids": ["ru#1"]},
        {"id": "vi", "query": "Thời hạn nghỉ phép năm", "relevant_ids": ["vi#1"]},
    ]
    corpus = [
        {"chunk_id": "ru#1", "text": "Отпуска: 28 дней в году, отпуск делится на части."},
        {"chunk_id": "vi#1", "text": "Nghỉ phép năm: thời hạn là 12 ngày."},
    ]
    run = [
        {"id": q, "retrieved": [{"chunk_id": f"{q}#1", "rank": 1, "score": 1.0}]}
        for q in ("ru", "vi")
    ]
    for name, rows in (("gold.jsonl", gold), ("corpus.jsonl", corpus), ("runs/r.jsonl", run)):
        (tmp_path / name).write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )
    at = app(tmp_path, monkeypatch, params={"q": "ru"}).switch_page(PAGE).run()
    no_exception(at)
    shown = html_text(at)
    assert "<mark>Отпуска</mark>: 28 <mark>дней</mark> в <mark>году</mark>" in shown
    assert "<mark>ОТПУСКА</mark>" in shown  # the query line, its own case kept
    at = app(tmp_path, monkeypatch, params={"q": "vi"}).switch_page(PAGE).run()
    shown = html_text(at)
    assert "<mark>Nghỉ</mark> <mark>phép</mark> <mark>năm</mark>: <mark>thời</mark>" in shown


def test_two_copies_of_the_same_files_keep_their_own_verdicts(tmp_path, monkeypatch):
    """The cache key of stored grades and verdicts names the store, not only its version:
    two copies of one workspace (same content, same counts) never show each other's."""
    copies = []
    for name in ("a", "b"):
        folder = tmp_path / name
        samples_copy(folder)
        copies.append(folder)
    first = app(copies[0], monkeypatch, params={"q": "q042"}).switch_page(PAGE).run()
    save_verdict(first, "paraphrase")
    assert first.dataframe(key="queries_table").value.set_index("query_id").at["q042", "verdict"]
    second = app(copies[1], monkeypatch, params={"q": "q042"}).switch_page(PAGE).run()
    save_verdict(second, "chunk boundary")
    for at, reason in ((first.run(), "paraphrase"), (second.run(), "chunk boundary")):
        verdicts = at.dataframe(key="queries_table").value.set_index("query_id")["verdict"]
        assert verdicts["q042"] == reason
