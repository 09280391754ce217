"""A verdicts import stores a row as saving it would, and one row once (stop 48).

Saving a verdict trims ``note``, ``owner`` and ``recorded_by``; an import kept them as
written, so a whitespace-only ``recorded_by`` ("  ") was stored as a name no one typed
(shown as a blank author, and never "held already" against the same verdict saved). And
two identical rows in one file were both added: one verdict logged twice. Identical rows
are one statement now, kept at the file's last copy (it is the one that orders the verdict
among the file's others of its (run, query) and time, so the latest stays the file's).
"""

from __future__ import annotations

import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis import verdicts as v
from ragrecall_core.inputs.store import STORE, store_transaction
from tests.adversarial.test_verdict_import import line
from tests.helpers import write_text
from tests.test_app_judge import seed002

T = "2026-01-01 10:00:00"


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace.open(seed002(tmp_path / "ws"))
    yield workspace
    workspace.con.close()


def history(ws) -> list[tuple]:
    frame = v._history(ws)
    return list(frame[["reason", "note", "owner", "recorded_by"]].itertuples(index=False))


SPACED = {"note": "\u3000 a note\t", "owner": " ann\u00a0", "recorded_by": "  "}


def test_an_imported_row_is_trimmed_as_a_saved_one_is(ws, tmp_path):
    path = write_text(tmp_path / "v.jsonl", line(**SPACED, recorded_at=T))
    assert v.import_verdicts(ws, path) == 1
    v.record_verdict(ws, "new", "q1", "other", **SPACED)
    assert history(ws) == [("other", "a note", "ann", "")] * 2


def test_a_spaced_row_is_held_already_against_the_trimmed_one(ws, tmp_path):
    """Importing again the same verdict written with spaces adds nothing."""
    trimmed = write_text(tmp_path / "a.jsonl", line(note="n", recorded_by="kim", recorded_at=T))
    spaced = write_text(tmp_path / "b.jsonl", line(note=" n", recorded_by="kim ", recorded_at=T))
    assert v.import_verdicts(ws, trimmed) == 1
    assert v.import_verdicts(ws, spaced) == 0
    assert len(history(ws)) == 1


def test_a_store_row_imported_untrimmed_before_is_held_already(ws, tmp_path):
    """A store that an earlier import left a spaced name in: its export, imported back,
    adds nothing."""
    v.record_verdict(ws, "old", "q1", "other")
    with store_transaction(ws) as con:
        con.execute(f"UPDATE {STORE}.verdicts SET recorded_by = '  '")  # noqa: S608
    path = tmp_path / "export.jsonl"
    v.export_verdicts(ws, path)
    assert v.import_verdicts(ws, path) == 0


@pytest.mark.parametrize("when", [{"recorded_at": T}, {}])
def test_two_identical_rows_in_one_file_are_stored_once(ws, tmp_path, when):
    path = write_text(tmp_path / "v.jsonl", line(**when) * 2)
    assert v.import_verdicts(ws, path) == 1
    assert len(history(ws)) == 1


def test_identical_rows_keep_the_latest_the_file_gives(ws, tmp_path):
    """V, X, V recorded in one second (a time ahead of the clock ties saves): V is the
    latest in the file, and after the import."""
    rows = line(reason="paraphrase", recorded_at=T) + line(recorded_at=T)
    path = write_text(tmp_path / "v.jsonl", rows + line(reason="paraphrase", recorded_at=T))
    assert v.import_verdicts(ws, path) == 2
    assert v.latest_verdicts(ws)["reason"].tolist() == ["paraphrase"]
