"""Hostile verdicts: a note or owner carrying markup, spreadsheet formulas, SQL, terminal
escapes or 2 MB of text, and import files that are not UTF-8. Stored and shown as text,
escaped in the report, no formula cell in any CSV, refused with one line per problem."""

from __future__ import annotations

import csv
import io
import json

import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis import verdicts as v
from ragrecall_core.errors import MAX_VALUE_CHARS
from ragrecall_core.output.text import FORMULA_START
from tests.adversarial.test_markup import markdown_hazards, rendered_markdown
from tests.dashboard_support import app, no_exception
from tests.helpers import build_report, run_cli, write_text
from tests.test_app_judge import seed002

HOSTILE = {
    "markup": "<script>alert(1)</script> **bold** [link](javascript:alert(1)) <img src=x>",
    "formula": "=cmd|' /C calc'!A0",
    "sql": "'); DROP TABLE judgment_store.verdicts; --",
    "plus": "+1+1",
    "at": "@SUM(A1)",
}


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace.open(seed002(tmp_path / "ws"))
    yield workspace
    workspace.con.close()


def record_hostile(ws) -> None:
    v.record_verdict(ws, "old", "q1", "other", note=HOSTILE["markup"], owner=HOSTILE["formula"])
    v.record_verdict(ws, "new", "q1", "paraphrase", note=HOSTILE["sql"], owner=HOSTILE["at"])


def test_hostile_text_is_stored_verbatim_and_the_store_survives(ws):
    record_hostile(ws)
    latest = v.latest_verdicts(ws).set_index("run")
    assert latest.loc["old", "note"] == HOSTILE["markup"]
    assert latest.loc["old", "owner"] == HOSTILE["formula"]
    assert latest.loc["new", "note"] == HOSTILE["sql"]
    assert len(v.verdict_history(ws, "new", "q1")) == 1  # the table is still there


def test_sql_in_run_or_query_id_is_refused_as_a_value(ws):
    with pytest.raises(InputError) as caught:
        v.record_verdict(ws, "old' OR '1'='1", "q1' --", "other")
    assert [p.value for p in caught.value.problems] == ["old' OR '1'='1", "q1' --"]


def test_a_2_mb_note_is_refused_in_one_short_line(ws):
    note = "x" * (2 * 1024 * 1024)
    with pytest.raises(InputError) as caught:
        v.record_verdict(ws, "old", "q1", "other", note=note)
    (line,) = str(caught.value).splitlines()
    assert "note of at most 2000 characters" in line and len(line) < 200
    assert len(caught.value.problems[0].value) <= MAX_VALUE_CHARS
    assert v.latest_verdicts(ws).empty


def test_a_2_mb_note_in_an_import_file_is_a_line_problem_not_a_traceback(ws, tmp_path, capsys):
    row = {"run": "old", "query_id": "q1", "reason": "other", "note": "y" * (2 * 1024 * 1024)}
    path = write_text(tmp_path / "big.jsonl", json.dumps(row) + "\n")
    code, _, err = run_cli(capsys, ["verdicts", ws.folder, "--import", path])
    assert code == 2 and f"{path}:1:" in err and "Traceback" not in err
    assert max(len(line) for line in err.splitlines()) < 300


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_non_utf8_import_file_names_its_line(ws, tmp_path, suffix):
    path = tmp_path / f"v{suffix}"
    if suffix == ".csv":
        path.write_bytes(b"run,query_id,reason,note\nold,q1,other,ok\nold,q1,other,caf\xe9\n")
        bad = 3
    else:
        path.write_bytes(b'{"run": "old", "query_id": "q1", "reason": "other", "note": "\xff"}\n')
        bad = 1
    with pytest.raises(InputError) as caught:
        v.import_verdicts(ws, path)
    assert [(p.line, p.expected) for p in caught.value.problems] == [(bad, "UTF-8 text")]
    assert v.latest_verdicts(ws).empty


def test_the_report_escapes_hostile_verdicts_in_every_format(ws):
    record_hostile(ws)
    report = build_report(ws, k=3)
    html = report.to_html()
    assert "<script>alert(1)</script>" not in html and "<img src=x>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    section = report.to_markdown().split("## Meeting verdicts")[1].split("## Measure")[0]
    assert markdown_hazards(section) == []
    cells = [c for row in csv.reader(io.StringIO(report.to_csv())) for c in row]
    assert not [c for c in cells if c.startswith(FORMULA_START)]
    assert any(HOSTILE["markup"] in c for c in cells)  # shown, as text in a comment cell


def test_an_exported_csv_has_no_formula_cell_and_imports_back_verbatim(ws, tmp_path):
    record_hostile(ws)
    v.record_verdict(ws, "old", "q1", "other", note="'quoted on purpose", owner=HOSTILE["plus"])
    path = tmp_path / "out.csv"
    v.export_verdicts(ws, path)
    cells = [c for row in csv.reader(io.StringIO(path.read_text("utf-8"))) for c in row]
    assert not [c for c in cells if c.startswith(FORMULA_START)]
    other = Workspace.open(seed002(tmp_path / "other"))
    assert v.import_verdicts(other, path) == 3
    latest = v.latest_verdicts(other).set_index("run")
    assert latest.loc["old", "note"] == "'quoted on purpose"  # not a neutralised cell
    assert latest.loc["old", "owner"] == HOSTILE["plus"]
    assert latest.loc["new", "note"] == HOSTILE["sql"]
    other.con.close()


def test_hostile_keys_in_an_import_file_are_refused_as_values(ws, tmp_path):
    row = {"run": "old", "query_id": "q1", "reason": "other", "x'); DROP TABLE x; --": 1}
    path = write_text(tmp_path / "k.jsonl", json.dumps(row) + "\n")
    with pytest.raises(InputError) as caught:
        v.import_verdicts(ws, path)
    assert [p.value for p in caught.value.problems] == ["x'); DROP TABLE x; --"]


def test_the_failures_page_shows_hostile_verdict_groups_as_text(tmp_path, monkeypatch):
    folder = seed002(tmp_path / "ws")
    ws = Workspace.open(folder)
    record_hostile(ws)
    ws.con.close()
    at = app(folder, monkeypatch).switch_page("pages/failures.py").run()
    at.session_state["failures_by"] = "verdict"
    at.run()
    no_exception(at)
    assert [t for t in rendered_markdown(at) if markdown_hazards(t)] == []
