"""Once uploaded data has a judgment store (shared by golds of its name, or its own), the
sidebar says which and lets the user change it (ragrecall_app.store_question.offer_change):
the counts of both stores are shown, the switch asks first, the page's numbers follow at
once, the manifest keeps it, and no store file is deleted or moved."""

from __future__ import annotations

import json

from ragrecall_app import context
from ragrecall_app.store_question import CHANGE_LABEL, SWITCH_LABEL, change_key, switch_key
from ragrecall_core.inputs.home import stores_folder, uploads_folder
from tests.dashboard_support import app, no_exception
from tests.test_app_store_question import SHARED, ask, counted, radios, second  # noqa: F401
from tests.test_upload_stores import files, grade, home, store_of, upload  # noqa: F401


def texts(at) -> list[str]:
    return [t.value for t in at.sidebar.get("text")]


def manifest_store(source) -> str:
    record = uploads_folder() / f"{context.upload_key(source)}.json"
    return json.loads(record.read_text())["store"]


def switch(at, source) -> None:
    """Open the change, then confirm it."""
    at.toggle(key=change_key(source)).set_value(True).run()
    no_exception(at)
    at.button(key=switch_key(source)).click().run()
    no_exception(at)


def test_switching_shared_to_separate_and_back_follows_at_once_and_keeps_every_file(
    monkeypatch,
    second,  # noqa: F811
):
    at = ask(monkeypatch, second)
    radios(at, second)[0].set_value("shared").run()
    assert counted(at) == (SHARED, 1)
    assert [t for t in texts(at) if SHARED in t and "in use" in t]
    assert at.toggle(key=change_key(second)).label == CHANGE_LABEL
    kept = {p.name for p in stores_folder().iterdir()}
    at.toggle(key=change_key(second)).set_value(True).run()
    no_exception(at)
    # both stores' counts, in the question's words; nothing changed before the confirmation
    assert [t for t in texts(at) if SHARED in t and "holds 1 judgment" in t]
    assert [t for t in texts(at) if "this gold's own store" in t and "holds no judgments" in t]
    assert at.button(key=switch_key(second)).label == SWITCH_LABEL["separate"]
    assert counted(at) == (SHARED, 1) and manifest_store(second) == "shared"
    at.button(key=switch_key(second)).click().run()
    no_exception(at)
    own = store_of(second).name
    assert own != SHARED and counted(at) == (own, 0) and manifest_store(second) == "separate"
    assert not at.toggle(key=change_key(second)).value  # the change is closed again
    assert kept <= {p.name for p in stores_folder().iterdir()}  # nothing deleted or moved
    at.toggle(key=change_key(second)).set_value(True).run()  # each store counted as it is
    assert [t for t in texts(at) if t.startswith(SHARED) and "holds 1 judgment" in t]
    assert [t for t in texts(at) if t.startswith(own) and "holds no judgments" in t]
    at.button(key=switch_key(second)).click().run()
    no_exception(at)
    assert counted(at) == (SHARED, 1) and manifest_store(second) == "shared"
    assert kept <= {p.name for p in stores_folder().iterdir()}
    again = ask(monkeypatch, second)  # a reopened link: the last choice, unasked
    no_exception(again)
    assert not radios(again, second) and counted(again) == (SHARED, 1)


def test_switching_separate_to_shared_counts_the_shared_grades(monkeypatch, second):  # noqa: F811
    at = ask(monkeypatch, second)
    radios(at, second)[0].set_value("separate").run()
    own = store_of(second).name
    grade(second, "x")  # two grades of project B in its own store
    grade(second, "y")
    at.run()
    assert counted(at) == (own, 2)
    at.toggle(key=change_key(second)).set_value(True).run()
    assert [t for t in texts(at) if t.startswith(own) and "holds 2 judgments" in t]
    assert [t for t in texts(at) if t.startswith(SHARED) and "holds 1 judgment" in t]
    assert at.button(key=switch_key(second)).label == SWITCH_LABEL["shared"]
    at.button(key=switch_key(second)).click().run()
    no_exception(at)
    assert counted(at) == (SHARED, 1) and manifest_store(second) == "shared"
    assert (stores_folder() / own).exists()  # its own store is kept, with its grades
    at.toggle(key=change_key(second)).set_value(True).run()  # each store counted as it is
    assert [t for t in texts(at) if t.startswith(own) and "holds 2 judgments" in t]
    assert [t for t in texts(at) if t.startswith(SHARED) and "holds 1 judgment" in t]
    at.button(key=switch_key(second)).click().run()
    assert counted(at) == (own, 2)


def test_a_hostile_gold_name_is_shown_as_plain_text(monkeypatch, home, files):  # noqa: F811
    name = "*gold* [x](javascript:alert(1)) <img src=x>.jsonl"
    source = upload(files["a"], files["run"], gold_name=name)
    at = ask(monkeypatch, source)
    no_exception(at)
    assert [t for t in texts(at) if name in t]  # st.text: never read as Markdown
    markdown = [m.value for m in at.sidebar.get("markdown")] + [
        c.value for c in at.sidebar.get("caption")
    ]
    assert not [m for m in markdown if "](javascript" in m or "<img" in m]


def test_a_folder_workspace_has_one_store_and_no_change(tmp_path, monkeypatch, home):  # noqa: F811
    from tests.test_report_view import tiny

    at = app(tiny(tmp_path / "ws"), monkeypatch=monkeypatch)
    no_exception(at)
    assert not [t for t in at.toggle if (t.key or "").startswith("store_change_")]
