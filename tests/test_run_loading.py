"""The typed fast paths and the validating paths load the same runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragrecall_core import runs
from ragrecall_core.db import connect

SAMPLES = Path(__file__).parent.parent / "data_samples" / "runs"
TREC = Path(__file__).parent / "data" / "trec_eval"


def loaded(path: Path, validating: bool) -> list[tuple]:
    con = connect()
    if validating:
        loader = (
            runs._load_jsonl_validating if path.suffix == ".jsonl" else runs._load_trec_validating
        )
        loader(con, path, "r")
    else:
        runs.load_run(con, path, name="r")
    return con.execute("SELECT * FROM runs ORDER BY query_id, rank").fetchall()


@pytest.mark.parametrize("name", ["bm25.jsonl", "hybrid-rrf-k10-titleboost.jsonl"])
def test_jsonl_fast_and_validating_paths_agree(name):
    assert loaded(SAMPLES / name, False) == loaded(SAMPLES / name, True)


def test_trec_fast_and_validating_paths_agree(tmp_path):
    # results.test separates fields by tabs and runs of spaces; a single-space copy takes
    # the typed path, the original the validating one
    lines = (TREC / "results.test").read_text().splitlines()
    single = tmp_path / "run.trec"
    single.write_text("\n".join(" ".join(line.split()) for line in lines) + "\n")
    assert loaded(single, False) == loaded(TREC / "results.test", False)
    assert loaded(single, False) == loaded(single, True)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_long_form_fast_and_validating_paths_agree(tmp_path, suffix):
    import duckdb

    path = tmp_path / f"bm25{suffix}"
    con = duckdb.connect()
    rows = con.execute(
        "SELECT id AS query_id, r.chunk_id, r.rank, r.score FROM ("
        "SELECT id, unnest(retrieved) AS r FROM read_json($p))",
        {"p": str(SAMPLES / "bm25.jsonl")},
    ).df()
    if suffix == ".csv":
        rows.to_csv(path, index=False)
    else:
        rows.to_parquet(path, index=False)
    fast = connect()
    runs.load_run(fast, path, name="r")
    slow = connect()
    runs._load_long_validating(slow, path, suffix[1:], "r")
    query = "SELECT * FROM runs ORDER BY query_id, rank"
    assert fast.execute(query).fetchall() == slow.execute(query).fetchall()
    assert fast.execute(query).fetchall() == loaded(SAMPLES / "bm25.jsonl", False)
