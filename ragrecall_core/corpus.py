"""Loading the optional corpus: ``chunk_id, doc_id, section, text`` plus metadata.

It gives chunk text to drill-downs, the chunk-to-document map and the section of
every retrieved chunk. Without a corpus, a chunk id ``doc#chunk`` still maps to
its document (see :func:`doc_of_sql`).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from . import readers
from .checks import Check, duplicate_key, run_checks
from .errors import raise_if_any

KNOWN = ("chunk_id", "doc_id", "section", "text")

CHECKS = [
    Check("chunk_id IS NULL OR trim(chunk_id) = ''", "coalesce(chunk_id, '')", "a chunk_id"),
    duplicate_key("chunk_id", "chunk_id", "chunk id"),
]


def doc_of_sql(chunk: str) -> str:
    """SQL for the document of a chunk id when the corpus does not say: the part before '#'."""
    return f"split_part({chunk}, '#', 1)"


def load_corpus(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """Load the corpus file into ``corpus``; return the number of chunks."""
    readers.require_file(path)
    fmt = readers.detect_format(path)
    if fmt == readers.JSONL:
        raise_if_any(readers.stage_json_lines(con, path, "corpus_lines"))
        con.execute("DROP TABLE corpus_lines")
        con.execute(
            "CREATE OR REPLACE TEMP TABLE corpus_stage AS SELECT row_number() OVER () AS line, * "
            "FROM read_json($path, format='newline_delimited', union_by_name=true)",
            {"path": str(path)},
        )
        columns = [r[0] for r in con.execute("DESCRIBE corpus_stage").fetchall()]
    else:
        columns = readers.stage_table_file(con, path, fmt, "corpus_stage")
    readers.require_columns(path, columns, ("chunk_id",))
    for optional in ("doc_id", "section", "text"):
        if optional not in columns:
            con.execute(f"ALTER TABLE corpus_stage ADD COLUMN {optional} VARCHAR")
    raise_if_any(run_checks(con, "corpus_stage", CHECKS, path))
    extra = [c for c in columns if c not in KNOWN and c != "line"]
    metadata = (
        "to_json(struct_pack(" + ", ".join(f'"{c}" := "{c}"' for c in extra) + "))"
        if extra
        else "'{}'::JSON"
    )
    con.execute(
        f"""
        INSERT INTO corpus
        SELECT CAST(chunk_id AS VARCHAR),
               coalesce(CAST(doc_id AS VARCHAR), {doc_of_sql("CAST(chunk_id AS VARCHAR)")}),
               CAST(section AS VARCHAR), CAST(text AS VARCHAR), {metadata}
        FROM corpus_stage
        """
    )
    con.execute("DROP TABLE corpus_stage")
    return con.execute("SELECT count(*) FROM corpus").fetchone()[0]
