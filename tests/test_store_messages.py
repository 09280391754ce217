"""What the judgment store and the verdicts say when they refuse (stop 45): one rule
shortens a value shown in a problem (:func:`ragrecall_core.errors.shortened`, a cut in
its middle), so a long DuckDB message, path or id keeps its informative end: why a write
failed, which file, which query. A head-cut before it lost exactly that."""

from __future__ import annotations

import json

import duckdb
import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.analysis import verdicts as v
from ragrecall_core.inputs.store import attach_store, store_path, store_transaction, submit
from tests.helpers import write_text
from tests.test_app_judge import seed002

LONG = "d" * 100


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace.open(seed002(tmp_path / "ws"))
    yield workspace
    workspace.con.close()


def test_a_failed_write_keeps_why_it_failed(ws):
    said = f'IO Error: Could not write file "/mnt/{LONG}/judgments.duckdb.wal": No space left'
    with pytest.raises(InputError) as refused, store_transaction(ws):
        raise duckdb.IOException(said)
    message = str(refused.value)
    assert "No space left" in message and "not saved" in message, message
    assert len(refused.value.problems) == 1 and "\n" not in message


def test_a_refused_undo_keeps_the_query_of_a_long_chunk_id(ws):
    chunk = "chunk-" + LONG
    submit(ws, "q1", "D", 2, "anna")
    submit(ws, "q1", chunk, 0, "anna")
    with pytest.raises(InputError) as refused:
        js.undo_last(ws, "anna", item=("q1", "D"))
    assert "of query q1'" in str(refused.value), str(refused.value)
    assert len(js.annotator_judgments(ws, "anna")) == 2


def test_a_store_that_is_no_duckdb_file_keeps_what_duckdb_said_of_it(tmp_path):
    """A loose gold file's store is named after it: a long name made DuckDB's message
    lose what is wrong with the file."""
    folder = seed002(tmp_path / "files")
    gold = (folder / "gold.jsonl").rename(folder / f"{LONG}.jsonl")
    loose = Workspace.from_files(gold, [folder / "runs" / "old.jsonl"])
    write_text(store_path(loose), "not a database\n" * 50)
    with pytest.raises(InputError) as refused:
        attach_store(loose, store_path(loose))
    loose.con.close()
    assert "not a valid DuckDB database file" in str(refused.value), str(refused.value)


def test_a_duckdb_file_that_is_no_store_keeps_its_last_table(ws):
    with duckdb.connect(str(store_path(ws))) as con:
        for name in ("alpha_" + LONG, "omega_last"):
            con.execute(f"CREATE TABLE {name} (x INTEGER)")
    with pytest.raises(InputError) as refused:
        attach_store(ws)
    assert "omega_last" in str(refused.value) and "move the file aside" in str(refused.value)


def test_a_name_kept_for_judges_is_refused_showing_its_end(ws):
    with pytest.raises(InputError) as refused:
        submit(ws, "q1", "D", 2, f"judge:{LONG}-anna")
    assert "-anna'" in str(refused.value), str(refused.value)


def test_an_export_to_a_folder_that_is_not_there_names_the_file(ws, tmp_path):
    v.record_verdict(ws, "old", "q1", "other")
    with pytest.raises(InputError) as refused:
        v.export_verdicts(ws, tmp_path / LONG / "verdicts.csv")
    assert "verdicts.csv'" in str(refused.value), str(refused.value)


def test_a_too_long_note_is_shown_alike_saved_or_imported(ws, tmp_path):
    """One rule, two paths (a save checks in Python, an import in SQL): the note's start
    and its length, counted the same even with combining marks and emoji."""
    note = "e\u0301" * 1001 + "\U0001f44d\U0001f3fd"
    with pytest.raises(InputError) as saved:
        v.record_verdict(ws, "old", "q1", "other", note=note)
    row = {"run": "old", "query_id": "q1", "reason": "other", "note": note}
    path = write_text(tmp_path / "v.jsonl", json.dumps(row) + "\n")
    with pytest.raises(InputError) as imported:
        v.import_verdicts(ws, path)
    [by_save], [by_import] = saved.value.problems, imported.value.problems
    assert by_save.value == by_import.value == note[: v.SHOWN_START] + "… (2,004 characters)"
    assert by_save.expected == by_import.expected
