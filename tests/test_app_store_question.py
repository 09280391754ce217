"""The dashboard asks which judgment store uploaded data uses when the store of its gold's
name holds another gold's judgments (app.py ``choose_source``, ragrecall_app.store_question):
nothing preselected, no numbers until answered, and a reopened link is not asked again.

Most tests save the uploads as the uploader saves them (``context.save_uploads``) and open
them through their link (``?data=<key>``); one goes through the sidebar's uploaders."""

from __future__ import annotations

import pytest

from ragrecall_app import context
from ragrecall_app.store_question import CHOICES, WAITING, choice_key
from tests.dashboard_support import app, no_exception
from tests.test_upload_stores import files, grade, home, store_of, upload  # noqa: F401

SHARED = "gold.jsonl.judgments.duckdb"


def ask(monkeypatch, source):
    return app(monkeypatch=monkeypatch, params={"data": context.upload_key(source)})


def radios(at, source) -> list:
    return [r for r in at.radio if r.key == choice_key(source)]


def waiting(at) -> bool:
    """The page waits for the answer and shows no number (no table, metric or counts)."""
    counts = [c for c in at.sidebar.get("caption") if "manual grade" in c.value]
    return [i.value for i in at.info] == [WAITING] and not (at.dataframe or at.metric or counts)


def counted(at) -> tuple[str, int]:
    """The store the opened page uses and the stored grades its numbers count."""
    ctx = at.session_state[context.CTX]
    sql = "SELECT count(*) FROM all_grades WHERE source = 'judge page'"
    return ctx.store.path.name, ctx.ws.cursor().execute(sql).fetchone()[0]


@pytest.fixture
def second(home, files):  # noqa: F811
    """Project A's gold graded once, then project B's gold of the same name uploaded."""
    first = upload(files["a"], files["run"])
    context.store_question(first)
    grade(first)
    return upload(files["b"], files["run"])


def test_the_question_waits_with_nothing_chosen_and_no_numbers(monkeypatch, second):
    at = ask(monkeypatch, second)
    no_exception(at)
    (radio,) = radios(at, second)
    assert radio.value is None and radio.index is None
    assert list(radio.options) == list(CHOICES.values())
    (question,) = [t.value for t in at.text if "A judgment store for gold.jsonl" in t.value]
    assert "already holds 1 judgment, made with a different gold file" in question
    assert [i.value for i in at.info] == [WAITING]
    # no view, no counts, no page: nothing that would count or leave out the old grades
    assert not [c for c in at.sidebar.get("caption") if "manual grade" in c.value]
    assert context.CTX not in at.session_state
    assert not at.metric and not at.dataframe and not [s for s in at.selectbox if s.key]


def test_separate_opens_an_empty_store_and_a_reopened_link_does_not_ask(monkeypatch, second):
    at = ask(monkeypatch, second)
    radios(at, second)[0].set_value("separate").run()
    no_exception(at)
    own = store_of(second).name
    assert own.startswith("gold.jsonl.") and own != "gold.jsonl.judgments.duckdb"
    assert not radios(at, second) and counted(at) == (own, 0)
    again = ask(monkeypatch, second)  # a restart or a shared link: a new session
    no_exception(again)
    assert not radios(again, second) and counted(again) == (own, 0)


def test_use_counts_the_stored_grade_and_a_reopened_link_does_not_ask(monkeypatch, second):
    at = ask(monkeypatch, second)
    radios(at, second)[0].set_value("shared").run()
    no_exception(at)
    assert not radios(at, second) and counted(at) == (SHARED, 1)
    again = ask(monkeypatch, second)
    no_exception(again)
    assert not radios(again, second) and counted(again) == (SHARED, 1)


def test_the_same_gold_again_opens_without_a_question(monkeypatch, home, files):  # noqa: F811
    first = upload(files["a"], files["run"])
    context.store_question(first)
    grade(first)
    again = upload(files["a"], files["run2"])
    at = ask(monkeypatch, again)
    no_exception(at)
    assert not radios(at, again) and counted(at) == (SHARED, 1)


def test_the_sidebar_uploaders_ask_too_and_keep_asking_until_answered(
    monkeypatch,
    home,  # noqa: F811
    files,  # noqa: F811
):
    first = upload(files["a"], files["run"])
    context.store_question(first)
    grade(first)
    at = app(monkeypatch=monkeypatch)
    at.file_uploader(key="side_up_gold").upload("gold.jsonl", files["b"])
    at.file_uploader(key="side_up_runs").upload("bm25.jsonl", files["run"])
    at.run()
    no_exception(at)
    (radio,) = [r for r in at.radio if (r.key or "").startswith("store_choice_")]
    assert radio.value is None and waiting(at)
    at.run()  # a rerun (another widget touched) still waits
    assert waiting(at)
    radio.set_value("separate").run()
    no_exception(at)
    assert not waiting(at)  # the page and its numbers are drawn now
    assert not [r for r in at.radio if (r.key or "").startswith("store_choice_")]
    name, count = counted(at)
    assert name != SHARED and name.startswith("gold.jsonl.") and count == 0
