"""A reranker's deep candidate list: one JSON line of 60,000 items (4.5 MB).

DuckDB's line reader refuses a line of 2 MB or more by default, which once refused such a
run outright. The fast read keeps that default (a larger line sends the file to the
validating read); the validating read takes lines up to :data:`readers.MAX_LINE_BYTES`.
"""

from __future__ import annotations

from ragrecall_core import Workspace
from ragrecall_core.inputs import readers
from tests.helpers import gold_row, write_jsonl

ITEMS = 60_000


def deep_list(qid: str, count: int) -> dict:
    items = [
        {"chunk_id": f"doc{i:07d}", "rank": i + 1, "score": 1.0 / (i + 1)} for i in range(count)
    ]
    return {"id": qid, "retrieved": items}


def test_a_line_of_60000_items_loads(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["doc0059999"])])
    run = write_jsonl(tmp_path / "run.jsonl", [deep_list("q1", ITEMS)])
    assert 2_000_000 < run.stat().st_size < readers.MAX_LINE_BYTES
    workspace = Workspace.from_files(gold, [run])
    sql = "SELECT count(*), max(rank), min(rank) FILTER (WHERE chunk_id = 'doc0059999') FROM runs"
    assert workspace.con.execute(sql).fetchone() == (ITEMS, ITEMS, ITEMS)
