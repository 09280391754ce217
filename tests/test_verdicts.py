"""ragrecall_core.analysis.verdicts: what a review meeting records per (run, query), kept
append-only in the judgment store: latest wins, history kept, withdraw, validation, and
export / import (idempotent, every bad row reported at once)."""

from __future__ import annotations

import json

import duckdb
import pandas as pd
import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.analysis import verdicts as v
from ragrecall_core.inputs.store import store_path
from tests.helpers import write_text
from tests.test_app_judge import seed002


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace.open(seed002(tmp_path / "ws"))
    yield workspace
    workspace.con.close()


def test_the_vocabulary_is_seed_000s_in_order():
    assert v.REASONS == (
        "vocabulary mismatch",
        "paraphrase",
        "confusable topic",
        "chunk boundary",
        "needs several chunks",
        "outdated document",
        "filter or metadata",
        "gold label wrong",
        "other",
    )


def test_no_store_means_no_verdicts_and_an_empty_frame(ws):
    latest = v.latest_verdicts(ws)
    assert latest.empty and list(latest.columns) == v.COLUMNS
    assert not store_path(ws).exists()  # reading never creates the store
    assert v.verdicts_version(ws) == "no-verdicts"


def test_round_trip_latest_wins_and_history_is_kept(ws):
    v.record_verdict(ws, "old", "q1", "paraphrase", note="asks 'cancel'", owner="ml")
    v.record_verdict(ws, "old", "q1", "chunk boundary", note="cut", recorded_by="dora")
    v.record_verdict(ws, "new", "q1", "other")
    latest = v.latest_verdicts(ws)
    assert latest[["run", "query_id", "reason"]].values.tolist() == [
        ["new", "q1", "other"],
        ["old", "q1", "chunk boundary"],
    ]
    old = latest[latest.run == "old"].iloc[0]
    assert (old.note, old.owner, old.recorded_by) == ("cut", "", "dora")
    history = v.verdict_history(ws, "old", "q1")
    assert history["reason"].tolist() == ["chunk boundary", "paraphrase"]  # newest first
    assert list(history.columns) == v.COLUMNS


def test_a_verdict_survives_reopening_the_workspace(ws):
    v.record_verdict(ws, "old", "q1", "paraphrase")
    folder = ws.folder
    ws.con.close()
    again = Workspace.open(folder)
    assert v.latest_verdicts(again)["reason"].tolist() == ["paraphrase"]
    again.con.close()


def test_an_empty_reason_withdraws_and_the_history_keeps_both(ws):
    v.record_verdict(ws, "old", "q1", "paraphrase")
    v.record_verdict(ws, "old", "q1", "")
    assert v.latest_verdicts(ws).empty
    assert v.verdict_history(ws, "old", "q1")["reason"].tolist() == ["", "paraphrase"]


def test_the_version_changes_on_every_verdict_but_the_scoring_key_does_not(ws):
    v.record_verdict(ws, "old", "q1", "paraphrase")
    scoring, first = js.store_version(ws), v.verdicts_version(ws)
    v.record_verdict(ws, "old", "q1", "other")
    assert v.verdicts_version(ws) != first
    assert js.store_version(ws) == scoring


def test_every_bad_value_is_named_at_once(ws):
    with pytest.raises(InputError) as caught:
        v.record_verdict(ws, "nope", "q9", "bad luck", note="x" * 2001, owner="y" * 2001)
    values = [p.value for p in caught.value.problems]
    expected = [p.expected for p in caught.value.problems]
    assert values[:3] == ["nope", "q9", "bad luck"]
    assert "a run of the workspace (new, old)" in expected[0] or "old" in expected[0]
    assert expected[1] == "a query id of the gold set"
    assert expected[2].startswith("one of: vocabulary mismatch, paraphrase")
    assert [e for e in expected[3:]] == [
        "note of at most 2000 characters",
        "owner of at most 2000 characters",
    ]
    assert not store_path(ws).exists()  # nothing written, not even an empty store


def test_a_non_text_value_is_refused_not_coerced(ws):
    with pytest.raises(InputError, match="note as text"):
        v.record_verdict(ws, "old", "q1", "other", note=5)


def test_a_read_only_store_refuses_with_a_message(ws, monkeypatch):
    monkeypatch.setattr("ragrecall_core.inputs.store.is_writable", lambda path: False)
    with pytest.raises(InputError, match="read-only"):
        v.record_verdict(ws, "old", "q1", "other")


def test_attach_verdicts_adds_three_columns_and_keeps_rows(ws):
    v.record_verdict(ws, "old", "q1", "paraphrase", note="n", owner="o")
    rows = pd.DataFrame(
        {"run": ["old", "new"], "query_id": ["q1", "q1"], "x": [1, 2]}, index=[10, 20]
    )
    out = v.attach_verdicts(rows, v.latest_verdicts(ws))
    assert list(out.index) == [10, 20]
    assert out["verdict"].tolist() == ["paraphrase", ""]
    assert out["verdict_note"].tolist() == ["n", ""]
    assert out["verdict_owner"].tolist() == ["o", ""]
    empty = v.attach_verdicts(rows, v.latest_verdicts(ws).iloc[0:0])
    assert empty["verdict"].tolist() == ["", ""]


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_export_import_round_trip_is_idempotent(ws, tmp_path, suffix):
    v.record_verdict(ws, "old", "q1", "paraphrase", note="=SUM(A1)", owner="ml")
    v.record_verdict(ws, "new", "q1", "other", note='a "quoted", note')
    v.record_verdict(ws, "new", "q1", "")
    path = tmp_path / f"verdicts{suffix}"
    assert v.export_verdicts(ws, path) == 3
    other = Workspace.open(seed002(tmp_path / "elsewhere"))
    assert v.import_verdicts(other, path) == 3
    assert v.import_verdicts(other, path) == 0  # the same file again adds nothing
    assert v.import_verdicts(ws, path) == 0  # nor into the store it came from
    mine = v.latest_verdicts(ws)
    theirs = v.latest_verdicts(other)
    assert theirs.drop(columns="recorded_at").equals(mine.drop(columns="recorded_at"))
    assert theirs["note"].tolist() == ["=SUM(A1)"]
    other.con.close()


def test_an_older_imported_verdict_does_not_hide_a_newer_one(ws, tmp_path):
    v.record_verdict(ws, "old", "q1", "paraphrase")
    path = write_text(
        tmp_path / "old.jsonl",
        json.dumps(
            {"run": "old", "query_id": "q1", "reason": "other", "recorded_at": "2020-01-01 10:00"}
        )
        + "\n",
    )
    assert v.import_verdicts(ws, path) == 1
    assert v.latest_verdicts(ws)["reason"].tolist() == ["paraphrase"]
    assert v.verdict_history(ws, "old", "q1")["reason"].tolist() == ["paraphrase", "other"]


def test_a_bad_import_file_lists_every_problem_and_writes_nothing(ws, tmp_path):
    lines = [
        {"run": "old", "query_id": "q1", "reason": "paraphrase"},
        {"run": "ghost", "query_id": "q1", "reason": "paraphrase"},
        {"run": "old", "query_id": "zz", "reason": "bad luck"},
        {"run": "old", "query_id": "q1", "reason": "other", "note": 7},
        {"run": "old", "reason": "other"},
        {"run": "old", "query_id": "q1", "reason": "other", "recorded_at": "yesterday"},
        {"run": "old", "query_id": "q1", "reason": "", "owner": "z" * 2500},
    ]
    path = write_text(
        tmp_path / "bad.jsonl", "".join(json.dumps(r) + "\n" for r in lines) + "not json\n"
    )
    with pytest.raises(InputError) as caught:
        v.import_verdicts(ws, path)
    # an unreadable line hides no other line's problems (issue 29)
    assert [p.line for p in caught.value.problems] == [2, 3, 3, 4, 5, 6, 7, 8]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    with pytest.raises(InputError) as caught:
        v.import_verdicts(ws, path)
    found = [(p.line, p.value) for p in caught.value.problems]
    assert found == [
        (2, "ghost"),
        (3, "zz"),
        (3, "bad luck"),
        (4, "7"),
        (5, "missing"),
        (6, "yesterday"),
        (7, "z" * 50 + "… (2,500 characters)"),
    ]
    assert all(p.file == str(path) for p in caught.value.problems)
    assert v.latest_verdicts(ws).empty


def test_unknown_fields_and_a_wrong_extension_are_refused(ws, tmp_path):
    path = write_text(
        tmp_path / "v.jsonl", json.dumps({"run": "old", "query_id": "q1", "reason": "", "x": 1})
    )
    with pytest.raises(InputError, match="only the fields run, query_id"):
        v.import_verdicts(ws, path)
    with pytest.raises(InputError, match=r"\.jsonl or \.csv"):
        v.import_verdicts(ws, write_text(tmp_path / "v.txt", "{}"))


def test_a_crash_inside_the_write_loses_nothing_recorded_before(ws, monkeypatch):
    v.record_verdict(ws, "old", "q1", "paraphrase")

    def boom(*args, **kwargs):
        raise duckdb.IOException("disk full")

    real = ws.cursor

    class Failing:
        def __init__(self, con):
            self.con = con

        def execute(self, sql, *args):
            if sql.startswith("INSERT INTO judgment_store.verdicts"):
                boom()
            return self.con.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.con, name)

    monkeypatch.setattr(ws, "cursor", lambda: Failing(real()))
    with pytest.raises(InputError, match="disk full"):  # named, shown by the pages
        v.record_verdict(ws, "old", "q1", "other")
    monkeypatch.undo()
    assert v.latest_verdicts(ws)["reason"].tolist() == ["paraphrase"]


def test_an_old_store_without_verdicts_is_upgraded(tmp_path):
    folder = seed002(tmp_path / "ws")
    con = duckdb.connect(str(folder / "judgments.duckdb"))
    con.execute(
        "CREATE TABLE judgments (id BIGINT, query_id VARCHAR NOT NULL, chunk_id VARCHAR NOT NULL,"
        " grade INTEGER NOT NULL, harmful BOOLEAN NOT NULL, reason VARCHAR,"
        " annotator VARCHAR NOT NULL, created_at TIMESTAMP DEFAULT current_timestamp);"
        "CREATE TABLE resolutions (id BIGINT, query_id VARCHAR NOT NULL,"
        " chunk_id VARCHAR NOT NULL, grade INTEGER NOT NULL, harmful BOOLEAN NOT NULL,"
        " reason VARCHAR, resolver VARCHAR NOT NULL, created_at TIMESTAMP);"
        "INSERT INTO judgments VALUES (1, 'q1', 'D', 2, false, '', 'anna', current_timestamp)"
    )
    con.close()
    ws = Workspace.open(folder)
    assert js.open_store(ws) is True
    assert len(js.annotator_judgments(ws, "anna")) == 1  # the old grade still counts
    v.record_verdict(ws, "old", "q1", "other")
    assert v.latest_verdicts(ws)["reason"].tolist() == ["other"]
    ws.con.close()


def test_failure_groups_by_meeting_reason_count_failing_queries_only():
    from ragrecall_core.views.failure_groups import NO_VERDICT, failure_groups

    rows = pd.DataFrame(
        {
            "run": ["r"] * 4,
            "query_id": ["a", "b", "c", "d"],
            "failure_class": ["never retrieved", "ranked too low", "passed", "passed"],
            "failing": [True, True, False, False],
            "verdict": ["paraphrase", "", "other", ""],  # a passing query's verdict: no group
        }
    )
    groups = failure_groups(rows, "verdict")
    assert groups[["group", "failing", "queries"]].values.tolist() == [
        ["paraphrase", 1, 4],
        [NO_VERDICT, 1, 4],  # what still waits comes last
    ]
    without = failure_groups(rows.drop(columns="verdict"), "verdict")
    assert without[["group", "failing"]].values.tolist() == [[NO_VERDICT, 2]]


def test_a_read_only_old_store_counts_its_grades_and_has_no_verdicts(tmp_path, monkeypatch):
    folder = seed002(tmp_path / "ws")
    con = duckdb.connect(str(folder / "judgments.duckdb"))
    con.execute(
        "CREATE TABLE judgments (id BIGINT, query_id VARCHAR NOT NULL, chunk_id VARCHAR NOT NULL,"
        " grade INTEGER NOT NULL, harmful BOOLEAN NOT NULL, reason VARCHAR,"
        " annotator VARCHAR NOT NULL, created_at TIMESTAMP);"
        "CREATE TABLE resolutions (id BIGINT, query_id VARCHAR NOT NULL,"
        " chunk_id VARCHAR NOT NULL, grade INTEGER NOT NULL, harmful BOOLEAN NOT NULL,"
        " reason VARCHAR, resolver VARCHAR NOT NULL, created_at TIMESTAMP);"
        "INSERT INTO judgments VALUES (1, 'q1', 'D', 2, false, '', 'anna', NULL)"
    )
    con.close()
    monkeypatch.setattr("ragrecall_core.inputs.store.is_writable", lambda path: False)
    ws = Workspace.open(folder)
    status = js.connect_store(ws)
    assert status.attached and not status.writable
    assert js.annotator_judgments(ws, "anna")["grade"].tolist() == [2]
    assert v.latest_verdicts(ws).empty and v.verdicts_version(ws) == "no-verdicts"
    with pytest.raises(InputError, match="read-only"):
        v.record_verdict(ws, "old", "q1", "other")
    ws.con.close()
