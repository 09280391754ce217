"""Data without text, sections or types (TREC qrels and a run, no corpus): one compact line
says what is missing, not a four-line notice on every page; query ids show whole (issue 29:
"2024-137…", and two rows read "2024-439").
"""

from __future__ import annotations

import json

from ragrecall_app.context import missing_notes
from ragrecall_core.inputs.workspace import WorkspaceFacts
from ragrecall_core.views.table_widths import CHARACTER_PX, PADDING_PX, text_width
from tests.dashboard_support import app, no_exception, trec_workspace, unescaped_text

NOTHING = WorkspaceFacts(
    splits=(),
    query_types=(),
    sections=(),
    depths={"r": 5},
    queries=3,
    has_query_text=False,
    corpus_chunks=0,
    grades=0,
)


def test_what_is_missing_is_one_line():
    (line,) = missing_notes(NOTHING)
    assert "\n" not in line
    assert line == (
        "No corpus: no chunk text or sections · no query text: ids only · "
        "no manual grades · no type, section or split filters."
    )
    assert len(line) <= 120  # one line at 1600 px


def test_nothing_missing_says_nothing_and_one_gap_is_a_sentence():
    full = WorkspaceFacts(
        splits=("test",),
        query_types=("t",),
        sections=("s",),
        depths={"r": 5},
        queries=3,
        has_query_text=True,
        corpus_chunks=9,
        grades=4,
    )
    assert missing_notes(full) == []
    no_grades = WorkspaceFacts(**{**full.__dict__, "grades": 0})
    assert missing_notes(no_grades) == ["No manual grades."]


def test_trec_pages_show_one_line_and_whole_query_ids(tmp_path, monkeypatch):
    at = app(trec_workspace(tmp_path), monkeypatch)
    no_exception(at)
    notes = [unescaped_text(i.value) for i in at.info if "No corpus" in i.value]
    assert len(notes) == 1 and "\n" not in notes[0] and "no query text" in notes[0]
    at.switch_page("pages/queries.py").run()
    no_exception(at)
    table = at.dataframe[0]
    ids = table.value["query_id"].astype(str)
    longest = ids.str.len().max()
    assert longest == 11  # "2024-137182": the ids the 60 px column cut
    width = json.loads(table.proto.columns)["query_id"]["width"]
    assert width >= CHARACTER_PX * longest + PADDING_PX


def test_an_id_column_fits_its_longest_id_within_bounds():
    assert text_width(["q001", "q002"]) == 60  # short ids keep the narrow column
    assert text_width(["2024-137182", "2024-12875"]) == 8 * 11 + 28
    assert text_width(["x" * 500]) == 320  # a runaway id is cut, not the whole table
    assert text_width([]) == 60
