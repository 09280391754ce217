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
