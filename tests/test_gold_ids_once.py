"""Each query id is in ``queries`` once, whatever the gold's format: the table has no key
index (db.SCHEMA), so the gold reads themselves must group or refuse repeated ids."""

from __future__ import annotations

import pandas as pd
import pytest

from ragrecall_core.errors import InputError
from ragrecall_core.inputs.workspace import Workspace
from tests.helpers import gold_row, run_row, write_jsonl, write_text

RUN_ROWS = [run_row("q1", ["c1", "c2"]), run_row("q2", ["c3", "c1"])]


def ids_of(workspace: Workspace) -> list[str]:
    return [r[0] for r in workspace.cursor().execute("SELECT query_id FROM queries").fetchall()]


def gold_files(tmp_path):
    """The same two queries, each with two relevant chunks, in each gold format."""
    trec = "q1 0 c1 1\nq1 0 c2 2\nq2 0 c3 1\nq2 0 c1 1\n"
    long = pd.DataFrame(
        {"query_id": ["q1", "q1", "q2", "q2"], "chunk_id": ["c1", "c2", "c3", "c1"],
         "grade": [1, 2, 1, 1]}
    )  # fmt: skip
    long.to_parquet(tmp_path / "gold.parquet")
    long.to_csv(tmp_path / "gold.csv", index=False)
    return {
        "trec": write_text(tmp_path / "qrels.txt", trec),
        "csv": tmp_path / "gold.csv",
        "parquet": tmp_path / "gold.parquet",
        "jsonl": write_jsonl(
            tmp_path / "gold.jsonl", [gold_row("q1", ["c1", "c2"]), gold_row("q2", ["c3", "c1"])]
        ),
    }


@pytest.mark.parametrize("fmt", ["trec", "csv", "parquet", "jsonl"])
def test_each_query_id_once(tmp_path, fmt):
    run = write_jsonl(tmp_path / "run.jsonl", RUN_ROWS)
    workspace = Workspace.from_files(gold_files(tmp_path)[fmt], [run])
    assert sorted(ids_of(workspace)) == ["q1", "q2"]


def test_repeated_jsonl_id_is_refused_not_stored_twice(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["c1"]), gold_row("q1", ["c2"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["c1"])])
    with pytest.raises(InputError) as refused:
        Workspace.from_files(gold, [run])
    assert any("q1" in str(p) for p in refused.value.problems)
