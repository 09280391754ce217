"""Verdict import trusts nothing in the file (issue 29).

A ``recorded_at`` far in the future (``9999-12-31``, ``infinity``) would make that verdict
the latest forever, so a verdict recorded later never shows; one before the tool existed
(``epoch``, ``-infinity``) or with a time zone DuckDB would silently drop is as wrong.
A JSON line with a repeated key would be read by its first value, a guess. One line with a
trailing comma must not hide every other line's problems. And export then import is a
fixed point whatever the notes hold: importing an export adds nothing and changes nothing,
and an export of the imported store is the same file, byte for byte.
"""

from __future__ import annotations

import datetime as dt
import json

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis import verdicts as v
from ragrecall_core.output.text import FORMULA_START, neutralise
from tests.helpers import run_cli, write_text
from tests.test_app_judge import seed002

SETTINGS = settings(max_examples=200)
HOSTILE_NOTES = (
    "'=1+1",
    "''=x",
    "'",
    "''",
    "'plain",
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-1",
    "@SUM(A1)",
    "\tTAB start",
    "tab\tinside",
    "line\nbreak and\r\nwindows and\rbare CR",
    "say \"hi\", then 'bye'",
    "ünïcödé 日本語 🙂",
    "\u202eevil\u202c bidi \u2066isolate\u2069",
    "null",
    "NA",
    "a,b;c|d",
)


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace.open(seed002(tmp_path / "ws"))
    yield workspace
    workspace.con.close()


def line(**fields) -> str:
    return json.dumps({"run": "old", "query_id": "q1", "reason": "other", **fields}) + "\n"


# ---------------------------------------------------------------- times
@pytest.mark.parametrize(
    "when",
    [
        "9999-12-31",
        "infinity",
        "-infinity",
        "epoch",
        "1999-12-31 23:59:59",
        "2026-01-01T10:00:00+05:00",  # DuckDB would drop the offset without a word
        "294247-01-10",
        "today",
    ],
)
def test_a_time_outside_2000_to_tomorrow_or_special_is_refused(ws, tmp_path, when):
    path = write_text(tmp_path / "t.jsonl", line(note="ok") + line(recorded_at=when))
    with pytest.raises(InputError) as caught:
        v.import_verdicts(ws, path)
    assert [(p.file, p.line, p.value) for p in caught.value.problems] == [(str(path), 2, when)]
    assert "2000-01-01" in caught.value.problems[0].expected
    assert v.verdict_history(ws, "old", "q1").empty  # nothing written


def test_the_day_after_tomorrow_is_refused_and_the_bounds_are_accepted(ws, tmp_path):
    now = dt.datetime.now()  # the store stamps local time (current_timestamp::TIMESTAMP)
    late = (now + dt.timedelta(days=2)).strftime("%Y-%m-%d %H:%M:%S")
    path = write_text(tmp_path / "late.jsonl", line(recorded_at=late))
    with pytest.raises(InputError) as caught:
        v.import_verdicts(ws, path)
    assert [p.value for p in caught.value.problems] == [late]
    soon = (now + dt.timedelta(hours=12)).strftime("%Y-%m-%d %H:%M:%S")
    ok = write_text(
        tmp_path / "ok.jsonl",
        line(recorded_at="2000-01-01 00:00:00") + line(reason="paraphrase", recorded_at=soon),
    )
    assert v.import_verdicts(ws, ok) == 2


def test_a_later_verdict_is_the_latest_after_an_import(ws, tmp_path):
    """The harm of a far-future time: the acknowledged verdict disappears."""
    path = write_text(tmp_path / "f.jsonl", line(reason="paraphrase", recorded_at="9999-12-31"))
    with pytest.raises(InputError):
        v.import_verdicts(ws, path)
    v.record_verdict(ws, "old", "q1", "chunk boundary")
    assert v.latest_verdicts(ws)["reason"].tolist() == ["chunk boundary"]


# ---------------------------------------------------------------- keys and lines
def test_a_repeated_key_is_refused_not_read_as_its_first_value(ws, tmp_path):
    text = (
        '{"run": "old", "query_id": "q1", "reason": "other", "reason": "paraphrase"}\n'
        '{"run": "old", "query_id": "q1", "reason": "other", "note": "a", "note": "b"}\n'
    )
    path = write_text(tmp_path / "dup.jsonl", text)
    with pytest.raises(InputError) as caught:
        v.import_verdicts(ws, path)
    found = [(p.line, p.value) for p in caught.value.problems]
    assert found == [(1, "reason"), (2, "note")]
    assert all("once" in p.expected for p in caught.value.problems)
    assert v.verdict_history(ws, "old", "q1").empty


def test_a_trailing_comma_does_not_hide_the_other_lines_problems(ws, tmp_path):
    text = (
        '{"run": "old", "query_id": "q1", "reason": "other",}\n'
        + line(run="ghost")
        + "not json\n"
        + line(recorded_at="infinity")
        + '{"run": "old", "query_id": "q1", "reason": "other", "x": 1}\n'
    )
    path = write_text(tmp_path / "many.jsonl", text)
    with pytest.raises(InputError) as caught:
        v.import_verdicts(ws, path)
    lines = [p.line for p in caught.value.problems]
    assert lines == [1, 2, 3, 4, 5], caught.value.problems
    assert all(p.file == str(path) for p in caught.value.problems)


def test_the_command_names_every_bad_line_and_exits_2(ws, tmp_path, capsys):
    path = write_text(
        tmp_path / "bad.jsonl",
        '{"run": "old", "query_id": "q1", "reason": "other",}\n' + line(recorded_at="epoch"),
    )
    folder = ws.folder
    ws.con.close()
    code, out, err = run_cli(capsys, ["verdicts", folder, "--import", path])
    assert code == 2 and out == "" and "Traceback" not in err
    assert f"{path}:1:" in err and f"{path}:2: got 'epoch'" in err


# ---------------------------------------------------------------- export / import
def record_hostile(ws) -> None:
    for i, note in enumerate(HOSTILE_NOTES):
        v.record_verdict(
            ws,
            ("old", "new")[i % 2],
            "q1",
            v.REASONS[i % len(v.REASONS)],
            note=note,
            owner=HOSTILE_NOTES[-1 - i],
            recorded_by=HOSTILE_NOTES[(i + 3) % len(HOSTILE_NOTES)],
        )


def stored(ws):
    return v._history(ws)  # every row of the store, in order, times as text


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_export_import_is_a_fixed_point_with_hostile_notes(ws, tmp_path, suffix):
    record_hostile(ws)
    before = stored(ws)
    first = tmp_path / f"first{suffix}"
    assert v.export_verdicts(ws, first) == len(HOSTILE_NOTES)
    assert v.import_verdicts(ws, first) == 0  # adds nothing to the store it came from
    assert stored(ws).equals(before)  # and changes nothing
    other = Workspace.open(seed002(tmp_path / "other"))
    assert v.import_verdicts(other, first) == len(HOSTILE_NOTES)
    assert stored(other).equals(before)  # every field, every time, as recorded
    second = tmp_path / f"second{suffix}"
    v.export_verdicts(other, second)
    assert second.read_bytes() == first.read_bytes()
    assert v.import_verdicts(other, second) == 0
    other.con.close()


def test_an_exported_csv_still_has_no_formula_cell(ws, tmp_path):
    import csv
    import io

    record_hostile(ws)
    path = tmp_path / "out.csv"
    v.export_verdicts(ws, path)
    cells = [c for row in csv.reader(io.StringIO(path.read_text("utf-8"))) for c in row]
    assert not [c for c in cells if c.startswith(FORMULA_START)]


@given(st.text(alphabet=st.sampled_from("'=+-@\t\rab "), max_size=6) | st.text(max_size=8))
@settings(SETTINGS)
def test_the_csv_cell_escape_is_undone_exactly(text):
    """neutralise on export, the import's SQL on read: the identity, for any text."""
    cell = neutralise(text)
    assert not cell.startswith(FORMULA_START)
    sql = v.UNNEUTRALISED.format(cell="$c")
    with duckdb.connect() as con:  # not the module's connection: the whole worker's
        assert con.execute(f"SELECT {sql}", {"c": cell}).fetchone()[0] == text
