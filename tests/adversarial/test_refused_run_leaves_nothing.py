"""A refused run leaves nothing behind in the connection it was loaded into (stop 45).

One contract, every path: a run that is refused (its rows, its config, its name, a read
that failed part way) is as if it had never been given. Not a row of it in
``column_mappings`` (``Workspace.column_mappings()`` and what the command line prints from
it must not name it), none in ``run_queries``, no table or view of it (its run table, the
typed read's spans, the ordering pass's tables, the validating read's staging tables); and
a run loaded after it loads as it would alone (its run table takes the same name, and the
run's list lengths come from spans when they exist: a stale one would be read as its own).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.inputs import load_cache, runs, trec_order
from ragrecall_core.inputs.db import connect
from ragrecall_core.inputs.gold import load_gold
from ragrecall_core.inputs.workspace import load_any_run
from tests.helpers import gold_row, run_row, write_jsonl, write_text

GOLD = [gold_row("q1", ["a"]), gold_row("q2", ["b"])]
ALIASED = "qid,docno,rank,score\nq1,a,1,0.9\nq1,b,2,0.5\nq2,b,1,0.8\n"
MAPPED = {"qid": "query_id", "docno": "chunk_id"}


def fresh(tmp_path: Path) -> tuple[duckdb.DuckDBPyConnection, Path]:
    con = connect()
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    load_gold(con, gold)
    return con, gold


def refused(load) -> list:
    with pytest.raises(InputError) as caught:
        load()
    return caught.value.problems


def mappings(con: duckdb.DuckDBPyConnection, gold: Path) -> dict:
    return Workspace(con, gold).column_mappings()


def snapshot(con: duckdb.DuckDBPyConnection) -> dict:
    """Every table (in memory and temporary) with its rows, and every view: what a load
    left in the connection."""
    tables = con.execute(
        "SELECT database_name, schema_name, table_name FROM duckdb_tables() ORDER BY ALL"
    ).fetchall()
    found = {
        f"{db}.{schema}.{name}": con.execute(
            f'SELECT * FROM "{db}"."{schema}"."{name}" ORDER BY ALL'  # noqa: S608 - catalog names
        ).fetchall()
        for db, schema, name in tables
    }
    views = con.execute(
        "SELECT database_name, view_name FROM duckdb_views() WHERE NOT internal ORDER BY ALL"
    ).fetchall()
    return {"tables": found, "views": views}


# ---------------------------------------------------------------- 1. column mappings
def aliased_csv(folder: Path, name: str, config: str | None = None) -> Path:
    path = write_text(folder / f"{name}.csv", ALIASED)
    if config is not None:
        write_text(folder / f"{name}.config.json", config)
    return path


def aliased_parquet(folder: Path, name: str, config: str | None = None) -> Path:
    path = folder / f"{name}.parquet"
    frame = pd.DataFrame(
        {"qid": ["q1", "q2"], "docno": ["a", "b"], "rank": [1, 1], "score": [0.9, 0.8]}
    )
    frame.to_parquet(path)
    if config is not None:
        write_text(folder / f"{name}.config.json", config)
    return path


@pytest.mark.parametrize("make", [aliased_csv, aliased_parquet], ids=["csv", "parquet"])
def test_a_run_refused_for_its_config_names_no_column(tmp_path, make):
    con, gold = fresh(tmp_path)
    bad = make(tmp_path, "bad", config="{not json")
    good = make(tmp_path, "good")
    loaded, problems = runs.load_runs(con, [bad, good])
    assert [name for name, _ in loaded] == ["good"]
    assert problems and all(p.file == str(bad.with_suffix(".config.json")) for p in problems)
    assert mappings(con, gold) == {str(good): MAPPED}  # the refused one is not named


def test_a_run_refused_for_its_name_adds_no_mapping_row(tmp_path):
    """The same file loaded twice under one name: the second is refused, and the rows the
    first recorded are neither doubled nor taken away."""
    con, gold = fresh(tmp_path)
    path = aliased_csv(tmp_path, "run")
    runs.load_run(con, path, "x")
    before = con.execute("SELECT * FROM column_mappings ORDER BY ALL").fetchall()
    problems = refused(lambda: runs.load_run(con, path, "x"))
    assert [p.value for p in problems] == ["x"]
    assert con.execute("SELECT * FROM column_mappings ORDER BY ALL").fetchall() == before
    assert mappings(con, gold) == {str(path): MAPPED}


def test_a_run_refused_as_it_changed_while_read_names_no_column(tmp_path, monkeypatch):
    con, gold = fresh(tmp_path)
    path = aliased_csv(tmp_path, "run")
    monkeypatch.setattr(runs, "_one_version", lambda *args: False)
    problems = refused(lambda: runs.load_run(con, path))
    assert [p.expected for p in problems] == [runs.UNCHANGED]
    assert mappings(con, gold) == {}


@pytest.mark.parametrize(
    "data",
    [
        pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "rank": [1, "x"]}),
        pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "a"], "rank": [1, 2]}),
        {"q1": {"a": "x"}},
    ],
    ids=["frame bad rank", "frame repeated chunk", "dict bad score"],
)
def test_a_refused_run_in_memory_names_no_column(tmp_path, data):
    con, gold = fresh(tmp_path)
    refused(lambda: load_any_run(con, "bad", data))
    frame = pd.DataFrame({"qid": ["q1"], "docno": ["a"], "rank": [1]})
    load_any_run(con, "good", frame)
    assert mappings(con, gold) == {"run 'good'": MAPPED}


def test_a_workspace_with_a_refused_run_keeps_no_cache_and_restores_none(tmp_path):
    """The load cache keeps only a clean load; a cached workspace names the columns its
    fresh load named, and never those of a run refused in an earlier load."""
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    good = aliased_csv(tmp_path, "good")
    bad = aliased_csv(tmp_path, "bad", config="{not json")
    cache = tmp_path / "cache"
    refused(lambda: Workspace.from_files(gold, [good, bad], cache=cache))
    load_cache.wait_for_writes()
    assert not list(cache.glob("*.duckdb"))
    first = Workspace.from_files(gold, [good], cache=cache)
    load_cache.wait_for_writes()
    restored = Workspace.from_files(gold, [good], cache=cache)
    assert list(cache.glob("*.duckdb"))
    assert first.column_mappings() == restored.column_mappings() == {str(good): MAPPED}


# ---------------------------------------------------------------- 3. a failed ordering pass
OUT_OF_ORDER_TREC = "q1 Q0 a 2 0.5 t\nq1 Q0 b 1 0.9 t\nq2 Q0 b 1 0.8 t\n"
REPEATED_TREC = "q1 Q0 a 2 0.5 t\nq1 Q0 a 1 0.9 t\nq2 Q0 b 1 0.8 t\n"  # q1 lists a twice
IN_BLOCKS_TREC = "q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.9 t\nq2 Q0 b 1 0.8 t\n"  # blocks, not sorted
REPEATED_BLOCKS_TREC = "q1 Q0 a 1 0.5 t\nq1 Q0 a 2 0.9 t\nq2 Q0 b 1 0.8 t\n"
# blocks in the writer's order with a tie: each group's docnos rising (reversed), or a group
# in no one direction (sorted); the refused ones list a docno twice, outside the group
RISING_TIE_TREC = "q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.5 t\nq2 Q0 b 1 0.8 t\n"
REPEATED_RISING_TIE_TREC = "q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.5 t\nq1 Q0 a 3 0.4 t\n"
MIXED_TIE_TREC = "q1 Q0 b 1 0.5 t\nq1 Q0 c 2 0.5 t\nq1 Q0 a 3 0.5 t\nq2 Q0 b 1 0.8 t\n"
REPEATED_MIXED_TIE_TREC = "q1 Q0 b 1 0.5 t\nq1 Q0 c 2 0.5 t\nq1 Q0 a 3 0.5 t\nq1 Q0 b 4 0.4 t\n"
TREC_SHAPES = {  # good, refused
    "blocks": (IN_BLOCKS_TREC, REPEATED_BLOCKS_TREC),
    "rising tie": (RISING_TIE_TREC, REPEATED_RISING_TIE_TREC),
    "mixed tie": (MIXED_TIE_TREC, REPEATED_MIXED_TIE_TREC),
    "out of order": (OUT_OF_ORDER_TREC, REPEATED_TREC),
}
OUT_OF_ORDER_JSONL = [
    {"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 2}, {"chunk_id": "b", "rank": 1}]},
    {"id": "q2", "retrieved": [{"chunk_id": "b", "rank": 1}]},
]
REPEATED_JSONL = [
    {"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 2}, {"chunk_id": "b", "rank": 1}]},
    {"id": "q1", "retrieved": [{"chunk_id": "c", "rank": 1}]},  # q1 on two lines
]
BOOM = "SELECT error('the ordering pass failed')"
BOOM_TABLE = "CREATE TABLE {table} AS SELECT error('the sorted read failed') AS x"
# each way the ordering (or sorting) pass of a typed read can fail, by format
FAILURES = {
    "trec blocks test": ("trec", trec_order, "BLOCKS_SQL", BOOM),
    "trec ties step": ("trec", trec_order, "ANY_TIED_SQL", BOOM),
    "trec order test": ("trec", trec_order, "WRITERS_ORDER_SQL", BOOM),
    "trec tie directions": ("trec", trec_order, "DIRECTIONS_SQL", BOOM_TABLE),
    # ties after the first rows (none sampled here): the pass without directions found
    # them, and the pass that reads them fails
    "trec second pass": (
        "trec",
        trec_order,
        ("TIE_SAMPLE_ROWS", "DIRECTED_PASS_SQL"),
        (0, BOOM_TABLE),
    ),
    "trec reversing ties": ("trec", trec_order, "REVERSE_TIES_SQL", BOOM),
    "trec sorting ties": ("trec", trec_order, "RENUMBER_STEPS", (BOOM,)),
    "trec sorted read": ("trec", runs, "RANKED_TREC_SQL", BOOM_TABLE),
    "jsonl order test": ("jsonl", runs, "LISTED_OK_SQL", BOOM),
    "jsonl sorted read": ("jsonl", runs, "RANKED_JSONL_SQL", BOOM_TABLE),
}


# the TREC file each failure needs to reach its step: each query one block ranked 1..n (the
# ordering pass runs its steps), with a tie whose docnos rise or run no one way
FAILED_SHAPES = {
    "trec ties step": "blocks",
    "trec tie directions": "rising tie",
    "trec second pass": "rising tie",
    "trec reversing ties": "rising tie",
    "trec sorting ties": "mixed tie",
}


def patch_failure(patch, module, name, value) -> None:
    """Set the failure's attribute (or each of its attributes, names and values in tuples)."""
    names, values = (name, value) if isinstance(name, tuple) else ((name,), (value,))
    for one, set_to in zip(names, values, strict=True):
        patch.setattr(module, one, set_to)


def run_file(folder: Path, fmt: str, good: bool, failure: str = "") -> Path:
    if fmt == "trec":
        texts = TREC_SHAPES[FAILED_SHAPES.get(failure, "out of order")]
        return write_text(folder / "run.trec", texts[0] if good else texts[1])
    return write_jsonl(folder / "run.jsonl", OUT_OF_ORDER_JSONL if good else REPEATED_JSONL)


def alone(tmp_path: Path, path: Path) -> dict:
    """What the validating read alone leaves after loading ``path`` (or refusing it)."""
    con, _ = fresh(tmp_path)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(runs, "read_typed", lambda *args: False)
            runs.load_run(con, path)
    except InputError:
        pass
    return snapshot(con)


@pytest.mark.parametrize("failure", list(FAILURES))
@pytest.mark.parametrize("good", [True, False], ids=["good file", "refused file"])
def test_a_failed_ordering_pass_leaves_no_helper_table(tmp_path, monkeypatch, failure, good):
    """The typed read whose ordering pass fails leaves the file to the validating read
    (never a traceback): loaded as that read loads it, or refused with its problems, and
    in either case no table of the failed pass remains."""
    fmt, module, name, value = FAILURES[failure]
    path = run_file(tmp_path, fmt, good, failure)
    expected = alone(tmp_path / "alone", path)
    con, _ = fresh(tmp_path)
    patch_failure(monkeypatch, module, name, value)
    if good:
        runs.load_run(con, path)
    else:
        assert refused(lambda: runs.load_run(con, path))
    assert snapshot(con) == expected


@pytest.mark.parametrize("failure", list(FAILURES))
def test_a_run_loaded_after_a_failed_ordering_pass_counts_its_own_lists(
    tmp_path, monkeypatch, failure
):
    """The next run takes the refused one's table name; a spans table left by the failed
    pass would give it the refused run's list lengths (run_queries)."""
    fmt, module, name, value = FAILURES[failure]
    path = run_file(tmp_path, fmt, good=False, failure=failure)
    con, _ = fresh(tmp_path)
    with monkeypatch.context() as patch:
        patch_failure(patch, module, name, value)
        refused(lambda: runs.load_run(con, path))
    load_any_run(con, "next", pd.DataFrame({"query_id": ["q1"], "chunk_id": ["z"], "rank": [1]}))
    assert con.execute("SELECT run, query_id, listed FROM run_queries").fetchall() == [
        ("next", "q1", 1)
    ]


# ---------------------------------------------------------------- 4. every format, differential
def bad_runs(folder: Path) -> dict[str, object]:
    """One refused run of each format and shape, and of each reason for a refusal."""
    folder.mkdir()
    parquet = folder / "bad.parquet"
    pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "rank": [1, 1]}).to_parquet(parquet)
    jsonl_line = json.dumps({"id": "q1", "retrieved": [{"chunk_id": "a", "rank": "x"}]}) + "\n"
    return {
        "csv": write_text(folder / "bad.csv", "qid,docno,rank\nq1,a,1\nq1,b,x\n"),
        "tsv": write_text(folder / "bad.tsv", "qid\tdocno\trank\nq1\ta\t1\nq1\ta\t2\n"),
        "csv config": aliased_csv(folder, "cfg", config="{not json"),
        "parquet": parquet,
        "jsonl": write_text(folder / "bad.jsonl", jsonl_line),
        "jsonl two lines": write_jsonl(folder / "two.jsonl", REPEATED_JSONL),
        "trec": write_text(folder / "bad.trec", "q1 Q0 a 1 0.9 t\nq1 Q0 b x 0.5 t\n"),
        "trec repeated": write_text(folder / "rep.trec", REPEATED_TREC),
        "frame": pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "rank": [1, "x"]}),
        "records": {"q1": {"a": "x"}},
        "lists": {"q1": ["a", "a"]},
    }


def load_named(con: duckdb.DuckDBPyConnection, name: str, run: object) -> None:
    if isinstance(run, Path):
        runs.load_run(con, run)
    else:
        load_any_run(con, name, run)


def test_refused_runs_of_every_format_leave_the_workspace_as_the_good_runs_alone(tmp_path):
    """A good run, then a refused run of every format, then another good run: the
    connection holds exactly what loading the two good runs alone leaves."""
    good = write_jsonl(tmp_path / "good.jsonl", [run_row("q1", ["a", "b"])])
    later = aliased_csv(tmp_path, "later")
    clean, _ = fresh(tmp_path)
    runs.load_run(clean, good)
    runs.load_run(clean, later)
    con, _ = fresh(tmp_path)
    runs.load_run(con, good)
    failed = []
    for name, run in bad_runs(tmp_path / "bad").items():
        try:
            load_named(con, name, run)
        except InputError:
            continue
        failed.append(name)
    assert failed == []  # each of them was refused
    runs.load_run(con, later)
    assert snapshot(con) == snapshot(clean)
