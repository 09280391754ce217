"""Whitespace around and between JSON lines, built to slip past the typed (fast) read of a
run (issue 30, stop 44).

DuckDB's JSON reader skips C's whitespace (space, tab, vertical tab, form feed, carriage
return) at a line's ends and takes a line of it alone as blank; JSON's whitespace is only the
space, the tab, the carriage return and the line feed. Before, the typed read loaded a file
with a vertical tab or a form feed at a line's end or on a line of its own, which the
validating read refuses (no JSON), and the validating read refused a line holding only tabs,
which it skips when it holds only spaces. Now a line of JSON whitespace alone is blank to
every read, and a vertical tab or a form feed sends the file to the validating read, which
names its line: each file is read with the bytes' count deciding (its size threshold set to
0) and with the strict pass's, and by the validating read: the same table, or the same
problems.
"""

from __future__ import annotations

import pytest

from ragrecall_core.inputs import runs
from tests.helpers import (
    assert_read_as_validating,
    gold_row,
    load_problems,
    run_table,
    write_jsonl,
    write_text,
)

LINES = [
    '{"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 1, "score": 0.5}]}',
    '{"id": "q2", "retrieved": [{"chunk_id": "b", "rank": 1, "score": 0.7}]}',
]
PLAIN = "".join(line + "\n" for line in LINES)
JSON_SPACES = {"spaces": "   ", "a tab": "\t", "a space and a tab": " \t ", "tabs": "\t\t"}
NOT_JSON_SPACES = {"a vertical tab": "\v", "a form feed": "\f"}
# each read that may decide: the bytes' count (size threshold 0), the strict pass
COUNTS = {"counted": {"COMMAS_COUNTED_FROM": 0}, "strict pass": {}}


def placed(where: str, space: str) -> str:
    if where == "alone":
        return LINES[0] + "\n" + space + "\n" + LINES[1] + "\n"
    if where == "first":
        return space + LINES[0] + "\n" + LINES[1] + "\n"
    return LINES[0] + space + "\n" + LINES[1] + "\n"


@pytest.mark.parametrize("counts", list(COUNTS))
@pytest.mark.parametrize("where", ["alone", "first", "last"])
@pytest.mark.parametrize("space", list(JSON_SPACES | NOT_JSON_SPACES))
def test_whitespace_at_a_line_s_ends_loads_as_the_validating_read(tmp_path, space, where, counts):
    path = write_text(tmp_path / "run.jsonl", placed(where, (JSON_SPACES | NOT_JSON_SPACES)[space]))
    assert_read_as_validating(path, **COUNTS[counts])


@pytest.mark.parametrize("space", list(JSON_SPACES))
def test_a_line_of_json_whitespace_is_blank(tmp_path, space):
    """Tabs alone are as blank as spaces alone (before: "one JSON object per line")."""
    plain = run_table(write_text(tmp_path / "plain.jsonl", PLAIN), validating=True)
    path = write_text(tmp_path / "run.jsonl", placed("alone", JSON_SPACES[space]))
    assert run_table(path, validating=True) == plain
    assert (
        run_table(path, validating=False, COMMAS_COUNTED_FROM=0, bare_lines=lambda path: True)
        == plain
    )


@pytest.mark.parametrize("where", ["alone", "first", "last"])
@pytest.mark.parametrize("space", list(NOT_JSON_SPACES))
def test_a_vertical_tab_or_a_form_feed_is_named_by_line(tmp_path, space, where):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"]), gold_row("q2", ["b"])])
    run = write_text(tmp_path / "run.jsonl", placed(where, NOT_JSON_SPACES[space]))
    problems = load_problems(gold, [run])
    line = 2 if where == "alone" else 1
    assert [(p.file, p.line, p.expected) for p in problems] == [
        (str(run), line, "one JSON object per line")
    ]
    assert NOT_JSON_SPACES[space] in problems[0].value


def test_a_gold_line_of_tabs_is_blank(tmp_path):
    """The gold, grades and corpus share the validating read of JSON lines."""
    text = "".join(f'{{"id": "{q}", "query": "x", "relevant_ids": ["a"]}}\n\t\n' for q in "ab")
    gold = write_text(tmp_path / "gold.jsonl", text)
    run = write_text(tmp_path / "run.jsonl", PLAIN.replace("q1", "a").replace("q2", "b"))
    from ragrecall_core import Workspace

    workspace = Workspace.from_files(gold, [run])
    assert workspace.con.execute("SELECT count(*) FROM queries").fetchone()[0] == 2


def test_the_line_reader_bytes_name_the_vertical_tab_and_the_form_feed():
    """A file holding either is not plain: the strict pass, which refuses them, runs."""
    assert {b"\v", b"\f"} <= set(runs.LINE_READER_BYTES)
