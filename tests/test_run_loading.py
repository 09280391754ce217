"""The typed fast paths and the validating paths load the same runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragrecall_core.inputs import runs
from ragrecall_core.inputs.db import connect
from tests.samples import shared_samples

SAMPLES = shared_samples() / "runs"
TREC = Path(__file__).parent / "data" / "trec_eval"


def loaded(path: Path, validating: bool) -> list[tuple]:
    """The ``runs`` rows of ``path``, read by the typed path or, with the typed reads
    switched off, by the validating one."""
    con = connect()
    if validating:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(runs, "read_typed", lambda *args: False)
            runs.load_run(con, path, name="r")
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
    assert loaded(path, False) == loaded(path, True)
    assert loaded(path, False) == loaded(SAMPLES / "bm25.jsonl", False)


def test_an_empty_list_keeps_its_query_on_both_paths(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text(
        '{"id": "q1", "retrieved": []}\n{"id": "q2", "retrieved": '
        '[{"chunk_id": "a", "rank": 1, "score": 1.0}]}\n'
    )
    for validating in (False, True):
        con = connect()
        with pytest.MonkeyPatch.context() as patch:
            if validating:
                patch.setattr(runs, "read_typed", lambda *args: False)
            runs.load_run(con, path, name="r")
        assert con.execute("SELECT query_id FROM run_queries ORDER BY 1").fetchall() == [
            ("q1",),
            ("q2",),
        ]
        assert con.execute("SELECT query_id, chunk_id FROM runs").fetchall() == [("q2", "a")]


def test_runs_whose_files_share_a_stem_get_their_file_names(tmp_path):
    from ragrecall_core import Workspace

    a, b = TREC / "results.test", TREC / "results.trunc"  # both have the stem "results"
    ws = Workspace.from_files(TREC / "qrels.test", [a, b])
    assert ws.run_names == ["results", "results.trunc"]


def test_two_configs_naming_the_same_run_are_an_input_error(tmp_path, capsys):
    from ragrecall_core.cli import main

    for stem in ("one", "two"):
        (tmp_path / f"{stem}.jsonl").write_text((SAMPLES / "bm25.jsonl").read_text())
        (tmp_path / f"{stem}.config.json").write_text('{"name": "same"}')
    code = main(
        [
            "evaluate",
            str(SAMPLES.parent / "gold.jsonl"),
            str(tmp_path / "one.jsonl"),
            str(tmp_path / "two.jsonl"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "two.jsonl" in err and "same" in err and "one.jsonl" in err


def test_load_runs_names_and_reports_as_one_after_another(tmp_path):
    """``load_runs``: names (a repeated stem, a config's name) and problems come out in the
    files' order, as loading them one by one gives."""
    good = (SAMPLES / "bm25.jsonl").read_text()
    files = {
        "results.jsonl": good,
        "bad.jsonl": '{"id": "q1", "retrieved": [{"chunk_id": 5, "rank": 1}]}\n',
        "results.trec": "q1 Q0 c1 1 0.5 x\n",
        "worse.csv": "query_id,chunk_id,rank\nq1,c1,first\n",
        "other.jsonl": good,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "other.config.json").write_text('{"name": "results"}')  # taken by the first
    paths = [tmp_path / name for name in files]

    together = connect()
    loaded, problems = runs.load_runs(together, paths)
    one_by_one = connect()
    expected_loaded, expected_problems = [], []
    for path in paths:
        try:
            expected_loaded.append((runs.load_run(one_by_one, path), path))
        except runs.InputError as error:
            expected_problems += error.problems

    assert (
        loaded
        == expected_loaded
        == [
            ("results", tmp_path / "results.jsonl"),
            ("results.trec", tmp_path / "results.trec"),
        ]
    )
    assert [str(p) for p in problems] == [str(p) for p in expected_problems]
    assert [Path(p.file).name for p in problems] == ["bad.jsonl", "worse.csv", "other.jsonl"]
    rows = "SELECT run, query_id, chunk_id, rank, score FROM runs ORDER BY ALL"
    assert together.execute(rows).fetchall() == one_by_one.execute(rows).fetchall()
