"""A refused gold, grades or corpus file leaves nothing behind in its connection (stop 46),
as a refused run does since stop 45 (``test_refused_run_leaves_nothing.py``).

A workspace goes on reading its other files after one is refused (every problem is
reported at once), and a session's upload reads into a connection that lives on: a
staging table a refused read left (``gold_stage``, ``grades_stage``, ``corpus_fields``...)
held the refused file's rows for the connection's life. Each case lists the connection's
tables and views, with their rows, before and after a refused read: they must be the same.
A file that loads leaves its rows in the input's own tables and no staging table either.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from ragrecall_core import InputError
from ragrecall_core.inputs.corpus import load_corpus
from ragrecall_core.inputs.db import connect
from ragrecall_core.inputs.gold import load_gold
from ragrecall_core.inputs.grades import load_grades
from tests.helpers import write_text

LOADERS = {"gold": load_gold, "grades": load_grades, "corpus": load_corpus}

GOOD = {
    "gold": ("gold.jsonl", '{"id": "q1", "query": "x", "relevant_ids": ["a"]}\n'),
    "grades": ("kim.jsonl", '{"query_id": "q1", "chunk_id": "a", "grade": 2}\n'),
    "corpus": ("corpus.jsonl", '{"chunk_id": "a", "text": "alpha"}\n'),
}

# (kind, file name, text): each refused at another step of its read
REFUSED = {
    "gold jsonl, a bad field": ("gold", "gold.jsonl", '{"id": "q1", "query": "x"}\n'),
    "gold jsonl, not JSON": ("gold", "gold.jsonl", "not json\n"),
    "gold qrels, a bad grade": ("gold", "gold.qrels", "q1 0 a x\n"),
    "gold csv, no chunk column": ("gold", "gold.csv", "query_id,text\nq1,x\n"),
    "gold csv, a bad grade": ("gold", "gold.csv", "query_id,chunk_id,grade\nq1,a,1.5\n"),
    "gold csv, a row too long": ("gold", "gold.csv", "query_id,chunk_id\nq1,a,extra\n"),
    "grades jsonl, a bad grade": (
        "grades",
        "kim.jsonl",
        '{"query_id": "q1", "chunk_id": "a", "grade": 3}\n',
    ),
    "grades csv, no grade column": ("grades", "kim.csv", "query_id,chunk_id\nq1,a\n"),
    "grades csv, a repeat": ("grades", "kim.csv", "query_id,chunk_id,grade\nq1,a,2\nq1,a,0\n"),
    "corpus jsonl, a repeated chunk": (
        "corpus",
        "corpus.jsonl",
        '{"chunk_id": "a"}\n{"chunk_id": "a"}\n',
    ),
    "corpus csv, no chunk column": ("corpus", "corpus.csv", "id,text\na,alpha\n"),
    "corpus csv, an empty chunk id": ("corpus", "corpus.csv", "chunk_id,text\n,alpha\n"),
}


def snapshot(con: duckdb.DuckDBPyConnection) -> dict:
    """Every table (in memory and temporary) with its rows, and every view."""
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


def temp_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [
        name
        for (name,) in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = 'temp' ORDER BY 1"
        ).fetchall()
    ]


@pytest.mark.parametrize("case", REFUSED)
def test_a_refused_file_leaves_the_connection_as_it_was(tmp_path: Path, case: str):
    kind, name, text = REFUSED[case]
    con = connect()
    before = snapshot(con)
    with pytest.raises(InputError):
        LOADERS[kind](con, write_text(tmp_path / name, text))
    assert snapshot(con) == before


@pytest.mark.parametrize("case", REFUSED)
def test_a_refused_file_leaves_what_was_loaded_before_it(tmp_path: Path, case: str):
    """The same, after a good file of the same kind loaded into the connection."""
    kind, name, text = REFUSED[case]
    con = connect()
    good_name, good_text = GOOD[kind]
    LOADERS[kind](con, write_text(tmp_path / "good" / good_name, good_text))
    before = snapshot(con)
    with pytest.raises(InputError):
        LOADERS[kind](con, write_text(tmp_path / name, text))
    assert snapshot(con) == before


@pytest.mark.parametrize("kind", LOADERS)
def test_a_loaded_file_leaves_no_staging_table(tmp_path: Path, kind: str):
    con = connect()
    before = temp_tables(con)
    name, text = GOOD[kind]
    LOADERS[kind](con, write_text(tmp_path / name, text))
    assert temp_tables(con) == before


# in-memory gold (the Python API: records, a long DataFrame, a qrels mapping), each refused
# after it was staged
MEMORY_REFUSED = {
    "records, relevant_ids not a list": lambda: [{"id": "q1", "query": "x", "relevant_ids": "a"}],
    "records, a grade not a number": lambda: [
        {"id": "q1", "query": "x", "relevant_ids": ["a"], "grades": {"a": "x"}}
    ],
    "a frame, a negative grade": lambda: __import__("pandas").DataFrame(
        {"query_id": ["q1"], "chunk_id": ["a"], "grade": [-1]}
    ),
    "a qrels mapping, a fractional grade": lambda: {"q1": {"a": 1.5}},
}


@pytest.mark.parametrize("case", MEMORY_REFUSED)
def test_a_refused_in_memory_gold_leaves_the_connection_as_it_was(case: str):
    from ragrecall_core.inputs.memory import load_memory_gold

    con = connect()
    before = snapshot(con)
    with pytest.raises(InputError):
        load_memory_gold(con, MEMORY_REFUSED[case]())
    assert snapshot(con) == before


@pytest.mark.parametrize("refused", [False, True])
def test_a_beir_folder_leaves_no_staging_table(tmp_path: Path, refused: bool):
    """A BEIR folder's read (queries, corpus, a qrels file per split) stages each file;
    loaded or refused, none of its staging tables stays."""
    from ragrecall_core.inputs.beir import load_beir
    from tests.test_beir import beir_folder

    root = beir_folder(tmp_path / "beir")
    if refused:
        (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1.5\n")
    con = connect()
    tables = temp_tables(con)
    if refused:
        with pytest.raises(InputError):
            load_beir(con, root)
    else:
        load_beir(con, root)
    assert temp_tables(con) == tables
