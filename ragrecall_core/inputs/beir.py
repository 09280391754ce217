"""A BEIR-layout folder as the gold set and corpus (BEIR, MTEB retrieval tasks,
sentence-transformers' evaluators)::

    corpus.jsonl          {"_id", "title", "text", ...}   one document per line
    queries.jsonl         {"_id", "text", ...}            every query of every split
    qrels/<split>.tsv     query-id <TAB> corpus-id <TAB> score, under that header

Each qrels file is a split (``qrels/test.tsv`` is split ``test``); a query's text comes
from ``queries.jsonl``; a document is one chunk (its ``_id`` is chunk and document id),
its ``title`` and any other field kept as corpus metadata. The qrels rows go through the
long-form gold checks, file by file, so every problem names its file and line; a negative
score is kept, as trec_eval (and pytrec_eval, which BEIR scores with) keeps it: in the pool
but unjudged, never relevant.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from ragrecall_core.errors import Problem, raise_if_any
from ragrecall_core.inputs import gold, readers
from ragrecall_core.inputs.checks import (
    Check,
    duplicate_key,
    is_whole_number,
    repeated_keys,
    run_checks,
    string_field,
)
from ragrecall_core.inputs.secrets import redact_path

QRELS_HEADER = ("query-id", "corpus-id", "score")

# the long-form gold checks, a score allowed below 0 (trec_eval: in the pool, unjudged)
SCORE_CHECK = Check(
    f"grade IS NOT NULL AND NOT coalesce({is_whole_number('grade', negative=True)} "
    "AND TRY_CAST(TRY_CAST(grade AS DOUBLE) AS INTEGER) IS NOT NULL, false)",
    "CAST(grade AS VARCHAR)",
    "a grade that is a whole number, 0 or more (also negative: unjudged, as trec_eval reads it)",
)
QRELS_CHECKS = [c for c in gold.LONG_CHECKS if c.value != SCORE_CHECK.value] + [SCORE_CHECK]

RECORD_CHECKS = [
    repeated_keys(),
    *string_field("_id"),
    *string_field("text", required=False),
    *string_field("title", required=False),
    duplicate_key("'\"_id\": ' || (j->>'$._id')", "j->>'$._id'", "_id"),
]

# one qrels file's rows as the long-form gold loader stages them; $split is the file's stem
QRELS_AS_GOLD = """
CREATE OR REPLACE TEMP TABLE beir_gold_{n} AS
SELECT line, CAST(struct_extract(rec, 'query-id') AS VARCHAR) AS query_id,
       CAST(struct_extract(rec, 'corpus-id') AS VARCHAR) AS chunk_id,
       CAST(struct_extract(rec, 'score') AS VARCHAR) AS grade,
       NULL::VARCHAR AS query, NULL::VARCHAR AS query_type, NULL::VARCHAR AS section,
       $split AS split, NULL::VARCHAR AS rationale
FROM beir_qrels
"""

# a query in two qrels files would belong to two splits: the later file's rows are named
QUERY_IN_TWO_SPLITS = """
SELECT b.file, min(b.line), b.query_id, min(a.file) FROM beir_gold_all a
JOIN beir_gold_all b ON a.query_id = b.query_id AND a.file < b.file
GROUP BY b.file, b.query_id ORDER BY 1, 2 LIMIT 1000
"""

# a qrels query that queries.jsonl does not list would have no text
QUERY_NOT_LISTED = """
SELECT file, line, query_id FROM beir_gold_all
WHERE query_id NOT IN (SELECT j->>'$._id' FROM beir_queries WHERE j->>'$._id' IS NOT NULL)
ORDER BY 1, 2 LIMIT 1000
"""

QUERY_TEXT = """
UPDATE queries SET query = q.j->>'$.text',
       metadata = json_merge_patch(q.j, '{"_id": null, "text": null}')
FROM beir_queries q WHERE q.j->>'$._id' = queries.query_id
"""

CORPUS_INSERT = """
INSERT INTO corpus
SELECT j->>'$._id', j->>'$._id', NULL, j->>'$.text',
       json_merge_patch(j, '{"_id": null, "text": null}'), line
FROM beir_corpus
"""


def is_beir_folder(root: Path) -> bool:
    return (
        (root / "qrels").is_dir()
        and (root / "queries.jsonl").is_file()
        and (root / "corpus.jsonl").is_file()
    )


def beir_files(root: Path) -> list[Path]:
    """Every file of the layout that is read: queries, corpus, then the qrels by name."""
    qrels = sorted(p for p in (root / "qrels").glob("*.tsv") if not p.name.startswith("."))
    return [root / "queries.jsonl", root / "corpus.jsonl", *qrels]


def load_beir(con: duckdb.DuckDBPyConnection, root: Path) -> None:
    """Load the folder's qrels into ``queries`` / ``qrels`` and its corpus into ``corpus``;
    every problem of every file at once. Its staging tables go, loaded or refused
    (:func:`~ragrecall_core.inputs.readers.staging`)."""
    queries, corpus, *qrels = beir_files(root)
    if not qrels:
        raise_if_any(
            [Problem(redact_path(root / "qrels"), None, "no .tsv file", "qrels/<split>.tsv")]
        )
    staged = [*STAGING_TABLES, *(f"beir_gold_{n}" for n in range(len(qrels)))]
    with readers.staging(con, staged):
        _load(con, queries, corpus, qrels)


# the tables a BEIR folder's read stages its files in, besides one beir_gold_<n> per qrels file
STAGING_TABLES = (
    "beir_queries",
    "beir_queries_all",
    "beir_corpus",
    "beir_corpus_all",
    "beir_qrels",
    "beir_gold_all",
    "gold_stage",
)


def _load(con: duckdb.DuckDBPyConnection, queries: Path, corpus: Path, qrels: list[Path]) -> None:
    """Stage and check every file of the folder, then insert the gold and the corpus."""
    problems = _stage_records(con, queries, "beir_queries")
    problems += _stage_records(con, corpus, "beir_corpus")
    for n, path in enumerate(qrels):
        problems += _stage_qrels(con, path, n)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE beir_gold_all AS "
        + " UNION ALL ".join(f"SELECT {n} AS file, * FROM beir_gold_{n}" for n in range(len(qrels)))
    )
    problems += [
        Problem(
            redact_path(qrels[later]),
            line,
            query_id,
            f"a query of one split only (also in {redact_path(qrels[first].name)})",
        )
        for later, line, query_id, first in con.execute(QUERY_IN_TWO_SPLITS).fetchall()
    ]
    problems += [
        Problem(redact_path(qrels[n]), line, query_id, "a query id that queries.jsonl lists")
        for n, line, query_id in con.execute(QUERY_NOT_LISTED).fetchall()
    ]
    raise_if_any(problems)
    con.execute("ALTER TABLE beir_gold_all DROP COLUMN file")
    con.execute("CREATE OR REPLACE TEMP TABLE gold_stage AS SELECT * FROM beir_gold_all")
    con.execute(gold.GOLD_LONG_INSERT)
    con.execute(QUERY_TEXT)
    con.execute(CORPUS_INSERT)


def _stage_records(con: duckdb.DuckDBPyConnection, path: Path, table: str) -> list[Problem]:
    """Stage ``table(line, j)`` from a JSON-lines file of ``_id`` records, with its problems."""
    readers.require_file(path)
    problems = readers.stage_json_lines(con, path, table)
    return sorted(problems + run_checks(con, table, RECORD_CHECKS, path), key=_line)


def _stage_qrels(con: duckdb.DuckDBPyConnection, path: Path, n: int) -> list[Problem]:
    """Stage one qrels file as ``beir_gold_<n>`` and check it as long-form gold."""
    readers.require_file(path)
    columns = readers.stage_table_rows(con, path, readers.CSV, "beir_qrels")
    readers.require_columns(path, columns, QRELS_HEADER)
    con.execute(QRELS_AS_GOLD.format(n=n), {"split": path.stem})
    return run_checks(con, f"beir_gold_{n}", QRELS_CHECKS, path)


def _line(problem: Problem) -> int:
    return problem.line or 0
