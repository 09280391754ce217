"""Reading files into staged DuckDB relations, and choosing their format.

The format is chosen from the file name and its first meaningful line, never
by a flag: ``.parquet`` is Parquet, ``.csv``/``.tsv`` is long-form CSV,
``.jsonl``/``.json``/``.ndjson`` is JSON lines; anything else is sniffed
(``{`` opens JSON lines, four columns are TREC qrels, six or more a TREC run).
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

import duckdb

from ragrecall_core.errors import MAX_VALUE_CHARS, InputError, Problem, raise_if_any
from ragrecall_core.inputs.secrets import redact_path, redact_text

JSONL, CSV, PARQUET, TREC_QRELS, TREC_RUN = "jsonl", "csv", "parquet", "trec_qrels", "trec_run"
TREC = "trec"  # either TREC layout, read as whitespace-separated fields
FORMAT_NAMES = {JSONL: "JSON lines", CSV: "CSV", PARQUET: "Parquet", TREC: "TREC"}

# The validating reads refuse a line of this many bytes or more (a JSON line of ~200,000
# ranked items; DuckDB's JSON reader takes objects up to 16 MiB). Their CSV reader's buffer
# must hold two such lines. The fast reads keep DuckDB's own line limit, 2 MB, and its
# smaller buffers: a longer line sends the file to the validating read.
MAX_LINE_BYTES = 16_000_000
LINE_LIMITS = f"max_line_size={MAX_LINE_BYTES}, buffer_size={2 * MAX_LINE_BYTES}"


# A file is scanned in slices of this many bytes, read into one buffer: a map of the whole
# file counted each page it touched in the process's memory, while the typed read began (a
# 350 MB JSONL run peaked at 747 MB during the scan; now at its read's own, 697-717 MB).
SCAN_SLICE = 1 << 20


def file_slices(path: Path, start: int = 0) -> Iterator[bytearray]:
    """The bytes of the file at ``path`` from byte ``start`` on, slice by slice
    (:data:`SCAN_SLICE`), each read into the same buffer: a slice is valid until the next is
    read."""
    buffer = bytearray(SCAN_SLICE)
    with path.open("rb", buffering=0) as handle:
        handle.seek(start)
        while size := handle.readinto(buffer):
            yield buffer if size == SCAN_SLICE else buffer[:size]


def slice_holds(data: bytearray, needles: Sequence[bytes], outside_ascii: bool) -> set:
    """Which of the single bytes ``needles`` ``data`` holds (memchr), and None if asked
    (``outside_ascii``) and it holds a byte outside ASCII."""
    held: set[bytes | None] = {needle for needle in needles if data.find(needle) >= 0}
    if outside_ascii and not data.isascii():
        held.add(None)
    return held


def bytes_held(
    path: Path,
    needles: Sequence[bytes],
    outside_ascii: bool = True,
    slices: int | None = None,
    start: int = 0,
) -> set[bytes | None]:
    """Which of the single bytes ``needles`` the file at ``path`` holds from byte ``start``
    on (in its first ``slices`` slices, if given), and, if asked (``outside_ascii``), None
    when it holds a byte outside ASCII (0.12-0.15 s for 250 MB)."""
    assert all(len(needle) == 1 for needle in needles)
    held: set[bytes | None] = set()
    for data in itertools.islice(file_slices(path, start), slices):
        left = [needle for needle in needles if needle not in held]
        held |= slice_holds(data, left, outside_ascii and None not in held)
    return held


def after_first_line(path: Path) -> int:
    """Where the second line of the file at ``path`` starts (0 when its first slice holds no
    line feed): a CSV file's rows, after its header (a header cut by a quoted line feed is
    partly taken as rows)."""
    with path.open("rb") as handle:
        return handle.read(SCAN_SLICE).find(b"\n") + 1


def lines_sql(options: str = "") -> str:
    """One VARCHAR column per physical line of ``$path``, read with the CSV reader's extra
    ``options``; blank lines stay (as NULL) so that row_number() is the line number.
    chr(1) never occurs in text files we accept."""
    return f"""
SELECT row_number() OVER () AS line, text
FROM read_csv($path, delim=chr(1), quote='', escape='', header=false,
              columns={{'text': 'VARCHAR'}}, auto_detect=false{options})
"""


FAST_LINES_SQL = lines_sql()
# FAST_LINES_SQL (DuckDB's default line limit) reads a line of fewer bytes than this
FAST_LINE_BYTES = 2_000_000  # more than a SCAN_SLICE: runs.json_bytes counts on it
LINES_SQL = lines_sql(f", {LINE_LIMITS}")

# DuckDB's line reader takes one line ending throughout a file: "\n", "\r\n" or "\r". Lines
# ended both ways, or a carriage return alone, stop it without a line number ("the CSV Parser
# state machine reached an invalid state"); such a file's lines are split on "\n" from its
# whole text instead (in memory at once: only for such files), each line's own "\r\n" read
# as its end and a byte order mark skipped, as the line reader reads them. A carriage
# return left inside a line is then its text: JSON takes it as whitespace between values
# (two objects on one line are refused, by line), never inside a string.
TEXT_LINES_SQL = """
SELECT line, nullif(text, '') AS text
FROM (SELECT line, CASE WHEN ends_with(text, chr(13)) THEN text[:-2] ELSE text END AS text
      FROM (SELECT generate_subscripts(parts, 1) AS line,
                   unnest(parts) AS text
            FROM (SELECT string_split(CASE WHEN starts_with(content, chr(65279))
                                           THEN content[2:] ELSE content END, chr(10)) AS parts
                  FROM read_text($path))))
"""
CR, LF = ord("\r"), ord("\n")


class LineEnds:
    """The line-ending bytes of a file read slice by slice (:meth:`add`): carriage returns,
    line feeds and "\r\n" pairs (one split across two slices too), counted in the slices
    that hold a carriage return (or follow one); of the others only whether one holds a line
    feed is kept (``bare``: memchr, not a count of every byte: 350 MB in 0.16 s, not 0.7)."""

    def __init__(self) -> None:
        self.returns = self.newlines = self.crlf = 0
        self.bare = False  # a line feed in a slice without a carriage return
        self.last = 0  # the last byte of the slice before

    def add(self, data: bytearray) -> None:
        if data.find(b"\r") >= 0 or self.last == CR:
            self.returns += data.count(b"\r")
            self.newlines += data.count(b"\n")
            self.crlf += data.count(b"\r\n") + (self.last == CR and data[:1] == b"\n")
        elif not self.bare:
            self.bare = data.find(b"\n") >= 0
        self.last = data[-1]

    @property
    def one_way(self) -> bool:
        """No carriage return, or every one the first half of a "\r\n" that ends each line
        (the last line may end without one)."""
        return self.returns == 0 or (self.returns == self.crlf == self.newlines and not self.bare)

    @property
    def mixed(self) -> bool:
        """Lines ended both ways: not :attr:`one_way`, in a file that has line feeds (one
        whose lines all end "\r", the line reader reads)."""
        return not self.one_way and (self.newlines > 0 or self.bare)


def ends_mixed(path: Path) -> bool:
    """Whether the file at ``path`` ends its lines both ways (:attr:`LineEnds.mixed`)."""
    ends = LineEnds()
    for data in file_slices(path):
        ends.add(data)
    return ends.mixed


def lines_source(path: Path) -> str:
    """The validating reads' lines of ``path``: :data:`LINES_SQL`, or :data:`TEXT_LINES_SQL`
    for a file whose line endings the line reader cannot split (:func:`ends_mixed`)."""
    return TEXT_LINES_SQL if ends_mixed(path) else LINES_SQL


MAX_PROBLEMS = 1000
CSV_ERROR_LINE = re.compile(r"CSV Error on Line: (\d+)\s*\nOriginal Line: ([^\n]*)")

# A comma before a closing bracket: a trailing comma, which DuckDB's JSON parser accepts and
# JSON does not, unless it is inside a string (Python's strict parser tells which).
TRAILING_COMMA = r",\s*[}\]]"

# What separates a TREC line's fields: C's whitespace, as trec_eval reads them (isspace:
# space, tab, vertical tab, form feed, carriage return; a line ends at "\n"), runs of it one
# separator. The one list of them: DuckDB's regular expressions (RE2), Python's, the fields'
# guard below and the typed read's separators (runs.TREC_OTHER_SEPARATORS) are made of it.
TREC_SPACE_CHARS = " \t\v\f\r"
TREC_SPACE = "[" + "".join(f"\\x{ord(c):02x}" for c in TREC_SPACE_CHARS) + "]"
TREC_SEPARATOR = re.compile(TREC_SPACE + "+")
# a line the plain split on one space would read otherwise: two spaces, or any other of them
_SPLIT_NEEDED = " OR ".join(
    ["contains(t, '  ')"] + [f"contains(t, chr({ord(c)}))" for c in TREC_SPACE_CHARS if c != " "]
)

# A TREC line's fields (``t``: the line trimmed), none of them empty: at the line's ends
# whitespace is no field (the empty strings the split leaves there are dropped); the regular
# expression only for lines that need it.
FIELDS_SQL = f"""
CASE WHEN {_SPLIT_NEEDED}
     THEN list_filter(regexp_split_to_array(t, '{TREC_SPACE}+'), lambda field: field <> '')
     ELSE string_split(t, ' ') END
"""


def file_stamp(path: Path) -> tuple | None:
    """(size, mtime, ctime, inode, device) of the file at ``path`` (None when it cannot be
    read): any write moves one of them (no one can set a ctime back), so two equal stamps
    taken around a read say it read one version of the file."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def require_file(path: Path) -> None:
    if not path.exists():
        raise InputError([Problem(redact_path(path), None, redact_path(path), "an existing file")])
    if path.is_dir():
        raise InputError([Problem(redact_path(path), None, "a folder", "a file")])
    if path.stat().st_size == 0:
        raise InputError([Problem(redact_path(path), None, "an empty file", "at least one record")])


def first_line(path: Path) -> str:
    """The file's first line that is neither blank nor a comment, stripped. Lines end at
    "\n", as trec_eval's and the validating reads' do (a carriage return before it or
    inside a line is whitespace), or at "\r" in a file whose lines all end so."""
    with path.open("rb") as handle:
        head = handle.read(SCAN_SLICE)
    ending = None if b"\r" in head and b"\n" not in head else "\n"
    with path.open("r", encoding="utf-8-sig", errors="replace", newline=ending) as handle:
        for raw in handle:
            line = raw.strip()
            if line and not line.startswith("#"):
                return line
    return ""


@contextmanager
def reading(path: Path, fmt: str) -> Iterator[None]:
    """Turn DuckDB's failure to read ``path`` into an :class:`InputError` naming each bad line
    (bytes that are not UTF-8, a line over the line limit), never DuckDB's own message, which
    quotes kilobytes of the file."""
    try:
        yield
    except duckdb.Error as error:
        raise InputError(read_problems(path, fmt, error)) from None


@contextmanager
def staging(con: duckdb.DuckDBPyConnection, tables: Sequence[str]) -> Iterator[None]:
    """A file's read whose staging ``tables`` go when it ends, whether it loads or not: a
    refused file leaves nothing behind (a workspace reads its other files on, an upload's
    connection lives on), a loaded one nothing but its rows. A drop that fails after a
    refusal never takes the refusal's place."""
    try:
        yield
    except BaseException:
        with suppress(duckdb.Error):
            drop_tables(con, tables)
        raise
    drop_tables(con, tables)


def drop_tables(con: duckdb.DuckDBPyConnection, tables: Sequence[str]) -> None:
    """Drop each of ``tables`` where it exists (names of this package's own, never a file's)."""
    con.execute("; ".join(f"DROP TABLE IF EXISTS {name}" for name in tables))


OUT_OF_MEMORY = (
    "a larger --memory-limit (or $RAGRECALL_MEMORY_LIMIT), or more free disk to spill to: "
    "DuckDB ran out of memory loading this file"
)


@contextmanager
def within_memory(path: Path) -> Iterator[None]:
    """Turn DuckDB running out of memory while it loads ``path`` (anywhere: the read, a
    check, the ranking) into a problem naming the file and the limit to raise."""
    try:
        yield
    except duckdb.OutOfMemoryException as error:
        raise InputError(
            [Problem(redact_path(path), None, _reason(error), OUT_OF_MEMORY)]
        ) from None


def read_problems(path: Path, fmt: str, error: duckdb.Error) -> list[Problem]:
    """Why DuckDB could not read ``path``, as problems a user can act on."""
    if isinstance(error, duckdb.OutOfMemoryException):
        return [Problem(redact_path(path), None, _reason(error), OUT_OF_MEMORY)]
    if fmt == PARQUET:
        return [Problem(redact_path(path), None, _reason(error), "a Parquet file")]
    problems = unreadable_lines(path)
    if not problems and fmt == CSV:
        problems = uneven_rows(path) or line_end_problems(path)
    if problems:
        return problems
    found = CSV_ERROR_LINE.search(str(error))
    if found:
        # the line reader splits on \x01, so that is what a JSON-lines or TREC line broke on
        expected = "a well-formed CSV line" if fmt == CSV else "a line without the byte \\x01"
        return [Problem(redact_path(path), int(found[1]), found[2], expected)]
    return [
        Problem(redact_path(path), None, _reason(error), f"a readable {FORMAT_NAMES[fmt]} file")
    ]


def _reason(error: duckdb.Error) -> str:
    """DuckDB's first line, without its ``... Error:`` prefix."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return redact_text(first.split("Error: ", 1)[-1])  # it may name the file's path


def unreadable_lines(path: Path) -> list[Problem]:
    """Lines that are not UTF-8 or are too long to read, found by a scan in Python (only
    after DuckDB has refused the file, so the common case pays nothing). A file that starts
    with a UTF-16 byte order mark is one problem saying so (:func:`utf16_problem`)."""
    problems = utf16_problem(path)
    if problems:
        return problems
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            line = raw.rstrip(b"\r\n")
            if len(line) >= MAX_LINE_BYTES:
                limit = f"{MAX_LINE_BYTES // 10**6} MB ({MAX_LINE_BYTES:,} bytes)"
                expected = f"a line under {limit}; it has {len(line):,}"
                problems.append(Problem(redact_path(path), number, _excerpt(line, 0), expected))
            else:
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError as error:
                    problems.append(
                        Problem(
                            redact_path(path), number, _excerpt(line, error.start), "UTF-8 text"
                        )
                    )
            if len(problems) >= MAX_PROBLEMS:
                break
    return problems


# a UTF-16 byte order mark, as the bytes that start the file and as they are named
UTF16_MARKS = {b"\xff\xfe": "FF FE", b"\xfe\xff": "FE FF"}
UTF16_FIX = "UTF-8 text: save it as UTF-8"


def utf16_problem(path: Path) -> list[Problem]:
    """A file saved as UTF-16 (Excel's "Unicode text", PowerShell's ``>``), named as such on
    line 1: read as UTF-8, each of its lines would be refused as a run of escaped bytes that
    never says what is wrong or how to fix it."""
    with path.open("rb") as handle:
        mark = UTF16_MARKS.get(handle.read(2))
    if mark is None:
        return []
    return [Problem(redact_path(path), 1, f"UTF-16 (a byte order mark {mark})", UTF16_FIX)]


def uneven_rows(path: Path) -> list[Problem]:
    """CSV rows whose number of fields differs from the header's (DuckDB's sniffer refuses
    such a file without naming the row)."""
    delim = "\t" if path.suffix.lower() == ".tsv" else ","
    problems = []
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = csv.reader(handle, delimiter=delim)
        try:
            width = len(next(rows, []))
            for row in rows:
                if row and len(row) != width:
                    expected = f"{width} fields, as in the header (this row has {len(row)})"
                    problems.append(
                        Problem(redact_path(path), rows.line_num, delim.join(row), expected)
                    )
                if len(problems) >= MAX_PROBLEMS:
                    break
        except csv.Error as error:  # a field over the csv module's size limit
            problems.append(
                Problem(redact_path(path), rows.line_num, str(error), "a well-formed CSV row")
            )
    return problems


ENDING_NAMES = {b"\r\n": "CRLF", b"\n": "LF"}


def line_end_problems(path: Path) -> list[Problem]:
    """Lines a CSV reader cannot split (it takes one line ending per file): each line ended
    otherwise than the first, and each line holding a carriage return but at its end."""
    problems: list[Problem] = []
    first = None
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            ending = b"\r\n" if raw.endswith(b"\r\n") else b"\n" if raw.endswith(b"\n") else b""
            line = raw[: len(raw) - len(ending)]
            if b"\r" in line:
                expected = "a line with no carriage return (CR) but in a CRLF ending"
                problems.append(
                    Problem(redact_path(path), number, _excerpt(line, line.find(b"\r")), expected)
                )
            elif ending and first and ending != first:
                names = ENDING_NAMES[ending], ENDING_NAMES[first]
                expected = "one line ending throughout the file: this line ends %s, line 1 %s"
                problems.append(
                    Problem(redact_path(path), number, _excerpt(line, 0), expected % names)
                )
            first = first or ending
            if len(problems) >= MAX_PROBLEMS:
                break
    return problems


def _excerpt(line: bytes, at: int) -> str:
    """At most 80 characters of ``line`` around byte ``at``; bytes that are not UTF-8 as
    ``\\xNN``."""
    start = max(0, at - 20)
    return line[start : start + MAX_VALUE_CHARS].decode("utf-8", "backslashreplace")


def detect_format(path: Path) -> str:
    """Name the format of ``path`` from its suffix, or else from its content."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return PARQUET
    if suffix in (".csv", ".tsv"):
        return CSV
    if suffix in (".jsonl", ".json", ".ndjson"):
        return JSONL
    line = first_line(path)
    if line.startswith("{"):
        return JSONL
    return TREC_QRELS if len(TREC_SEPARATOR.split(line)) == 4 else TREC_RUN


# CASE, not AND: json_type() must never see a line that is not valid JSON
IS_OBJECT = "coalesce(CASE WHEN json_valid(text) THEN json_type(text) = 'OBJECT' END, false)"
# a line of JSON's whitespace alone (spaces and tabs; a carriage return ends it) is blank and
# skipped, as DuckDB's JSON reader skips it; one holding other bytes is no JSON object
JSON_BLANK = "trim(text, ' ' || chr(9)) = ''"


def stage_json_lines(con: duckdb.DuckDBPyConnection, path: Path, table: str) -> list[Problem]:
    """Stage ``table(line, j JSON)`` from JSON lines in one pass; return lines that are not
    JSON objects (they stay out of the table) and lines with a trailing comma (they stay in,
    so their fields are checked too)."""
    with reading(path, JSONL):
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {table}_all AS SELECT line, "
            f"CASE WHEN {IS_OBJECT} THEN text::JSON END AS j, "
            f"CASE WHEN NOT {IS_OBJECT} THEN text END AS bad, "
            f"CASE WHEN regexp_matches(text, '{TRAILING_COMMA}') THEN text END AS comma "
            f"FROM ({lines_source(path)}) WHERE text IS NOT NULL AND NOT {JSON_BLANK}",
            {"path": str(path)},
        )
    # one call: each waits to take the interpreter's lock back (db.connect)
    odd = con.execute(
        f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT line, j FROM {table}_all "
        f"WHERE j IS NOT NULL; "
        f"SELECT line, bad, comma FROM (SELECT * FROM {table}_all WHERE j IS NULL "
        f"ORDER BY line LIMIT {MAX_PROBLEMS}) UNION ALL "
        f"SELECT line, bad, comma FROM {table}_all WHERE j IS NOT NULL AND comma IS NOT NULL "
        "ORDER BY line"
    ).fetchall()
    con.execute(f"DROP TABLE {table}_all")
    problems = [
        Problem(redact_path(path), line, bad, "one JSON object per line")
        for line, bad, _ in odd
        if bad is not None
    ]
    commas = [(line, comma) for line, bad, comma in odd if bad is None]
    return problems + trailing_comma_problems(path, commas)


def trailing_comma_problems(path: Path, lines: list[tuple[int, str]]) -> list[Problem]:
    """The lines (of those with a comma before a bracket) that strict JSON refuses."""
    problems = []
    for number, text in lines:
        try:
            json.loads(text, parse_constant=float)
        except json.JSONDecodeError as error:
            start = max(0, error.pos - 40)
            problems.append(
                Problem(
                    redact_path(path),
                    number,
                    text[start : error.pos + 20],
                    "JSON with no trailing comma",
                )
            )
        if len(problems) >= MAX_PROBLEMS:
            break
    return problems


def stage_whitespace_fields(
    con: duckdb.DuckDBPyConnection, path: Path, table: str, columns: str = "f"
) -> None:
    """Stage ``table(line, <columns>)`` from a whitespace-separated file in one pass.

    ``columns`` is a select list over ``f``, the line's fields (:data:`FIELDS_SQL`); a line
    without one (blank, or whitespace alone) or whose first starts with ``#`` (a comment, as
    trec_eval reads it after any leading whitespace) is skipped.
    """
    # the fields made once (MATERIALIZED): DuckDB otherwise writes their expression into the
    # filter and into each column that reads them (a 115,000-line qrels file: 0.20 -> 0.14 s)
    with reading(path, TREC):
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS WITH fields AS MATERIALIZED ("
            f"SELECT line, {FIELDS_SQL} AS f FROM (SELECT line, trim(text) AS t FROM "
            f"({lines_source(path)}) WHERE text IS NOT NULL)) "
            f"SELECT line, {columns} FROM fields "
            "WHERE coalesce(f[1], '') <> '' AND NOT starts_with(f[1], '#')",
            {"path": str(path)},
        )


def table_source(path: Path, fmt: str) -> tuple[str, int]:
    """The SQL that reads a CSV or Parquet ``path`` (bound as ``$path``), all text for CSV,
    and the line of its first row (a CSV header is line 1). The one reading of such a file:
    the validating reads and the typed fast read of a run use it alike, so they see the same
    columns and the same text (a sniffed type would turn an id ``2.10`` into ``2.1``)."""
    if fmt == PARQUET:
        return "read_parquet($path)", 1
    delim = "\t" if path.suffix.lower() == ".tsv" else ","
    # skip=0: the sniffer must not take a later line with more fields for the header
    return (
        f"read_csv($path, header=true, all_varchar=true, delim='{delim}', skip=0, {LINE_LIMITS})",
        2,
    )


def stage_table_rows(con: duckdb.DuckDBPyConnection, path: Path, fmt: str, table: str) -> list[str]:
    """Stage a CSV or Parquet file as ``table(line, rec)``, ``rec`` one row as a struct keyed
    by the file's own column names; return those names.

    ``line`` is the CSV line (header is line 1) or the Parquet row number. The row is a
    struct so a column the file itself calls ``line`` stays what it is, beside the staged
    number. Repeated or empty column names are refused first (DuckDB would rename them).
    """
    require_unique_header(con, path, fmt)
    source, first = table_source(path, fmt)
    params = {"path": str(path)}
    with reading(path, fmt):
        columns = [
            row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}", params).fetchall()
        ]
        alias = row_alias(columns)
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT row_number() OVER () + {first - 1} "
            f"AS line, {alias} AS rec FROM {source} AS {alias}",
            params,
        )
    return columns


# A column's type says how its values were written; a CSV file's columns are all text. An id
# is text, or an integer (its digits, the only way to write it); a rank or a score is text
# (checked as a CSV file's is) or a number. Any other type is refused: a DOUBLE id 1.0 may
# have been written 1 or 1.0, a BOOLEAN rank or a BLOB id is no value of its role at all.
INTEGER_TYPES = (
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "UHUGEINT",
)
ID_TYPES = ("VARCHAR", *INTEGER_TYPES)
NUMBER_TYPES = (*ID_TYPES, "FLOAT", "DOUBLE", "DECIMAL")
ROLE_TYPES = {
    "query_id": ID_TYPES,
    "chunk_id": ID_TYPES,
    "rank": NUMBER_TYPES,
    "score": NUMBER_TYPES,
}
COLUMN_TYPES_EXPECTED = {
    "query_id": "a text or integer column (ids are read as written)",
    "chunk_id": "a text or integer column (ids are read as written)",
    "rank": "a text or numeric column",
    "score": "a text or numeric column",
}


def column_types(con: duckdb.DuckDBPyConnection, path: Path, fmt: str) -> dict[str, str]:
    """Each column of a CSV or Parquet ``path`` (:func:`table_source`) with its DuckDB type
    (DuckDB's error when it cannot read the file)."""
    source, _ = table_source(path, fmt)
    rows = con.execute(f"DESCRIBE SELECT * FROM {source}", {"path": str(path)}).fetchall()
    return {row[0]: row[1] for row in rows}


def column_type_problems(
    path: Path, types: dict[str, str], roles: dict[str, tuple[str, str]]
) -> list[Problem]:
    """A problem for each column playing a role of :data:`ROLE_TYPES` (``roles``:
    :func:`column_roles`) whose type (``types``: :func:`column_types`) is not one the role
    takes: the one rule of typed columns, for the typed and the validating reads alike."""
    problems = []
    for role, (_, column) in roles.items():
        found = types.get(column, "VARCHAR")
        if role in ROLE_TYPES and found.split("(")[0] not in ROLE_TYPES[role]:
            value = f"column {column} of type {found}"
            problems.append(Problem(redact_path(path), None, value, COLUMN_TYPES_EXPECTED[role]))
    return problems


def own_name_type_problems(
    con: duckdb.DuckDBPyConnection, path: Path, fmt: str, columns: list[str], roles: tuple[str, ...]
) -> list[Problem]:
    """:func:`column_type_problems` for a file whose ``roles`` columns go by their own names
    only (grades, corpus: :func:`require_columns` has found each, named as the role)."""
    named = {role: (role, role) for role in roles if role in columns}
    return column_type_problems(path, column_types(con, path, fmt), named)


def row_alias(columns: list[str]) -> str:
    """A table alias none of ``columns`` (as DuckDB reads them) is called: DuckDB resolves a
    name to a column before a table's row. ``src``, else ``src_1``, ... (never file text)."""
    taken = {name.casefold() for name in columns}
    return next(
        alias
        for alias in ("src", *(f"src_{n}" for n in range(1, len(taken) + 2)))
        if alias not in taken
    )


def require_unique_header(con: duckdb.DuckDBPyConnection, path: Path, fmt: str) -> None:
    """Refuse a CSV header or Parquet schema with an empty or a repeated column name (names
    compare as DuckDB compares them, ignoring case): DuckDB would silently read ``x,x`` as
    ``x, x_1`` and an empty name as ``column2``, so which is meant would be a guess."""
    if fmt == CSV:
        names, line = csv_header(path), 1
    elif fmt == PARQUET:
        names, line = parquet_columns(con, path), None
    else:
        return
    problems = [
        Problem(
            redact_path(path),
            line,
            redact_text(f"column {i} (between {_neighbours(names, i)})"),
            EMPTY_NAME,
        )
        for i, name in enumerate(names, 1)
        if not name.strip()
    ]
    first: dict[str, int] = {}
    for i, name in enumerate(names, 1):
        if name.strip() and first.setdefault(name.casefold(), i) != i:
            expected = f"each column named once (column {first[name.casefold()]} has this name)"
            problems.append(Problem(redact_path(path), line, redact_text(name), expected))
    raise_if_any(problems)


EMPTY_NAME = "a non-empty column name"


def csv_header(path: Path) -> list[str]:
    """The header row of a CSV file as the csv module reads it; empty when it is not UTF-8
    (DuckDB's read then names the line)."""
    delim = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            return next(csv.reader(handle, delimiter=delim), [])
    except UnicodeDecodeError:
        return []
    except csv.Error as error:  # a name over the csv module's field limit (128 KiB)
        raise InputError(
            [Problem(redact_path(path), 1, str(error), "a well-formed CSV header")]
        ) from None


def parquet_columns(con: duckdb.DuckDBPyConnection, path: Path) -> list[str]:
    """The top-level column names of a Parquet file as written (DuckDB's reader renames a
    repeated one). The schema lists the root, then each column followed by its subtree."""
    with reading(path, PARQUET):
        schema = con.execute(
            "SELECT name, coalesce(num_children, 0) FROM parquet_schema($path)",
            {"path": str(path)},
        ).fetchall()
    names, at = [], 1
    while at < len(schema):
        names.append(schema[at][0])
        at = _after_subtree(schema, at)
    return names


def _after_subtree(schema: list[tuple[str, int]], at: int) -> int:
    """The index just past the schema element at ``at`` and all its descendants."""
    children, at = schema[at][1], at + 1
    for _ in range(children):
        at = _after_subtree(schema, at)
    return at


def _neighbours(header: list[str], i: int) -> str:
    before = repr(header[i - 2]) if i > 1 else "the start"
    after = repr(header[i]) if i < len(header) else "the end"
    return f"{before} and {after}"


def keep_as_text(
    con: duckdb.DuckDBPyConnection,
    table: str,
    present: list[str],
    wanted: tuple[str, ...],
    roles: dict[str, tuple[str, str]] | None = None,
) -> None:
    """Reduce ``table`` (staged by :func:`stage_table_rows`) to ``line`` and the ``wanted``
    columns, as text: a typed Parquet column (an integer id) reads as its digits, a missing
    one is NULL. ``wanted`` is the loader's own constant list, never a header from the file;
    a column with a role in ``roles`` (:func:`column_roles`) is read by its alias constant
    (struct fields, like columns, are found ignoring case)."""
    source = {name: name for name in wanted if name in present}
    source |= {role: alias for role, (alias, _) in (roles or {}).items()}
    select = ", ".join(
        f"CAST(struct_extract(rec, '{source[name]}') AS VARCHAR) AS {name}"
        if name in source
        else f"NULL::VARCHAR AS {name}"
        for name in wanted
    )
    con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT line, {select} FROM {table}")


# The column names other tools write for each role a run or gold column plays; the role's own
# name first. Matched as ASCII ignoring case (DuckDB resolves names ignoring case, and only
# ASCII: Python's casefold would read "ſcore" as "score").
COLUMN_ALIASES = {
    "query_id": ("query_id", "qid", "q_id", "topic"),
    "chunk_id": ("chunk_id", "docid", "docno", "doc_id", "pid"),
    "score": ("score", "sim"),
    "rank": ("rank", "position"),
    # gold only: ir_measures' qrels name it relevance, ranx's Qrels frames score (its default)
    "grade": ("grade", "relevance", "score"),
}
ALIAS_CASE = "names read ignoring ASCII case"


def column_roles(
    path: Path, fmt: str, columns: list[str], roles: tuple[str, ...]
) -> dict[str, tuple[str, str]]:
    """Which of ``columns`` plays each of ``roles``: ``{role: (alias, column)}``, ``alias``
    the constant from :data:`COLUMN_ALIASES` (what SQL names; DuckDB matches it to the
    column ignoring case), ``column`` as the file spells it. A role with no column is left
    out; a role with two candidates is refused, naming them (every such role at once)."""
    found, problems = {}, []
    for role in roles:
        matches = [
            (name.lower(), name)
            for name in columns
            if name.isascii() and name.lower() in COLUMN_ALIASES[role]
        ]
        if len(matches) > 1:
            expected = (
                f"one column for {role}, not {len(matches)} (rename or drop one; "
                f"{ALIAS_CASE}: {', '.join(COLUMN_ALIASES[role])})"
            )
            line = 1 if fmt == CSV else None
            problems.append(
                Problem(redact_path(path), line, ", ".join(n for _, n in matches), expected)
            )
        elif matches:
            found[role] = matches[0]
    raise_if_any(problems)
    return found


def require_roles(
    path: Path, columns: list[str], found: dict[str, tuple[str, str]], required: tuple[str, ...]
) -> None:
    """Every ``required`` role has a column (:func:`column_roles`), else one problem each."""
    problems = [
        Problem(
            redact_path(path),
            1,
            redact_text(f"columns {columns}"),
            f"a column named {role!r} (or {', '.join(COLUMN_ALIASES[role][1:])}; {ALIAS_CASE})",
        )
        for role in required
        if role not in found
    ]
    raise_if_any(problems)


def record_mapping(
    con: duckdb.DuckDBPyConnection, path: Path, found: dict[str, tuple[str, str]]
) -> None:
    """Keep, for the user to be told, each column read under another name (none when the
    file uses ragrecall's own names, in its own case)."""
    renamed = [(column, role) for role, (_, column) in found.items() if column != role]
    for order, (column, role) in enumerate(renamed):
        con.execute(
            "INSERT INTO column_mappings VALUES ($path, $order, $column, $role)",
            {"path": str(path), "order": order, "column": column, "role": role},
        )


def require_columns(path: Path, columns: list[str], required: tuple[str, ...]) -> None:
    missing = [c for c in required if c not in columns]
    if missing:
        header = redact_text(f"columns {columns}")  # whole, before a problem cuts it
        raise InputError(
            [Problem(redact_path(path), 1, header, f"a column named {name!r}") for name in missing]
        )


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
