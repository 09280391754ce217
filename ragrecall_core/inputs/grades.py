"""Loading manual grades into the ``grades`` table.

Rows ``query_id, chunk_id, grade, harmful, reason, annotator`` as JSON lines or
CSV / Parquet. Grade 2 = relevant, 1 = partially relevant, 0 = not relevant;
``harmful`` marks a convincing but outdated or contradicting chunk. A row
without an annotator (or a blank one) takes the file's stem as the annotator's name;
names are trimmed, as the judgment store trims them.

One file grades a (query, chunk) once per annotator, the annotator as it is stored: a
row by ``kim`` and a row without an annotator in ``kim.csv`` repeat each other, whether
their grades agree (it would be stored twice) or not (which one counts would be a
guess). Either is refused, naming both lines. So is the same (query, chunk, annotator)
in two files of one workspace (:func:`repeated_across_files`): each would be a vote of that
annotator in the reviewers' median.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb

from ragrecall_core.errors import Problem, gather, raise_if_any
from ragrecall_core.inputs import readers
from ragrecall_core.inputs.checks import (
    Check,
    duplicate_key,
    repeated_keys,
    run_checks,
    string_field,
)
from ragrecall_core.inputs.secrets import redact_path

# the annotator a row is stored under: its own, trimmed, else the file's stem ($annotator)
STORED_ANNOTATOR = "coalesce(nullif(trim({written}), ''), $annotator)"
# a grade is written 0, 1 or 2 in every format: a JSON integer, a CSV cell (spaces around it
# allowed, as JSON allows them around a value), a Parquet integer or text. Never 2.0, +2, -0
# or 02: one sheet exported two ways must load the same or be refused the same.
GRADE_EXPECTED = "a grade of 2 (relevant), 1 (partial) or 0 (not relevant)"
# JSON's -0, which DuckDB reads as the integer 0 (and writes back as 0), typed BIGINT: an
# integer written without a sign is typed UBIGINT, and -0 is the one signed way to write 0
NEGATIVE_ZERO = "(json_type(j, '$.grade') = 'BIGINT' AND (j->>'$.grade') = '0')"
TRIPLE = "(query, chunk, annotator) triple (a row without an annotator is the file stem's)"

JSONL_CHECKS = [
    repeated_keys(),
    *string_field("query_id"),
    *string_field("chunk_id"),
    Check(
        "coalesce(json_type(j, '$.grade') NOT IN ('BIGINT', 'UBIGINT'), true) "
        f"OR (j->>'$.grade') NOT IN ('0', '1', '2') OR {NEGATIVE_ZERO}",
        f"'\"grade\": ' || CASE WHEN {NEGATIVE_ZERO} THEN '-0' "
        "ELSE coalesce(json_extract(j, '$.grade')::VARCHAR, 'missing') END",
        GRADE_EXPECTED,
        field="grade",
    ),
    Check(
        "json_type(j, '$.harmful') NOT IN ('BOOLEAN', 'NULL')",
        "'\"harmful\": ' || json_extract(j, '$.harmful')",
        '"harmful" to be true or false',
        field="harmful",
    ),
    *string_field("reason", required=False),
    *string_field("annotator", required=False),
    duplicate_key(
        "(j->>'$.query_id') || ' ' || (j->>'$.chunk_id') || ' by ' || annotator",
        "j->>'$.query_id', j->>'$.chunk_id', annotator",
        TRIPLE,
    ),
]

LONG_COLUMNS = ("query_id", "chunk_id", "grade", "harmful", "reason", "annotator")
LONG_CHECKS = [
    Check("query_id IS NULL OR trim(query_id) = ''", "coalesce(query_id, '')", "a query_id"),
    Check("chunk_id IS NULL OR trim(chunk_id) = ''", "coalesce(chunk_id, '')", "a chunk_id"),
    Check(
        "grade IS NULL OR trim(grade) NOT IN ('0', '1', '2')",
        "'grade ' || coalesce(grade, 'missing')",
        GRADE_EXPECTED,
    ),
    Check(
        "harmful IS NOT NULL AND trim(harmful) <> '' AND TRY_CAST(harmful AS BOOLEAN) IS NULL",
        "'harmful ' || harmful",
        "harmful to be true or false",
    ),
    duplicate_key(
        "query_id || ' ' || chunk_id || ' by ' || annotator",
        "query_id, chunk_id, annotator",
        TRIPLE,
    ),
]


def load_grades(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """Load one grades file into ``grades``; return how many rows it added. Its staging
    tables go, whether it loads or not (:func:`~ragrecall_core.inputs.readers.staging`)."""
    readers.require_file(path)
    fmt = readers.detect_format(path)
    with readers.staging(con, STAGING_TABLES):
        return _load(con, path, fmt)


def load_grade_files(con: duckdb.DuckDBPyConnection, paths: Sequence[Path]) -> list[Problem]:
    """Load every grades file into ``grades``; the problems of those that did not load and
    the (query, chunk, annotator) triples two of them grade (:func:`repeated_across_files`),
    all together. Every reader of several grades files reads them through this."""
    problems = gather(paths, lambda path: load_grades(con, Path(path)))[1]
    return problems + repeated_across_files(con) + look_alike_annotators(con)


# the tables a grades file's read stages its rows in (readers.stage_*)
STAGING_TABLES = ("grades_stage", "grades_stage_all")


def _load(con: duckdb.DuckDBPyConnection, path: Path, fmt: str) -> int:
    """Stage, check and insert the grades file ``path`` of format ``fmt``."""
    params = {"source": str(path)}
    if fmt == readers.JSONL:
        problems = readers.stage_json_lines(con, path, "grades_stage")
        problems = problems or _no_rows(con, path)  # bad lines first: they are the cause
        _name_annotators(con, "*", "j->>'$.annotator'", path)
        problems += run_checks(con, "grades_stage", JSONL_CHECKS, path)
        raise_if_any(sorted(problems, key=lambda p: p.line or 0))
        return con.execute(
            """
            INSERT INTO grades
            SELECT j->>'$.query_id', j->>'$.chunk_id', (j->>'$.grade')::INTEGER,
                   coalesce((j->>'$.harmful')::BOOLEAN, false), coalesce(j->>'$.reason', ''),
                   annotator, $source
            FROM grades_stage
            """,
            params,
        ).fetchone()[0]  # an INSERT's result: the number of rows it added
    columns = readers.stage_table_rows(con, path, fmt, "grades_stage")
    readers.require_columns(path, columns, ("query_id", "chunk_id", "grade"))
    raise_if_any(_no_rows(con, path))
    ids = ("query_id", "chunk_id")
    raise_if_any(readers.own_name_type_problems(con, path, fmt, columns, ids))
    readers.keep_as_text(con, "grades_stage", columns, LONG_COLUMNS)
    _name_annotators(con, "* EXCLUDE (annotator)", "annotator", path)
    raise_if_any(run_checks(con, "grades_stage", LONG_CHECKS, path))
    return con.execute(
        """
        INSERT INTO grades
        SELECT query_id, chunk_id, CAST(trim(grade) AS INTEGER),
               coalesce(TRY_CAST(nullif(trim(harmful), '') AS BOOLEAN), false),
               coalesce(reason, ''), annotator, $source
        FROM grades_stage
        """,
        params,
    ).fetchone()[0]


def _no_rows(con: duckdb.DuckDBPyConnection, path: Path) -> list[Problem]:
    """A file that stages no row (a CSV header alone, JSON lines all blank or comments) as
    a problem: it would load as no grade at all, and every number read with it would look
    as if its grades had been applied. An empty file is refused the same way."""
    if con.execute("SELECT count(*) FROM grades_stage").fetchone()[0]:
        return []
    return [Problem(redact_path(path), None, "no grade rows", "at least one grade")]


def _name_annotators(con: duckdb.DuckDBPyConnection, kept: str, written: str, path: Path) -> None:
    """Give every staged row the ``annotator`` it is stored under (:data:`STORED_ANNOTATOR`:
    ``written``, else the file's stem), before the checks: a repeated (query, chunk,
    annotator) is one as stored, not as written. ``kept``/``written`` are SQL constants."""
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE grades_stage AS SELECT {kept}, "
        f"{STORED_ANNOTATOR.format(written=written)} AS annotator FROM grades_stage",
        {"annotator": path.stem},
    )


# a (query, chunk, annotator) graded by two files of one workspace, the first few of them
ACROSS_FILES_SQL = """
SELECT query_id, chunk_id, annotator, list(DISTINCT source ORDER BY source) AS sources
FROM grades GROUP BY query_id, chunk_id, annotator
HAVING count(DISTINCT source) > 1
ORDER BY query_id, chunk_id, annotator
LIMIT $limit
"""


def repeated_across_files(con: duckdb.DuckDBPyConnection) -> list[Problem]:
    """One grade per (query, chunk, annotator) across every grades file loaded into
    ``grades``, as within one: two files of one annotator grading a chunk (an export made
    twice, a round judged again) would count as two of their votes, whether they agree or
    not. Each repeat names its later file and the earlier one."""
    rows = con.execute(ACROSS_FILES_SQL, {"limit": readers.MAX_PROBLEMS}).fetchall()
    return [
        Problem(
            redact_path(sources[-1]),
            None,
            f"{query_id} {chunk_id} by {annotator}",
            f"one grade per (query, chunk, annotator) across the grades files "
            f"({', '.join(map(redact_path, sources[:-1]))} grades it too)",
        )
        for query_id, chunk_id, annotator, sources in rows
    ]


# the one name a reader sees in an annotator's spelling (``{name}``: SQL of a name): two
# spellings equal under it are look-alikes, here and in the judgment store (store.py)
SAME_NAME = "lower(nfc_normalize({name}))"
# annotator names that are one name to a reader (SAME_NAME) but two as text: each spelling
# with the first file that writes it, the first few groups
LOOK_ALIKE_SQL = f"""
WITH spelled AS (
    SELECT annotator, min(source) AS source, {SAME_NAME.format(name="annotator")} AS name
    FROM grades GROUP BY annotator)
SELECT list(annotator ORDER BY annotator), list(source ORDER BY annotator)
FROM spelled GROUP BY name HAVING count(*) > 1
ORDER BY name
LIMIT $limit
"""


def look_alike_annotators(con: duckdb.DuckDBPyConnection) -> list[Problem]:
    """Annotator names that differ only in case or Unicode normalisation (``René`` written
    precomposed in one file, with a combining accent in another): shown alike, they would
    be two annotators, agreeing with each other in the agreement table and casting two
    votes in the reviewers' median. Neither spelling is surely the other's, so both are
    refused (never merged), each shown with its non-ASCII code points so the difference is
    visible, naming the file that writes the other."""
    rows = con.execute(LOOK_ALIKE_SQL, {"limit": readers.MAX_PROBLEMS}).fetchall()
    return [
        Problem(
            redact_path(source),
            None,
            f"annotator {spelling(name)}",
            look_alike_expected(
                [(o, redact_path(w)) for o, w in zip(names, sources, strict=True) if o != name]
            ),
        )
        for names, sources in rows
        for name, source in zip(names, sources, strict=True)
    ]


def look_alike_expected(others: Sequence[tuple[str, str]]) -> str:
    """What a look-alike annotator name should have been, naming each other spelling
    (``others``: name, where it is written) with its code points (:func:`spelling`)."""
    listed = ", ".join(f"{spelling(other)} in {where}" for other, where in others)
    return (
        "one spelling per annotator name, not one differing only in case or Unicode "
        f"normalisation from {listed}"
    )


def spelling(name: str) -> str:
    """``'René' (non-ASCII: U+00E9)``: a name with the code points that tell two look-alike
    spellings apart (an accent precomposed or combining looks the same on screen)."""
    wide = " ".join(f"U+{ord(char):04X}" for char in name if ord(char) > 127)
    return repr(name) + (f" (non-ASCII: {wide})" if wide else "")
