"""A large file of JSON lines is read with its chunk ids typed as text and its scores as
DOUBLE, not as JSON, when its bytes prove each chunk id a string and each score a number
(issue 30): a typed read takes the number 5, true, null, an object or a list as a chunk id's
text ("5", "true", ...), and the string "0.5" or true as a score's number (0.5, 1.0), which
the contract refuses.

The proof (``runs.StringsTest``): no backslash in the file (so each string is two quotes
around its bytes), its commas those of its keys and items alone (``JSON_COMMAS_SQL``: no key
but "id", "retrieved", "chunk_id" and the ranks and scores given), exactly one brace per
line and per item and one bracket per line (so no value is an object or a list), and exactly
two quotes per key, per id and per chunk id, and as many "score" keys followed by a number
(at once or after one space) as scores read (so every chunk id is a string and every score a
number: a rank written as a string is refused by the row checks). Each file here is read
with that proof deciding (its size threshold set to 0) and by the validating read: the same
table, or the same problems.

Each shortcut of the proof was made by hand and failed here: no quote count (the number 5
loads as "5"); no brace count (5 beside {"a": "b"} leaves the quotes right); no bracket
count (5 beside ["a"]); no comma test (5 beside a null score: its key, and no quotes); no
count of the scores' keys followed by a number (a score true loads as 1.0; 5 beside the
score "0.5" leaves the quotes right).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragrecall_core.inputs import runs
from ragrecall_core.inputs.db import connect
from tests.helpers import assert_read_as_validating

SETTINGS = settings(max_examples=40)


def item(chunk: str, rank: str = "1", score: str | None = "0.5") -> str:
    """An item's JSON text from its values' JSON texts (a missing score: None)."""
    score_part = "" if score is None else f', "score": {score}'
    return f'{{"chunk_id": {chunk}, "rank": {rank}{score_part}}}'


def line(qid: str, *items: str, extra: str = "") -> str:
    return f'{{"id": "{qid}", "retrieved": [{", ".join(items)}]{extra}}}'


GOOD = line("q1", item('"a"'), item('"b"', "2"))
HOSTILE = {
    "plain": GOOD,
    "the number 5": line("q1", item("5"), item('"b"', "2")),
    "true": line("q1", item("true")),
    "false": line("q1", item("false")),
    "null": line("q1", item("null")),
    "an object with a string": line("q1", item('{"a": "b"}')),
    "an object with a number": line("q1", item('{"a": 1}')),
    "an empty object": line("q1", item("{}")),
    "a list": line("q1", item('["a"]')),
    "an empty list": line("q1", item("[]")),
    "5 beside an object of two strings": line("q1", item("5"), item('{"a": "b"}', "2")),
    "5 beside a list of a string": line("q1", item("5"), item('["a"]', "2")),
    "5 beside an extra key": line("q1", item("5")).replace("0.5}", '0.5, "x": "y"}'),
    "5 beside an extra key in place of a score": line("q1", item("5", score=None)).replace(
        "1}", '1, "x": "y"}'
    ),
    "5 beside a score written as a string": line("q1", item("5"), item('"b"', "2", '"0.5"')),
    "5 beside a rank written as a string": line("q1", item("5"), item('"b"', '"2"')),
    "5 beside an id holding a brace": line("q1", item("5"), item('"{"', "2")),
    "5 beside an id holding a quote": line("q1", item("5"), item('"a\\"b"', "2")),
    "5 beside an escaped id": line("q1", item("5"), item('"\\u0062"', "2")),
    "5 beside a null score": line("q1", item("5"), item('"b"', "2", "null")),
    "5 beside a query on two lines": line("q1", item("5")) + "\n" + line("q1", item('"b"', "2")),
    "5 beside an empty line's list": line("q1", item("5")) + "\n" + line("q2"),
    "a number id": GOOD.replace('"q1"', "7"),
    "a number id beside an extra string": GOOD.replace('"q1"', "7").replace(
        "0.5}]", '0.5, "x": "y"}]'
    ),
    "a brace, a bracket and a comma in ids": line("q1", item('"{["'), item('",]}"', "2")),
    "an escaped id": line("q1", item('"\\u0061"'), item('"b\\\\"', "2")),
    "an id outside ASCII": line("q1", item('"é"'), item('"ш"', "2")),
    "spaces and tabs": GOOD.replace(": ", " :\t"),
    "a score true": line("q1", item('"a"', score="true")),
    "a score false": line("q1", item('"a"', score="false")),
    "a score true beside a rank true": line("q1", item('"a"', "true", "true")),
    "a score NaN": line("q1", item('"a"', score="NaN")),
    "a score -Infinity": line("q1", item('"a"', score="-Infinity")),
    "a score 1e400": line("q1", item('"a"', score="1e400")),
    "a score -0.0 and -1e-400": line("q1", item('"a"', score="-0.0"), item('"b"', "2", "-1e-400")),
    "a score as a list": line("q1", item('"a"', score="[1]")),
    "a score as an object": line("q1", item('"a"', score='{"e": 1}')),
    "5 beside a score written as a string, compact": line(
        "q1", item("5"), item('"b"', "2", '"0.5"')
    ).replace(": ", ":"),
    "5 beside a score written as a number's text": line("q1", item("5"), item('"b"', "2", '"-1"')),
    "a score after a space before its colon": GOOD.replace('"score": ', '"score" : '),
    "a score after two spaces": GOOD.replace('"score": ', '"score":  '),
    "a score after a tab": GOOD.replace('"score": ', '"score":\t'),
    "a chunk id ending in e before a number": line("q1", item('"e"'), item('"be"', "2")),
    "a score true beside a chunk id with a digit three bytes after an e": line(
        "q1", item('"eab1"', score="true")
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_file_loads_as_the_validating_read(tmp_path, name):
    path = tmp_path / "run.jsonl"
    path.write_bytes((HOSTILE[name] + "\n").encode("utf-8"))
    assert_read_as_validating(
        path, COMMAS_COUNTED_FROM=0, bare_lines=lambda path: True
    )  # the count deciding


CHUNKS = ['"a"', '"b"', '"c"', '"{"', '"["', '"a\\"b"', '"\\u00e9"', '"é"', '","']
NOT_STRINGS = ["5", "1.5", "true", "false", "null", '{"a": "b"}', '{"a": 1}', "[]", '["a"]']
RANKS = ["place", "place", "place", "missing", "null", '"2"', "1.0"]
SCORES = ["0.5", "0.5", "-1e3", None, "null", '"0.5"', "true", "false", "NaN"]
EXTRAS = ["", "", "", ', "x": "y"', ', "x": 1']


@st.composite
def json_lines(draw):
    """A few lines of items: chunk ids mostly strings (some holding a brace, a bracket, a
    comma, a quote or an escape), now and then a value of another type; ranks and scores
    given, missing, null or written as strings; now and then an extra key."""
    lines = []
    for qid in draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, max_size=3)):
        items = []
        for place in range(1, draw(st.integers(0, 4)) + 1):
            odd = draw(st.integers(0, 5)) == 0
            chunk = draw(st.sampled_from(NOT_STRINGS if odd else CHUNKS))
            rank = draw(st.sampled_from(RANKS))
            text = f'{{"chunk_id": {chunk}'
            if rank != "missing":
                text += f', "rank": {str(place) if rank == "place" else rank}'
            score = draw(st.sampled_from(SCORES))
            if score is not None:
                text += f', "score": {score}'
            items.append(text + draw(st.sampled_from(EXTRAS)) + "}")
        lines.append(line(qid, *items))
    return lines


@SETTINGS
@given(lines=json_lines(), compact=st.booleans())
def test_generated_lines_load_as_the_validating_read(tmp_path_factory, lines, compact):
    text = "\n".join(lines) + "\n"
    if compact:
        text = text.replace(": ", ":").replace(", ", ",")
    path = tmp_path_factory.mktemp("jsonl") / "run.jsonl"
    path.write_bytes(text.encode("utf-8"))
    assert_read_as_validating(
        path, COMMAS_COUNTED_FROM=0, bare_lines=lambda path: True
    )  # the count deciding


def reads(path: Path, monkeypatch) -> list[str]:
    """Which typed reads of JSON lines ran on ``path`` ("text", "json") in turn."""
    ran = []
    original = runs.read_typed

    def recorded(con, steps, params):
        for step in steps:
            if "read_json" in step:
                ran.append("text" if runs.TEXT_ITEMS_TYPE in step else "json")
        return original(con, steps, params)

    monkeypatch.setattr(runs, "COMMAS_COUNTED_FROM", 0)

    monkeypatch.setattr(runs, "bare_lines", lambda path: True)
    monkeypatch.setattr(runs, "read_typed", recorded)
    read = runs.read_run(connect(), path, "run_table_0")
    return ran, read.file_problems


def write_lines(path: Path, lines: list[dict], **dumps) -> Path:
    path.write_text("\n".join(json.dumps(x, **dumps) for x in lines) + "\n", encoding="utf-8")
    return path


PLAIN = [
    {"id": q, "retrieved": [{"chunk_id": f"{q}-{i}", "rank": i, "score": 1 / i} for i in (1, 2)]}
    for q in ("q1", "q2")
] + [{"id": "q3", "retrieved": []}]


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
def test_a_plain_file_is_read_once_with_its_ids_as_text(tmp_path, monkeypatch, separators):
    path = write_lines(tmp_path / "run.jsonl", PLAIN, separators=separators)
    assert reads(path, monkeypatch) == (["text"], [])


def test_a_file_whose_first_slice_holds_an_escape_is_read_once_as_json(tmp_path, monkeypatch):
    """An escape (json.dumps writes every id outside ASCII as one) leaves the quotes
    unknown: such a file is read as JSON from the start, not twice."""
    lines = [{**PLAIN[0], "id": "qé"}, *PLAIN[1:]]
    path = write_lines(tmp_path / "run.jsonl", lines, ensure_ascii=True)
    assert reads(path, monkeypatch) == (["json"], [])


def test_a_number_id_found_by_the_count_is_read_again_as_json(tmp_path, monkeypatch):
    """The text read cannot tell 5 from "5": the count refuses it, the JSON read finds
    the number, and the validating read names its line."""
    path = tmp_path / "run.jsonl"
    path.write_text(line("q1", item('"a"')) + "\n" + line("q2", item("5")) + "\n")
    ran, problems = reads(path, monkeypatch)
    assert ran == ["text", "json"]
    assert [p.line for p in problems] == [2]


def test_a_refused_row_in_a_proven_file_is_not_read_again(tmp_path, monkeypatch):
    """When the count proves every id a string, the JSON read would find what the text
    read found: a file refused for its rows goes to the validating read at once."""
    path = tmp_path / "run.jsonl"
    path.write_text(line("q1", item('"a"'), item('"a"', "2")) + "\n")  # a chunk twice
    ran, problems = reads(path, monkeypatch)
    assert ran == ["text"] and problems


def test_a_count_begun_before_the_gold_is_the_one_the_read_waits_for(tmp_path, monkeypatch):
    """A workspace begins counting its large JSON-lines runs' bytes before it loads the
    gold (``runs.counts_begun``): the read waits for that count, never a second one, and
    loads what it loads otherwise; a run that is no JSON lines, or no file, is left to its
    read."""
    from ragrecall_core import Workspace
    from ragrecall_core.inputs import workspace as workspace_module
    from tests.helpers import gold_row, write_jsonl

    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row(q, [f"{q}-1"]) for q in ("q1", "q2")])
    run = write_lines(tmp_path / "run.jsonl", PLAIN)
    trec = tmp_path / "other.trec"
    trec.write_text("q1 Q0 q1-1 1 0.5 t\n")
    counted = []
    original = runs.json_bytes
    monkeypatch.setattr(runs, "COMMAS_COUNTED_FROM", 0)
    monkeypatch.setattr(runs, "bare_lines", lambda path: True)
    monkeypatch.setattr(runs, "json_bytes", lambda path: counted.append(path) or original(path))
    begun = runs.counts_begun([run, trec, tmp_path / "missing.jsonl"])
    assert list(begun) == [run] and begun[run]() == original(run)
    counted.clear()
    workspace = Workspace.from_files(gold, [run, trec])
    assert counted == [run]
    rows = "SELECT query_id, chunk_id, rank, score FROM runs ORDER BY ALL"
    monkeypatch.setattr(workspace_module, "counts_begun", lambda paths: {})
    assert workspace.con.execute(rows).fetchall() == (
        Workspace.from_files(gold, [run, trec]).con.execute(rows).fetchall()
    )
    assert counted == [run, run]  # without the early count, the read counts it itself


@pytest.mark.parametrize("slice_bytes", [5, 6, 7, 64, 1 << 20])
def test_the_scores_followed_by_a_number_are_counted_across_slices(
    tmp_path, monkeypatch, slice_bytes
):
    """A "score" key's end (`e":`, a space, the number's first byte) may straddle two of
    the count's slices: it is counted once, whatever the slices' size."""
    text = (
        "\n".join(
            line(
                f"q{n}", item('"a"', score="0.5"), item('"be"', "2", "-3"), item('"c"', "3", '"1"')
            )
            for n in range(9)
        )
        + "\n"
    )
    text += text.replace(": ", ":") + line("q", item('"d"', score="true")) + "\n"
    path = tmp_path / "run.jsonl"
    path.write_text(text)
    monkeypatch.setattr(runs.readers, "SCAN_SLICE", slice_bytes)
    assert runs.json_bytes(path).number_scores == len(re.findall(r'e": ?[-0-9]', text)) == 36
