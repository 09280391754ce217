"""Item values of the wrong JSON type, built to slip past the typed (fast) read of a JSONL run.

The fast read checks each item's value on its JSON text (a chunk id must be a string, a rank
a JSON integer, a score a JSON number); DuckDB itself would read the number 5 as the chunk
id "5", the rank 1.0 or "3" or true as an integer and the score "0.5" or true as a number.
Each must be refused, with its line, by the validating read; a well-typed item must load.
"""

from __future__ import annotations

import pytest

from ragrecall_core.inputs.workspace import Workspace
from tests.helpers import gold_row, load_problems, write_jsonl, write_text

GOLD = [gold_row("q1", ["a"]), gold_row("q2", ["b"])]
GOOD_LINE = '{"id": "q2", "retrieved": [{"chunk_id": "b", "rank": 1, "score": 0.5}]}'
BAD_ITEMS = {
    "chunk id number": '{"chunk_id": 5, "rank": 1}',
    "chunk id true": '{"chunk_id": true, "rank": 1}',
    "chunk id object": '{"chunk_id": {"x": 1}, "rank": 1}',
    "chunk id list": '{"chunk_id": ["a"], "rank": 1}',
    "chunk id null": '{"chunk_id": null, "rank": 1}',
    "rank 1.0": '{"chunk_id": "a", "rank": 1.0}',
    "rank 2E0": '{"chunk_id": "a", "rank": 2E0}',
    "rank 1e2": '{"chunk_id": "a", "rank": 1e2}',
    "rank string": '{"chunk_id": "a", "rank": "3"}',
    "rank true": '{"chunk_id": "a", "rank": true}',
    "rank zero": '{"chunk_id": "a", "rank": 0}',
    "rank past BIGINT": '{"chunk_id": "a", "rank": 18446744073709551615}',
    "score string": '{"chunk_id": "a", "rank": 1, "score": "0.5"}',
    "score true": '{"chunk_id": "a", "rank": 1, "score": true}',
    "score list": '{"chunk_id": "a", "rank": 1, "score": [1]}',
    "score object": '{"chunk_id": "a", "rank": 1, "score": {"v": 1}}',
    "score overflow": '{"chunk_id": "a", "rank": 1, "score": 1e400}',
}


@pytest.mark.parametrize("item", BAD_ITEMS.values(), ids=BAD_ITEMS.keys())
def test_a_wrongly_typed_item_is_refused_with_its_line(tmp_path, item):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_text(
        tmp_path / "run.jsonl", f'{GOOD_LINE}\n{{"id": "q1", "retrieved": [{item}]}}\n'
    )
    problems = load_problems(gold, [run])
    assert [p.line for p in problems] == [2], problems


def test_well_typed_items_in_every_spelling_load(tmp_path):
    """Spacing, escapes, exponents in scores, null and missing rank or score all load."""
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    items = (
        '{"chunk_id" :  "\\u0061" , "rank":  2 , "score": -1.5E+3}, '
        '{"chunk_id": "c", "rank": null, "score": null}, {"chunk_id": "d", "score": 1e-2}'
    )
    run = write_text(
        tmp_path / "run.jsonl", f'{GOOD_LINE}\n{{"id": "q1", "retrieved": [{items}]}}\n'
    )
    ws = Workspace.from_files(gold, [run])
    rows = (
        ws.cursor()
        .execute("SELECT chunk_id, rank, score FROM runs WHERE query_id = 'q1' ORDER BY rank")
        .fetchall()
    )
    assert rows == [("a", 1, -1500.0), ("c", 2, None), ("d", 3, 0.01)]
