"""A problem's every field is bounded, and its cut mark cannot be faked (stop 48, items 2, 3).

``Problem.value`` was cut to 80 characters (head and end, a mark between), but ``file`` and
``expected`` were printed whole: a 10,000-character path (an upload's name, a workspace
folder's) made a 10,000-character problem line. All three now go through the one function
that cuts (``errors.shortened``); a file and an expected keep more of their characters
(``MAX_FIELD_CHARS``: a path is routinely longer than 80, and an expected may list every
measure's name)

The mark said how much was cut of how much, but a value could hold text of the mark's shape
(``...⟦cut 5 of 9 chars⟧...`` in a file): a reader, or the next cut of a value said of its
query, believed a cut that never happened. A value's own copies of the mark's brackets are
now shown escaped (``\\u27e6``, as ``one_line`` escapes a control character), in the text
line and in JSON alike, so a mark is only ever one that a cut made.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, replace

from ragrecall_core.errors import (
    CUT_MARK,
    MAX_FIELD_CHARS,
    MAX_VALUE_CHARS,
    InputError,
    Problem,
    said_of,
    shortened,
)
from tests.helpers import run_cli, run_row, write_jsonl, write_text

CUT = re.compile(re.escape(CUT_MARK).replace(r"\{cut\}", r"(\d+)").replace(r"\{total\}", r"(\d+)"))
FAKE = CUT_MARK.format(cut=5, total=9000)
LIMIT = MAX_VALUE_CHARS + len(CUT_MARK) + 10  # a bounded value: 80 characters and a mark
FIELD = MAX_FIELD_CHARS + len(CUT_MARK) + 10  # a bounded file or expected
LINE = LIMIT + 2 * FIELD + 40  # a problem's text line


def marks(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in CUT.findall(text)]


# --- item 2: file and expected are bounded as the value is ---------------------------------


def test_a_long_file_name_and_expected_are_cut_as_the_value_is():
    path = "/" + "d" * 10_000 + "/gold.jsonl"
    expected = "one of: " + ", ".join(f"choice{i}" for i in range(2000)) + " (the end)"
    problem = Problem(path, 3, "v", expected)
    assert problem.file == shortened(path, MAX_FIELD_CHARS)
    assert problem.expected == shortened(expected, MAX_FIELD_CHARS)
    assert len(problem.file) <= FIELD and problem.file.endswith("/gold.jsonl")
    assert len(problem.expected) <= FIELD and problem.expected.endswith("(the end)")
    assert problem.expected.startswith("one of: choice0, choice1")
    assert marks(problem.file) == [(len(path) - MAX_FIELD_CHARS, len(path))]
    line = str(problem)
    assert len(line) <= LINE and "/gold.jsonl:3: got 'v'" in line
    dumped = json.dumps(asdict(problem))
    assert len(dumped) <= LINE + 40, dumped


def test_a_short_file_name_and_expected_are_kept_whole():
    problem = Problem("runs/dense.jsonl", 1, "x", "a string id")
    assert (problem.file, problem.expected) == ("runs/dense.jsonl", "a string id")


def test_a_problem_rebuilt_from_a_cut_file_keeps_it():
    problem = Problem("/" + "d" * 5000 + "/gold.jsonl", 3, "v", "e" * 500)
    again = replace(problem, line=None)
    assert (again.file, again.expected) == (problem.file, problem.expected)


def test_a_workspace_deep_in_long_folders_prints_bounded_problem_lines(tmp_path, capsys):
    folder = tmp_path
    for i in range(18):  # a path of some 3,600 characters (under PATH_MAX), each name < 255
        folder = folder / (f"{i:02d}" + "d" * 198)
    folder.mkdir(parents=True)
    gold = write_text(folder / "gold.jsonl", '{"id": "q1", "relevant_ids": 5}\n')
    run = write_jsonl(folder / "dense.jsonl", [run_row("q1", ["a"])])
    code, out, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and "Traceback" not in err
    lines = [line for line in err.splitlines() if "gold.jsonl:1" in line]
    assert lines, err
    assert all(len(line) <= LINE for line in lines), lines
    assert marks(lines[0]) and len(str(folder)) > 3000


# --- item 3: the mark cannot be faked -------------------------------------------------------


def test_a_short_value_holding_a_mark_shows_no_mark():
    value = f"q1{FAKE}end"
    problem = Problem("gold.jsonl", 2, value, "a string id")
    assert marks(problem.value) == [] and marks(str(problem)) == []
    assert marks(json.dumps(asdict(problem), ensure_ascii=False)) == []
    assert marks(json.loads(json.dumps(asdict(problem)))["value"]) == []
    assert "cut 5 of 9000 chars" in problem.value  # shown, escaped, not dropped
    assert "\\u27e6" in problem.value and "\\\\u27e6" in str(problem)


def test_a_long_value_holding_marks_has_exactly_the_cut_it_had():
    value = FAKE + "h" * 100 + FAKE + "t" * 100 + FAKE
    problem = Problem("gold.jsonl", 2, value, "e")
    (mark,) = marks(problem.value)
    (total,) = {mark[1]}
    assert total >= len(value) and mark[0] == total - MAX_VALUE_CHARS
    assert marks(str(problem)) == [mark]
    assert marks(json.loads(json.dumps(asdict(problem)))["value"]) == [mark]


def test_a_faked_mark_in_a_file_name_and_expected_is_escaped():
    problem = Problem(f"runs/{FAKE}.jsonl", None, "v", f"one of {FAKE}")
    assert marks(problem.file) == [] and marks(problem.expected) == []
    assert marks(str(problem)) == []


def test_escaping_a_mark_twice_changes_nothing():
    problem = Problem("f", 1, FAKE + "x" * 300 + FAKE, "e")
    assert shortened(problem.value) == problem.value
    assert replace(problem, line=None).value == problem.value


def test_a_value_said_of_its_query_still_counts_its_first_cut_only_once():
    inner = Problem("f", 1, FAKE + "v" * 5000 + "END", "e")
    outer = Problem("f", 1, said_of("query 'q1': ", inner.value), "e")
    (mark,) = marks(outer.value)
    assert mark[1] == len("query 'q1': ") + len(shortened(FAKE)) + 5000 + len("END")


def test_a_faked_mark_in_a_file_is_escaped_in_the_cli_text(tmp_path, capsys):
    gold = write_text(tmp_path / "gold.jsonl", f'{{"id": "q1{FAKE}", "relevant_ids": 7}}\n')
    run = write_jsonl(tmp_path / "runs" / "dense.jsonl", [run_row("q1", ["a"])])
    code, out, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and "gold.jsonl:1" in err, err
    assert marks(err) == [] and "cut 5 of 9000 chars" in err


def test_an_input_error_lists_bounded_fields():
    error = InputError([Problem("/" + "p" * 3000, 1, "v" * 3000, "x" * 3000)])
    assert len(str(error)) <= LINE
