"""The typed read of JSON lines skips the second, strict parse of every line (trailing
commas, a top-level key repeated) when the file's commas are all accounted for by what the
read itself found (issue 30).

Strict JSON refuses a trailing comma and a repeated key; DuckDB's JSON reader accepts both
(a repeated key only when it does not read that key). A line's commas outside strings are
at least one fewer than its keys, per object, and one fewer than its items, per list; any
more are trailing. So when the file holds no more commas than the lines' empty lists, the
items, their scores and their given ranks together (``runs.JSON_COMMAS_SQL``), every line
has only its "id" and "retrieved" keys and no comma is trailing: the strict parse could
find nothing. Each file here (hostile texts, and generated lines with repeated keys,
trailing commas, extra keys, missing or null ranks and scores, commas inside strings,
other whitespace, line ends and bytes) is read with that count deciding (its row threshold
set to 0) and by the validating read: the same table, or the same problems.

Each of these shortcuts was made by hand and failed here: skipping the strict parse
always; counting every item as ranked; counting every item as scored; no test of a carriage
return (the line reader refuses one not before a line feed, or lines ended both ways;
DuckDB's JSON reader takes it as whitespace).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragrecall_core.inputs import runs
from ragrecall_core.inputs.db import connect
from tests.helpers import assert_read_as_validating

SETTINGS = settings(max_examples=40)

GOOD = '{"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 1, "score": 0.5}]}'
HOSTILE = {
    "plain": GOOD,
    "a trailing comma in the line": GOOD[:-1] + ",}",
    "a trailing comma in the list": GOOD.replace("0.5}]", "0.5},]"),
    "a trailing comma in an item": GOOD.replace("0.5}", "0.5,}"),
    "a trailing comma after whitespace": GOOD.replace("0.5}", "0.5 ,\t}"),
    "a trailing comma in an extra list": GOOD[:-1] + ', "x": [1,]}',
    "a trailing comma in an item's extra list": GOOD.replace("0.5}", '0.5, "n": [1,]}'),
    "id twice": GOOD.replace('"id": "q1",', '"id": "q1", "id": "q2",'),
    "retrieved twice": GOOD[:-1] + ', "retrieved": []}',
    "an unknown key twice": GOOD[:-1] + ', "x": 1, "x": 2}',
    "an empty key twice": GOOD[:-1] + ', "": 1, "": 2}',
    "a key twice, once escaped": GOOD[:-1] + ', "x": 1, "\\u0078": 2}',
    "id again, escaped": GOOD[:-1] + ', "\\u0069d": "q9"}',
    "rank twice at the top": GOOD[:-1] + ', "rank": 1, "rank": 2}',
    "an item's unknown key twice": GOOD.replace("0.5}", '0.5, "n": 1, "n": 2}'),
    "two items without ranks and a key twice": (
        '{"id": "q1", "retrieved": [{"chunk_id": "a", "score": 1}, {"chunk_id": "b", '
        '"score": 0.5}], "x": 1, "x": 2}'
    ),
    "two items without scores and a trailing comma": (
        '{"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 1}, {"chunk_id": "b", '
        '"rank": 2}], "x": 1,}'
    ),
    "a nested key twice": GOOD[:-1] + ', "x": {"a": 1, "a": 2}}',
    "a comma and bracket in a string": GOOD.replace('"a"', '"a,}"'),
    "NaN in an extra key": GOOD[:-1] + ', "x": NaN}',
    "a comment": GOOD[:-1] + " /* c */}",
    "single quotes": GOOD[:-1] + ", 'x': 1}",
    "a lone carriage return": GOOD.replace(", ", ",\r"),
    "lines ended both ways": GOOD + "\r\n" + GOOD.replace("q1", "q2"),
    "every line ended by a carriage return and a line feed": (
        GOOD + "\r\n\r\n" + GOOD.replace("q1", "q2") + "\r"
    ),
    "a carriage return at the end": GOOD + "\n" + GOOD.replace("q1", "q2") + "\r",
    "a carriage return after a line feed": GOOD + "\n\r" + GOOD.replace("q1", "q2"),
    "tabs": GOOD.replace(" ", "\t"),
    "a byte \\x01 in a string": GOOD.replace('"a"', '"a\x01"'),
    "a control character in a string": GOOD.replace('"a"', '"a\tb"'),
    "a byte order mark inside": GOOD + "\n\ufeff" + GOOD.replace("q1", "q2"),
    "an id outside ASCII": GOOD.replace("q1", "qé"),
    "a blank line": GOOD + "\n\n   \n" + GOOD.replace("q1", "q2"),
    "an empty list": GOOD + "\n" + '{"id": "q2", "retrieved": []}',
    "two objects on a line": GOOD + GOOD,
}


def commas_if_plain(path: Path) -> int | None:
    """The file's commas when the count may stand for the strict pass (``plain``)."""
    counts = runs.json_bytes(path)
    return counts.commas if counts.plain else None


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_line_loads_as_the_validating_read(tmp_path, name):
    path = tmp_path / "run.jsonl"
    path.write_bytes((HOSTILE[name] + "\n").encode("utf-8"))
    assert_read_as_validating(
        path, COMMAS_COUNTED_FROM=0, bare_lines=lambda path: True
    )  # the count deciding


# a value as JSON writes it, or missing (None)
RANKS = ["place", "place", "missing", "null", "other"]
SCORES = ["0.5", "0.5", None, "null"]
EXTRA_ITEM_KEYS = [[], [], [("n", "1")], [("n", "1"), ("n", "2")], [("n", "[1,]")]]
EXTRA_LINE_KEYS = [
    [],
    [],
    [("x", "1")],
    [("x", "1"), ("x", "2")],
    [("rank", "1"), ("rank", "2")],
    [("chunk_id", '"z"'), ("chunk_id", '"z"')],
    [("score", "1")],
    [("\\u0078", "1"), ("x", "2")],
    [("x", "[1,]")],
    [("x", '"a,]"')],
]
CHUNKS = ["a", "b", "c,]", "d,}", ",", "é"]


@st.composite
def json_lines(draw):
    """A few lines of items, each item's rank and score given or not, unknown keys at the
    top and in items (once or repeated), maybe a trailing comma in one object or list,
    written compactly or with spaces."""
    colon, comma = draw(st.sampled_from([(":", ","), (": ", ", "), (" : ", " ,\t")]))
    trailing = draw(st.sampled_from([None, None, "line", "list", "item"]))

    def obj(pairs: list[tuple[str, str]], trail: bool) -> str:
        body = comma.join(f'"{key}"{colon}{value}' for key, value in pairs)
        return "{" + body + ("," if trail else "") + "}"

    lines = []
    for query in draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, unique=True)):
        items = []
        for place, chunk in enumerate(draw(st.lists(st.sampled_from(CHUNKS), unique=True)), 1):
            pairs = [("chunk_id", json.dumps(chunk, ensure_ascii=draw(st.booleans())))]
            rank = draw(st.sampled_from(RANKS))
            if rank != "missing":
                pairs.append(("rank", {"place": str(place), "null": "null"}.get(rank, "7")))
            score = draw(st.sampled_from(SCORES))
            if score is not None:
                pairs.append(("score", score))
            pairs += draw(st.sampled_from(EXTRA_ITEM_KEYS))
            items.append(obj(pairs, trailing == "item" and place == 1))
        listed = "[" + comma.join(items) + ("," if trailing == "list" and items else "") + "]"
        pairs = [("id", json.dumps(query)), ("retrieved", listed)]
        pairs += draw(st.sampled_from(EXTRA_LINE_KEYS))
        lines.append(obj(pairs, trailing == "line" and not lines))
    return lines


@SETTINGS
@given(lines=json_lines(), end=st.sampled_from(["\n", "\n", "\r\n"]))
def test_generated_lines_load_as_the_validating_read(tmp_path_factory, lines, end):
    path = tmp_path_factory.mktemp("jsonl") / "run.jsonl"
    path.write_bytes((end.join(lines) + end).encode("utf-8"))
    assert_read_as_validating(
        path, COMMAS_COUNTED_FROM=0, bare_lines=lambda path: True
    )  # the count deciding


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
@pytest.mark.parametrize("ranked", [True, False])
def test_a_plain_file_is_not_parsed_twice(tmp_path, monkeypatch, separators, ranked):
    """Written by ``json.dumps``, compact or not, with ranks or without, scores or not: the
    comma count alone clears it, and the strict parse never runs."""
    lines = []
    for q in ("q1", "q2", "q3"):
        items = [{"chunk_id": f"{q}-{i}", "rank": i, "score": 1 / i} for i in range(1, 4)]
        for item in items[1:] if ranked else items:
            del item["rank" if not ranked else "score"]
        lines.append(json.dumps({"id": q, "retrieved": items}, separators=separators))
    lines.append(json.dumps({"id": "q4", "retrieved": []}, separators=separators))
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    strict = []
    original = runs.read_typed

    def recorded(con, steps, params):
        strict.extend(step for step in steps if step == runs.STRICT_JSON_SQL)
        return original(con, steps, params)

    monkeypatch.setattr(runs, "COMMAS_COUNTED_FROM", 0)

    monkeypatch.setattr(runs, "bare_lines", lambda path: True)
    monkeypatch.setattr(runs, "read_typed", recorded)
    read = runs.read_run(connect(), path, "run_table_0")
    assert not read.file_problems and not strict


def test_a_line_the_line_reader_refuses_for_its_length_is_parsed_again(tmp_path):
    """A line of 2 MB or more is past the strict parse's line reader (whose refusal sends
    the file to the validating read); the count leaves such a file to it."""
    items = [{"chunk_id": f"c{i:07d}", "rank": i, "score": 0.5} for i in range(1, 50_001)]
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({"id": "q1", "retrieved": items}) + "\n", encoding="utf-8")
    assert path.stat().st_size > runs.readers.FAST_LINE_BYTES
    assert commas_if_plain(path) is None


@pytest.mark.parametrize("before", [0, 10, 2**20 - 4, 2**20 + 4, 2**21 + 2])
@pytest.mark.parametrize("extra", [-1, 0])
@pytest.mark.parametrize("last", [False, True])
def test_a_line_of_the_limit_is_found_wherever_the_slices_cut_it(tmp_path, before, extra, last):
    """The count looks at each slice's first and last line feed only (a line within one
    slice is shorter than the limit): a line one byte short of FAST_LINE_BYTES is counted
    and one of it is not, whatever slice it starts in, ended by a line feed or by the file."""
    limit = runs.readers.FAST_LINE_BYTES
    assert runs.readers.SCAN_SLICE < limit
    head = ",\n" * (before // 2)  # short lines, so a slice holds several line feeds
    text = head + "x" * (limit + extra) + ("" if last else "\n,")
    path = tmp_path / "run.jsonl"
    path.write_bytes(text.encode("ascii"))
    assert commas_if_plain(path) == (None if extra == 0 else text.count(","))


@pytest.mark.parametrize("at", [-2, -1, 0])
@pytest.mark.parametrize("ends", ["\r\n", "both"])
def test_line_ends_are_told_across_the_slices_counted(tmp_path, at, ends):
    """A carriage return and its line feed on either side of a slice's end, the next slice
    holding none: a file whose every line ends "\\r\\n" is counted, one with a line ended
    by "\\n" alone is not."""
    line = '{"id": "q", "retrieved": []}'
    pad = runs.readers.SCAN_SLICE + at - len(line) - 1  # its "\r" at SCAN_SLICE + at - 1
    text = line + " " * pad + "\r\n" + line + ("\n" + line if ends == "both" else "")
    path = tmp_path / "run.jsonl"
    path.write_bytes(text.encode("ascii"))
    assert text.index("\r") == runs.readers.SCAN_SLICE + at - 1
    assert commas_if_plain(path) == (2 if ends == "\r\n" else None)


TEXT_ITEM = {"chunk_id": "a", "rank": 1, "score": 0.5, "text": "Passage: a, b; «c»", "page": 3}
FIRST_LINES = {
    "the keys the count accounts for": (GOOD, True),
    "items without ranks or scores": ('{"id": "q1", "retrieved": [{"chunk_id": "a"}]}', True),
    "an item with text and metadata": (json.dumps({"id": "q1", "retrieved": [TEXT_ITEM]}), False),
    "a line key beyond id and retrieved": (GOOD[:-1] + ', "query": "what"}', False),
    "a comma inside a chunk id": (GOOD.replace('"a"', '"a,b"'), False),
    "a comma inside the id": (GOOD.replace('"q1"', '"q,1"'), False),
    "no JSON": ("{not json", True),
    "nested past Python's stack": ("[" * 100_000, True),
    "not an object": ('["q1", []]', True),
    "no list of items": ('{"id": "q1", "retrieved": null}', True),
}


@pytest.mark.parametrize("name", list(FIRST_LINES))
def test_the_first_line_says_whether_the_count_can_spare_a_pass(tmp_path, name):
    """A file whose first line holds more than the keys and items the byte count accounts
    for is not counted: its commas and quotes could neither clear the strict pass nor prove
    its chunk ids strings (RAG runs with text: 0.8 CPU s of 280 MB counted for nothing). A
    first line that is no such object leaves it to the count, as before."""
    line, counted = FIRST_LINES[name]
    path = tmp_path / "run.jsonl"
    path.write_text(line + "\n" + GOOD.replace("q1", "q2") + "\n", encoding="utf-8")
    assert runs.bare_lines(path) is counted


def test_a_first_line_longer_than_the_slice_leaves_it_to_the_count(tmp_path):
    items = [dict(TEXT_ITEM, chunk_id=f"c{i}", rank=i) for i in range(1, 20_000)]
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({"id": "q1", "retrieved": items}) + "\n", encoding="utf-8")
    assert path.stat().st_size > runs.readers.SCAN_SLICE and runs.bare_lines(path)


@pytest.mark.parametrize("hostile", ["", "a trailing comma in an item", "an unknown key twice"])
def test_a_run_with_text_is_not_counted_and_loads_as_the_validating_read(
    tmp_path, monkeypatch, hostile
):
    """Items with text (commas, quotes escaped, letters outside ASCII): no count begun, the
    strict pass decides, and the run loads as the validating read loads it."""
    lines = [
        json.dumps(
            {
                "id": q,
                "retrieved": [dict(TEXT_ITEM, chunk_id=f"{q}-{i}", rank=i) for i in range(1, 4)],
            },
            ensure_ascii=False,
        )
        for q in ("q1", "q2", "q3")
    ]
    if hostile:
        lines.append(HOSTILE[hostile].replace("q1", "q4"))
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(runs, "COMMAS_COUNTED_FROM", 0)
    assert runs.counting(path) is None
    assert_read_as_validating(path, COMMAS_COUNTED_FROM=0)
