"""A ranked list's item is shown as the file writes it (stop 49).

``{"chunk_id": "a", "rank": 2.10}`` is refused (a rank is an integer), but the problem line
said ``"rank": 2.1``, and an item whose chunk id was the number 7 was shown whole as DuckDB
writes it again (``{"chunk_id":7,"rank":2,"score":0.5}`` for ``"score": 0.50``): a user
searching the file for either does not find the line. The line-level fields were mended at
stop 48 (test_number_ids); the items' values are now shown as written too, by both reads
of a file and for records in memory.
"""

from __future__ import annotations

import pytest

from ragrecall_core import Workspace
from ragrecall_core.errors import InputError
from tests.helpers import run_cli, run_table, write_text


def run_line(qid: str, *items: str) -> str:
    return f'{{"id": {qid}, "retrieved": [{", ".join(items)}]}}'


# (an item as written, what its problem shows after the query id and its place)
ITEMS = [
    ('{"chunk_id": "a", "rank": 2.10, "score": 1.0}', '"rank": 2.10'),
    ('{"chunk_id": "a", "rank":  1E0 , "score": 1.0}', '"rank": 1E0'),
    ('{"chunk_id": "a", "rank": "3", "score": 1.0}', '"rank": "3"'),
    ('{"chunk_id": "a", "rank": 1, "score": "0.10"}', '"score": "0.10"'),
    ('{"chunk_id": "a", "rank": 1, "score": [0.50]}', '"score": [0.50]'),
    ('{"chunk_id": 7.0, "rank": 1, "score": 0.50}', '"chunk_id": 7.0'),
    ('{"rank": 1, "score": 0.50}', '{"rank": 1, "score": 0.50}'),
    ("[1.50,  2]", "[1.50,  2]"),
]


@pytest.mark.parametrize(("item", "shown"), ITEMS)
def test_an_item_value_is_shown_as_written_by_both_reads(tmp_path, con, item, shown):
    good = '{"chunk_id": "z", "rank": 2, "score": 0.5}'
    line = run_line('"q\\u00e9"', '{"chunk_id": "y", "rank": 1, "score": 0.5}', good, item)
    path = write_text(tmp_path / "run.jsonl", line + "\n")
    fast = run_table(path, validating=False, con=con)
    assert fast == run_table(path, validating=True, con=con)
    values = [value for _, value, _ in fast]
    assert f'"q\\u00e9" retrieved[3]: {shown}' in values, fast


def test_a_number_query_id_is_shown_as_written_before_its_items(tmp_path, con):
    path = write_text(
        tmp_path / "run.jsonl", run_line("5.50", '{"chunk_id": "a", "rank": 1.50}') + "\n"
    )
    values = [value for _, value, _ in run_table(path, validating=True, con=con)]
    assert '5.50 retrieved[1]: "rank": 1.50' in values, values


def test_many_items_of_many_lines_each_shown_as_written(tmp_path):
    lines = [
        run_line(f'"q{n}"', *(f'{{"chunk_id": "c{i}", "rank": {i}.{n}0}}' for i in range(1, 26)))
        for n in range(1, 40)
    ]
    path = write_text(tmp_path / "run.jsonl", "\n".join(lines) + "\n")
    fast = run_table(path, False, COMMAS_COUNTED_FROM=0, bare_lines=lambda path: True)
    assert fast == run_table(path, True)  # the byte count deciding the typed read
    shown = {value for _, value, expected in fast if "rank" in expected}
    assert shown == {
        f'"q{n}" retrieved[{i}]: "rank": {i}.{n}0' for i in range(1, 26) for n in range(1, 40)
    }


def test_the_cli_names_the_item_as_written(tmp_path, capsys):
    gold = write_text(
        tmp_path / "gold.jsonl", '{"id": "q1", "query": "x", "relevant_ids": ["a"]}\n'
    )
    run = write_text(
        tmp_path / "run.jsonl",
        run_line('"q1"', '{"chunk_id": "a", "rank": 2.10, "score": 1}') + "\n",
    )
    code, _, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and "Traceback" not in err
    assert """run.jsonl:1: got '"q1" retrieved[1]: "rank": 2.10'""" in err, err


def test_records_in_memory_show_their_items_as_their_json(tmp_path):
    with pytest.raises(InputError) as caught:
        Workspace.from_memory({"q1": ["a"]}, {"bm25": {"q1": {"a": "0.50", "b": 0.25}}})
    values = [p.value for p in caught.value.problems]
    assert '"q1" retrieved[1]: "score": "0.50"' in values, values


@pytest.fixture(scope="module")
def con():
    from ragrecall_core.inputs.db import connect

    return connect()


GOLD_FIELDS = [
    ('"relevant_ids": ["a", 1.50]', '"relevant_ids": ["a", 1.50]'),
    ('"relevant_ids": "a"', '"relevant_ids": "a"'),
    ('"relevant_ids": ["a",  "a"]', '"relevant_ids": ["a",  "a"]'),
    ('"relevant_ids": ["a"], "grades": {"a": 2.0}', '"grades": {"a": 2.0}'),
    ('"relevant_ids": ["a"], "rationale": [1.50]', '"rationale": [1.50]'),
    ('"relevant_ids": ["a"], "require_all": 1.0', '"require_all": 1.0'),
]


@pytest.mark.parametrize(("fields", "shown"), GOLD_FIELDS)
def test_a_gold_list_or_map_is_shown_as_written(tmp_path, capsys, fields, shown):
    gold = write_text(tmp_path / "gold.jsonl", f'{{"id": "q1", "query": "x", {fields}}}\n')
    run = write_text(tmp_path / "run.jsonl", run_line('"q1"') + "\n")
    code, _, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and "Traceback" not in err
    assert f"gold.jsonl:1: got '{shown}'" in err, err


def refused_lines(tmp_path, capsys, option: str, name: str, text: str) -> str:
    """stderr of evaluate on a one-query gold set and run, with the file ``name`` holding
    ``text`` given as ``option`` (exit 2, no traceback)."""
    gold = write_text(
        tmp_path / "gold.jsonl", '{"id": "q1", "query": "x", "relevant_ids": ["a"]}\n'
    )
    run = write_text(tmp_path / "run.jsonl", run_line('"q1"') + "\n")
    extra = write_text(tmp_path / name, text)
    code, _, err = run_cli(capsys, ["evaluate", gold, run, option, extra])
    assert code == 2 and "Traceback" not in err
    return err


def test_a_grades_harmful_flag_is_shown_as_written(tmp_path, capsys):
    row = '{"query_id": "q1", "chunk_id": "a", "grade": 1, "harmful": 1.50}\n'
    err = refused_lines(tmp_path, capsys, "--grades", "anna.jsonl", row)
    assert """anna.jsonl:1: got '"harmful": 1.50'""" in err, err


def test_a_corpus_field_is_shown_as_written(tmp_path, capsys):
    rows = '{"chunk_id": 1.50, "text": "x"}\n{"chunk_id": "b", "text": 2.10, "section": [1.50]}\n'
    err = refused_lines(tmp_path, capsys, "--corpus", "corpus.jsonl", rows)
    for line, shown in [(1, '"chunk_id": 1.50'), (2, '"text": 2.10'), (2, '"section": [1.50]')]:
        assert f"corpus.jsonl:{line}: got '{shown}'" in err, err
