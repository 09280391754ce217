"""SQL injection through corpus metadata: crafted JSON-lines keys, CSV headers and Parquet
column names.

Every corpus field other than ``chunk_id, doc_id, section, text`` is metadata. The keys are
the attacker's text: they must arrive as plain metadata keys, byte for byte, and change no
gold label, no number and no gate result.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from ragrecall_core import Workspace, evaluate
from ragrecall_core.inputs.sql import quote_identifier
from tests.helpers import gold_row, load_problems, run_cli, run_row, write_jsonl, write_text

DELETE_GOLD = (
    "m\" := 1)) FROM corpus_stage; DELETE FROM qrels WHERE query_id = 'q2'; SELECT 1 AS y --"
)
READ_FILE = (
    "m\" := (SELECT content FROM read_text('/etc/hostname')))) FROM corpus_stage; SELECT 1 AS y --"
)
CRAFTED_KEYS = [
    DELETE_GOLD,
    READ_FILE,
    'a"b',
    "it's",
    "x)) FROM corpus_stage --",
    "DROP TABLE qrels",
    "line",
    "",
    "clé ünïcødé",
    "new\nline",
]


def write_case(folder: Path) -> tuple[Path, Path]:
    """q1 is found, q2 is not: Recall@5 = 0.5, so a ">= 0.9" gate fails."""
    gold = write_jsonl(folder / "gold.jsonl", [gold_row("q1", ["a"]), gold_row("q2", ["b"])])
    run = write_jsonl(folder / "run.jsonl", [run_row("q1", ["a"]), run_row("q2", ["x"])])
    return gold, run


def corpus_rows(key: str) -> list[dict]:
    return [
        {"chunk_id": "a", "text": "alpha", key: "kept"},
        {"chunk_id": "b", "text": "beta", key: 7},
        {"chunk_id": "x", "text": "other"},
    ]


def stored_metadata(workspace: Workspace) -> dict[str, dict]:
    rows = workspace.cursor().execute("SELECT chunk_id, metadata FROM corpus").fetchall()
    return {chunk: json.loads(metadata) for chunk, metadata in rows}


def gate(capsys, gold: Path, run: Path, corpus: Path) -> tuple[int, str]:
    code, out, err = run_cli(
        capsys, ["check", gold, run, "--require", "Recall@5>=0.9", "--corpus", corpus]
    )
    assert "Traceback" not in err
    return code, out


@pytest.mark.parametrize("key", CRAFTED_KEYS)
def test_crafted_jsonl_key_is_plain_metadata_and_changes_no_gate(tmp_path, capsys, key):
    gold, run = write_case(tmp_path)
    corpus = write_jsonl(tmp_path / "corpus.jsonl", corpus_rows(key))

    code, out = gate(capsys, gold, run, corpus)

    assert code == 1 and "FAILED" in out and "Recall@5 = 0.5000" in out
    workspace = Workspace.from_files(gold, [run], corpus=corpus)
    assert stored_metadata(workspace) == {"a": {key: "kept"}, "b": {key: 7}, "x": {}}
    assert workspace.cursor().execute("SELECT count(*) FROM qrels").fetchone()[0] == 2


def test_key_calling_read_text_copies_no_local_file(tmp_path):
    gold, run = write_case(tmp_path)
    secret = write_text(tmp_path / "secret.txt", "s3cr3t-content")
    key = READ_FILE.replace("/etc/hostname", str(secret))
    corpus = write_jsonl(tmp_path / "corpus.jsonl", corpus_rows(key))

    workspace = Workspace.from_files(gold, [run], corpus=corpus)

    dumped = workspace.cursor().execute("SELECT string_agg(metadata::VARCHAR) FROM corpus")
    assert "s3cr3t-content" not in dumped.fetchone()[0]
    assert stored_metadata(workspace)["a"] == {key: "kept"}


def test_crafted_csv_header_is_plain_metadata_and_changes_no_gate(tmp_path, capsys):
    gold, run = write_case(tmp_path)
    header = '"' + DELETE_GOLD.replace('"', '""') + '"'
    corpus = write_text(
        tmp_path / "corpus.csv", f"chunk_id,text,{header}\na,alpha,kept\nb,beta,7\nx,other,\n"
    )

    code, out = gate(capsys, gold, run, corpus)

    assert code == 1 and "FAILED" in out
    workspace = Workspace.from_files(gold, [run], corpus=corpus)
    assert stored_metadata(workspace) == {
        "a": {DELETE_GOLD: "kept"},
        "b": {DELETE_GOLD: "7"},
        "x": {DELETE_GOLD: None},
    }


def test_crafted_parquet_column_is_plain_metadata_and_changes_no_gate(tmp_path, capsys):
    gold, run = write_case(tmp_path)
    corpus = tmp_path / "corpus.parquet"
    writer = duckdb.connect()
    writer.execute(
        "CREATE TABLE c AS SELECT * FROM (VALUES ('a', 'alpha', 1), ('b', 'beta', 2), "
        "('x', 'other', 3)) t(chunk_id, text, placeholder)"
    )
    writer.execute(f"ALTER TABLE c RENAME COLUMN placeholder TO {quote_identifier(READ_FILE)}")
    writer.execute("COPY c TO $p (FORMAT parquet)", {"p": str(corpus)})

    code, out = gate(capsys, gold, run, corpus)

    assert code == 1 and "FAILED" in out
    workspace = Workspace.from_files(gold, [run], corpus=corpus)
    assert stored_metadata(workspace) == {
        "a": {READ_FILE: 1},
        "b": {READ_FILE: 2},
        "x": {READ_FILE: 3},
    }


def test_corpus_metadata_leaves_every_number_unchanged(tmp_path):
    gold, run = write_case(tmp_path)
    plain = write_jsonl(tmp_path / "plain.jsonl", corpus_rows("note"))
    crafted = write_jsonl(tmp_path / "crafted.jsonl", corpus_rows(DELETE_GOLD))
    measures = ["Recall@5", "MRR@5", "nDCG@5", "P@5", "Judged@5"]

    expected = evaluate(Workspace.from_files(gold, [run], corpus=plain), measures).aggregate
    attacked = evaluate(Workspace.from_files(gold, [run], corpus=crafted), measures).aggregate

    assert expected.to_dict("records") == attacked.to_dict("records")
    assert expected.value.notna().all()


@pytest.mark.parametrize(
    ("field", "value"),
    [("chunk_id", 5), ("chunk_id", None), ("doc_id", ["d"]), ("section", 3), ("text", {"t": 1})],
)
def test_known_corpus_field_of_the_wrong_type_is_refused(tmp_path, field, value):
    gold, run = write_case(tmp_path)
    rows = [{"chunk_id": "a", "text": "alpha"}, {"chunk_id": "b", "text": "beta", field: value}]
    corpus = write_jsonl(tmp_path / "corpus.jsonl", rows)

    problems = load_problems(gold, [run], corpus=corpus)

    assert [(p.file, p.line) for p in problems] == [(str(corpus), 2)]
    assert field in problems[0].expected


@pytest.mark.parametrize("name", [*filter(None, CRAFTED_KEYS), '"', '""', 'a""b'])
def test_quoted_identifier_names_exactly_one_column(name):
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t ({quote_identifier(name)} INTEGER, other INTEGER)")
    con.execute(f"INSERT INTO t ({quote_identifier(name)}) VALUES (1)")

    assert [row[0] for row in con.execute("DESCRIBE t").fetchall()] == [name, "other"]
    assert con.execute(f"SELECT {quote_identifier(name)} FROM t").fetchall() == [(1,)]


@pytest.mark.parametrize("name", ["", "a\x00b"])
def test_a_name_that_cannot_be_an_identifier_is_refused(name):
    with pytest.raises(ValueError, match="non-empty and hold no NUL"):
        quote_identifier(name)


def test_a_key_twice_on_one_corpus_line_is_refused(tmp_path):
    """Two values for one field: which one counts would be the reader's choice, not the file's."""
    gold, run = write_case(tmp_path)
    corpus = write_text(
        tmp_path / "corpus.jsonl",
        '{"chunk_id": "a", "text": "alpha"}\n'
        '{"chunk_id": "b", "note": 1, "chunk_id": "x", "note": 2}\n',
    )

    problems = load_problems(gold, [run], corpus=corpus)

    assert [(p.line, p.value) for p in problems] == [(2, "chunk_id, note")]
    assert "once" in problems[0].expected


def test_a_csv_corpus_column_named_line_is_kept_as_metadata(tmp_path):
    """The staged row number never shadows or renames a file's own ``line`` column."""
    corpus = tmp_path / "corpus.csv"
    corpus.write_text("chunk_id,text,line\nd#1,hello,42\n", "utf-8")
    gold = write_jsonl(
        tmp_path / "gold.jsonl", [{"id": "q", "query": "x", "relevant_ids": ["d#1"]}]
    )
    run = write_jsonl(
        tmp_path / "r.jsonl", [{"id": "q", "retrieved": [{"chunk_id": "d#1", "rank": 1}]}]
    )
    ws = Workspace.from_files(gold, [run], corpus=corpus)
    (metadata,) = ws.cursor().execute("SELECT metadata::VARCHAR FROM corpus").fetchone()
    assert json.loads(metadata) == {"line": "42"}
