"""Verdicts: what a review meeting decides about one failing query of one run.

A verdict is a failure reason from a fixed vocabulary (:data:`REASONS`, drawn from seed
000), a free note, an optional owner (who takes the action) and who recorded it. Verdicts
live in the workspace's judgment store (``verdicts`` table), append-only like judgments:
the latest per (run, query) wins (by ``recorded_at``, then by id, so an imported older
verdict never hides a newer one; one saved is stamped no earlier than the latest, so an
imported time ahead of this clock never hides it), every earlier one stays in the history,
and a row with an empty reason withdraws the verdict. Each write is one transaction under
the store's lock (:func:`ragrecall_core.inputs.store.store_transaction`); a save from a
screen says which verdict it showed (:func:`seen_key`), and is held back in that same
step when another was recorded since (:class:`VerdictChanged`).

Exports and imports carry the whole history (JSON lines or CSV, by the file's extension),
so importing an export elsewhere reproduces the same latest verdicts; importing the same
file twice adds nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import duckdb
import pandas as pd

from ragrecall_core.errors import InputError, Problem, one_line, raise_if_any
from ragrecall_core.inputs.db import connect, lock_down
from ragrecall_core.inputs.readers import (
    CSV,
    JSONL,
    detect_format,
    require_file,
    stage_json_lines,
    stage_table_rows,
)
from ragrecall_core.inputs.secrets import redact_path, redact_text
from ragrecall_core.inputs.store import STORE, has_table, open_store, store_transaction
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import FORMULA_START, neutralise, text_table

REASONS: tuple[str, ...] = (
    "vocabulary mismatch",
    "paraphrase",
    "confusable topic",
    "chunk boundary",
    "needs several chunks",
    "outdated document",
    "filter or metadata",
    "gold label wrong",
    "other",
)
WITHDRAWN = ""  # the reason of a row that withdraws the verdict
MAX_TEXT = 2000
SHOWN_START = 50  # characters of a too-long text a problem shows, before its length
COLUMNS = ["run", "query_id", "reason", "note", "owner", "recorded_by", "recorded_at"]
TEXT_FIELDS = ("note", "owner", "recorded_by")
REQUIRED_FIELDS = ("run", "query_id", "reason")
FILE_FIELDS = (*COLUMNS,)
EXPECTED_REASON = "one of: " + ", ".join(REASONS) + " (or empty to withdraw)"

# every row of the store, ranked within its (run, query): 1 is the latest
RANKED = f"""
SELECT run, query_id, reason, note, owner, recorded_by, recorded_at, id,
       row_number() OVER (PARTITION BY run, query_id ORDER BY recorded_at DESC, id DESC)
         AS age
FROM {STORE}.verdicts
"""


# the current verdict of every (run, query) that has one (a withdrawal leaves none)
CURRENT = f"SELECT {', '.join(COLUMNS)} FROM ({RANKED}) WHERE age = 1 AND reason <> ''"  # noqa: S608


# ---------------------------------------------------------------- reading
def _has_verdicts(workspace: Workspace) -> bool:
    """Whether the workspace's store exists and has a verdicts table (an old read-only
    store has none); attaches the store when it exists."""
    return open_store(workspace) and has_table(workspace, "verdicts")


def latest_verdicts(workspace: Workspace) -> pd.DataFrame:
    """One row per (run, query) with a current verdict (withdrawn ones left out)."""
    if not _has_verdicts(workspace):
        return pd.DataFrame(columns=COLUMNS)
    return workspace.cursor().execute(f"{CURRENT} ORDER BY run, query_id").df()


def verdict_history(workspace: Workspace, run: str, query_id: str) -> pd.DataFrame:
    """Every verdict recorded for one (run, query), newest first (withdrawals included)."""
    if not _has_verdicts(workspace):
        return pd.DataFrame(columns=COLUMNS)
    return (
        workspace.cursor()
        .execute(
            f"SELECT {', '.join(COLUMNS)} FROM ({RANKED}) "  # noqa: S608
            "WHERE run = $run AND query_id = $q ORDER BY age",
            {"run": run, "q": query_id},
        )
        .df()
    )


def verdicts_version(workspace: Workspace) -> str:
    """Changes whenever a verdict is stored (for cache keys); no scoring depends on it."""
    if not _has_verdicts(workspace):
        return "no-verdicts"
    row = (
        workspace.cursor()
        .execute(f"SELECT count(*), coalesce(max(id), 0) FROM {STORE}.verdicts")  # noqa: S608
        .fetchone()
    )
    return "v{}.{}".format(*row)


def attach_verdicts(rows: pd.DataFrame, verdicts: pd.DataFrame) -> pd.DataFrame:
    """``rows`` (per run and query) with ``verdict`` (the reason, "" when none),
    ``verdict_note`` and ``verdict_owner``; order and index of ``rows`` kept."""
    picked = verdicts[["run", "query_id", "reason", "note", "owner"]].rename(
        columns={"reason": "verdict", "note": "verdict_note", "owner": "verdict_owner"}
    )
    merged = rows.merge(picked, on=["run", "query_id"], how="left", validate="many_to_one")
    merged.index = rows.index
    for column in ("verdict", "verdict_note", "verdict_owner"):
        merged[column] = merged[column].fillna("").astype(object)
    return merged


# ---------------------------------------------------------------- writing
def record_verdict(
    workspace: Workspace,
    run: str,
    query_id: str,
    reason: str,
    note: str = "",
    owner: str = "",
    recorded_by: str = "",
    *,
    seen: tuple[str, ...] | None = None,
) -> None:
    """Store one verdict now (``reason`` "" withdraws the current one).

    ``seen``: the :func:`seen_key` of the verdict the saver was shown (``seen_key({})``
    for none). When the stored one is another (saved since by another session), nothing is
    stored and :class:`VerdictChanged` shows it, so no verdict is replaced unseen; checked
    and written in one transaction under the store's lock, so two savers at once cannot
    both pass. ``None`` (the command line, which shows none) saves over whatever is stored.

    Raises InputError naming every bad value at once, or when the store cannot be written
    (a read-only workspace)."""
    row = {
        "run": run,
        "query_id": query_id,
        "reason": reason,
        "note": note,
        "owner": owner,
        "recorded_by": recorded_by,
    }
    problems = _field_problems("verdict", None, row, workspace)
    if problems:
        raise InputError(problems)
    with store_transaction(workspace) as con:
        if seen is not None:
            _hold_back_unseen(con, run, query_id, seen)
        # stamped no earlier than the (run, query)'s latest row, so the verdict just saved
        # is the latest even when an imported row's time is ahead of this clock (another
        # machine's zone) or the clock was set back; an equal time goes by id
        con.execute(
            f"INSERT INTO {STORE}.verdicts (run, query_id, reason, note, owner, recorded_by, "
            "recorded_at) SELECT $run, $query_id, $reason, $note, $owner, $recorded_by, "
            "greatest(current_timestamp::TIMESTAMP, max(recorded_at)) "
            f"FROM {STORE}.verdicts WHERE run = $run AND query_id = $query_id",
            {
                **row,
                "note": note.strip(),
                "owner": owner.strip(),
                "recorded_by": recorded_by.strip(),
            },
        )


NOT_SEEN = (
    "the verdict shown when the form was drawn: another was recorded since, and the save "
    "would have replaced it unseen; it was not saved. Save again to replace it"
)


class VerdictChanged(InputError):
    """A save held back: the (run, query)'s verdict is not the one its saver was shown.
    ``current`` is the stored one as :func:`latest_verdicts` gives it ({} when none)."""

    def __init__(self, current: dict):
        self.current = current
        by = current.get("recorded_by") or "(no name)"
        shown = f"{current['reason']} by {by}" if current else "none"
        super().__init__([Problem("verdict", None, shown, NOT_SEEN)])


def seen_key(verdict: dict) -> tuple[str, ...]:
    """What a screen showed of a (run, query)'s verdict (a row of :func:`latest_verdicts`
    as a dict, {} for none), as a save compares it with the stored one."""
    return tuple(str(verdict.get(column, "")) for column in COLUMNS)


def _hold_back_unseen(
    con: duckdb.DuckDBPyConnection, run: str, query_id: str, seen: tuple[str, ...]
) -> None:
    """Raise :class:`VerdictChanged` when the stored verdict is not the one ``seen``."""
    found = con.execute(
        f"SELECT * FROM ({CURRENT}) WHERE run = $run AND query_id = $q",  # noqa: S608
        {"run": run, "q": query_id},
    ).df()
    current = found.iloc[0].to_dict() if len(found) else {}
    if seen_key(current) != tuple(seen):
        raise VerdictChanged(current)


def _field_problems(where: str, line: int | None, row: dict, workspace: Workspace) -> list[Problem]:
    """What is wrong with one verdict's fields (all of it, not the first thing)."""
    problems = []
    for name in (*REQUIRED_FIELDS, *TEXT_FIELDS):
        if not isinstance(row.get(name), str):
            problems.append(Problem(where, line, repr(row.get(name)), f"{name} as text"))
    if problems:
        return problems
    if row["run"] not in workspace.run_names:
        runs = ", ".join(workspace.run_names)
        problems.append(Problem(where, line, row["run"], f"a run of the workspace ({runs})"))
    if not _is_gold_query(workspace, row["query_id"]):
        problems.append(Problem(where, line, row["query_id"], "a query id of the gold set"))
    if row["reason"] not in (*REASONS, WITHDRAWN):
        problems.append(Problem(where, line, row["reason"], EXPECTED_REASON))
    for name in TEXT_FIELDS:
        if len(row[name]) > MAX_TEXT:
            shown = f"{row[name][:SHOWN_START]}… ({len(row[name]):,} characters)"
            problems.append(Problem(where, line, shown, f"{name} of at most {MAX_TEXT} characters"))
    return problems


def _is_gold_query(workspace: Workspace, query_id: str) -> bool:
    row = (
        workspace.cursor()
        .execute("SELECT count(*) FROM queries WHERE query_id = $q", {"q": query_id})
        .fetchone()
    )
    return row[0] > 0


# ---------------------------------------------------------------- export / import
def export_verdicts(workspace: Workspace, path: Path) -> int:
    """Write every recorded verdict (the whole history, oldest first) to ``path``: JSON
    lines for ``.jsonl``/``.json``/``.ndjson``, CSV (formula cells neutralised) for ``.csv``.
    Returns how many rows were written."""
    from ragrecall_core.analysis.output_targets import overwrite_problems

    path = Path(path)
    fmt = _format_of(path)
    raise_if_any(overwrite_problems(workspace, {"--export": path}))
    rows = _history(workspace)
    if fmt == JSONL:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows.to_dict("records"))
    else:
        text = rows.map(neutralise).to_csv(index=False)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError(
            [Problem(redact_path(path), None, redact_text(str(error)), "a writable file")]
        ) from None
    return len(rows)


def _history(workspace: Workspace) -> pd.DataFrame:
    if not _has_verdicts(workspace):
        return pd.DataFrame(columns=COLUMNS)
    return (
        workspace.cursor()
        .execute(
            "SELECT run, query_id, reason, note, owner, recorded_by, "
            f"CAST(recorded_at AS VARCHAR) AS recorded_at FROM {STORE}.verdicts ORDER BY id"  # noqa: S608
        )
        .df()
    )


def _format_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".json", ".ndjson", ".csv"):
        raise InputError(
            [
                Problem(
                    redact_path(path),
                    None,
                    redact_path(path.name),
                    "a file ending in .jsonl or .csv",
                )
            ]
        )
    return detect_format(path) if suffix != ".csv" else CSV


# SQL: the text ``{cell}`` without the whitespace around it, as Python's str.strip() takes
# it off (every character str.isspace() names, not DuckDB's trim(), which takes spaces
# only): an import stores a row's texts as record_verdict saves them
BLANKS = " || ".join(f"chr({ord(c)})" for c in map(chr, range(sys.maxunicode + 1)) if c.isspace())
STRIPPED = "trim({cell}, " + BLANKS + ")"
# a file row the store already holds: same fields, and the same time when the file gives one
# (a stored text compared stripped too: an import before this rule kept it as written)
STORED_ALREADY = f"""
EXISTS (SELECT 1 FROM {STORE}.verdicts s
        WHERE s.run = i.run AND s.query_id = i.query_id AND s.reason = i.reason
          AND {STRIPPED.format(cell="s.note")} = i.note
          AND {STRIPPED.format(cell="s.owner")} = i.owner
          AND {STRIPPED.format(cell="s.recorded_by")} = i.recorded_by
          AND (i.recorded_at IS NULL OR s.recorded_at = i.recorded_at))
"""


def import_verdicts(workspace: Workspace, path: Path) -> int:
    """Add a verdicts file's rows the store does not hold yet, in one transaction; return
    how many were added.

    The file is validated first, every row at once, by one query over the staged rows
    (InputError lists every problem with its line); nothing is written when any row is
    wrong. A row without ``recorded_at`` is stamped now.
    """
    path = Path(path)
    rows, problems = _read_verdicts_file(path)
    problems += _row_problems(workspace, path, rows)
    if problems:  # every line's problems at once, in line order
        raise InputError(sorted(problems, key=lambda p: p.line or 0))
    if rows.empty:
        return 0
    with store_transaction(workspace) as con:
        con.register("imported_verdicts", rows)
        try:
            added = con.execute(
                f"SELECT count(*) FROM ({IMPORTED}) i WHERE NOT {STORED_ALREADY}"  # noqa: S608
            ).fetchone()[0]
            con.execute(f"INSERT INTO {STORE}.verdicts {TO_INSERT}")  # noqa: S608
        finally:
            con.unregister("imported_verdicts")
    return int(added)


# a recorded_at the file may give: a plain local time, no zone (DuckDB would drop an offset
# without a word), no special value (infinity, epoch), between EARLIEST and tomorrow; a time
# far ahead would make its verdict the latest for ever, hiding every later one
EARLIEST = "2000-01-01"
TIME_SHAPE = r"\d{4}-\d{2}-\d{2}([ T]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?)?"
EXPECTED_TIME = (
    f"recorded_at as a time from {EARLIEST} to tomorrow, written YYYY-MM-DD HH:MM:SS "
    "(e.g. 2026-12-01 09:30:00; no time zone)"
)
# the staged rows as the store holds them: optional text empty and stripped, as saving one
# strips it, the time parsed. Rows the same as stored are one statement of one verdict:
# only the last copy is kept, as it orders the verdict among the file's other rows of its
# (run, query) and time (V, X, V in one second: V is the latest); an export holds such
# copies when saves tied at a time ahead of the clock, or an import restated a held row
IMPORTED = f"""
SELECT * FROM (
    SELECT line, run, query_id, reason,
           {STRIPPED.format(cell="coalesce(note, '')")} AS note,
           {STRIPPED.format(cell="coalesce(owner, '')")} AS owner,
           {STRIPPED.format(cell="coalesce(recorded_by, '')")} AS recorded_by,
           TRY_CAST(recorded_at AS TIMESTAMP) AS recorded_at
    FROM imported_verdicts)
QUALIFY line = max(line) OVER (
    PARTITION BY run, query_id, reason, note, owner, recorded_by, recorded_at)
"""
# what an import appends, in file order: the rows the store does not hold, and after the
# first of them, the held rows the file gives the same (run, query) and time later. Ties in
# time go by id, so a held row left where it is would rank below a new row the file says is
# older (store A: P then C in one second; B holds C; A's export into B made P the latest):
# stated again after it, each tie keeps the file's order. Nothing stored is changed.
TO_INSERT = f"""
(run, query_id, reason, note, owner, recorded_by, recorded_at)
WITH i AS (SELECT *, {STORED_ALREADY} AS held FROM ({IMPORTED}) i),
first_new AS (
    SELECT run, query_id, recorded_at, min(line) AS line FROM i
    WHERE NOT held AND recorded_at IS NOT NULL GROUP BY run, query_id, recorded_at)
SELECT run, query_id, reason, note, owner, recorded_by,
       coalesce(recorded_at, current_timestamp::TIMESTAMP)
FROM i WHERE NOT held OR EXISTS (
    SELECT 1 FROM first_new f WHERE f.run = i.run AND f.query_id = i.query_id
      AND f.recorded_at = i.recorded_at AND f.line < i.line)
ORDER BY line
"""  # noqa: S608
# every problem of every staged row, in line order; a row with a value that is no text, or
# a required field missing, is reported for that alone (its other checks would only echo it)
ROW_PROBLEMS = (
    " UNION ALL ".join(
        f"SELECT line, {order} AS k, {name}_bad AS value, '{name} as text' AS expected "
        f"FROM imported_verdicts WHERE {name}_bad IS NOT NULL"
        for order, name in enumerate(FILE_FIELDS)
    )
    + " UNION ALL "
    + " UNION ALL ".join(
        f"SELECT line, 10 + {order} AS k, 'missing' AS value, 'a {name} (text)' AS expected "
        f"FROM imported_verdicts WHERE {name} IS NULL AND {name}_bad IS NULL"
        for order, name in enumerate(REQUIRED_FIELDS)
    )
)
VALUE_PROBLEMS = f"""
SELECT line, 20 AS k, run, $runs_expected FROM checked WHERE NOT list_contains($runs, run)
UNION ALL
SELECT line, 21, query_id, 'a query id of the gold set' FROM checked c
WHERE NOT EXISTS (SELECT 1 FROM queries q WHERE q.query_id = c.query_id)
UNION ALL
SELECT line, 22, reason, $reason_expected FROM checked WHERE NOT list_contains($reasons, reason)
UNION ALL
{
    " UNION ALL ".join(
        f"SELECT line, 23 + {order}, left({name}, {SHOWN_START}) || '… (' "
        f"|| format('{{:,}}', length({name})) || ' characters)', "
        f"'{name} of at most {MAX_TEXT} characters' FROM checked "
        f"WHERE length({name}) > {MAX_TEXT}"
        for order, name in enumerate(TEXT_FIELDS)
    )
}
UNION ALL
SELECT line, 30, recorded_at, $time_expected FROM checked
WHERE recorded_at IS NOT NULL AND NOT coalesce(regexp_full_match(recorded_at, $time_shape)
    AND TRY_CAST(recorded_at AS TIMESTAMP)
        BETWEEN TIMESTAMP '{EARLIEST}' AND current_timestamp::TIMESTAMP + INTERVAL 1 DAY, false)
"""
PROBLEMS_SQL = f"""
WITH typed AS ({ROW_PROBLEMS}),
checked AS (SELECT * FROM imported_verdicts WHERE line NOT IN (SELECT line FROM typed))
SELECT line, value, expected FROM (
    SELECT * FROM typed UNION ALL {VALUE_PROBLEMS}) ORDER BY line, k
"""


def _row_problems(workspace: Workspace, path: Path, rows: pd.DataFrame) -> list[Problem]:
    """Every bad value of every row of a staged verdicts file."""
    con = workspace.cursor()
    con.register("imported_verdicts", rows)
    try:
        found = con.execute(
            PROBLEMS_SQL,
            {
                "runs": list(workspace.run_names),
                "runs_expected": f"a run of the workspace ({', '.join(workspace.run_names)})",
                "reasons": [*REASONS, WITHDRAWN],
                "reason_expected": EXPECTED_REASON,
                "time_shape": TIME_SHAPE,
                "time_expected": EXPECTED_TIME,
            },
        ).fetchall()
    finally:
        con.unregister("imported_verdicts")
    return [Problem(redact_path(path), line, value, want) for line, value, want in found]


# a CSV cell as it was before :func:`neutralise` prefixed it with ' (a cell that starts
# like a formula after its leading 's): exactly one ' comes off, so export then import is
# the identity
UNNEUTRALISED = (
    "CASE WHEN starts_with({cell}, chr(39)) AND list_contains(["
    + ", ".join(f"chr({ord(c)})" for c in FORMULA_START)
    + "], substr(ltrim({cell}, chr(39)), 1, 1)) THEN substr({cell}, 2) ELSE {cell} END"
)
# the staged file's fields as text (NULL when absent), and what is wrong with their types
JSON_FIELDS_SQL = ", ".join(
    f"CASE WHEN json_type(j, '$.{name}') = 'VARCHAR' THEN j->>'$.{name}' END AS {name}, "
    f"CASE WHEN json_type(j, '$.{name}') NOT IN ('VARCHAR', 'NULL') "
    f"THEN CAST(json_extract(j, '$.{name}') AS VARCHAR) END AS {name}_bad"
    for name in FILE_FIELDS
)


def _read_verdicts_file(path: Path) -> tuple[pd.DataFrame, list[Problem]]:
    """The file's rows (``line`` and every field as text, NULL when absent), read by a
    connection confined to that one file, and the problems of the file's lines themselves:
    not a JSON object, a trailing comma, an unknown field or a repeated key (their rows are
    still checked, so one bad line hides no other line's problems)."""
    require_file(path)
    fmt = _format_of(path)
    con = connect()
    try:
        lock_down(con, [path])
        if fmt == JSONL:
            problems = stage_json_lines(con, path, "staged")
            problems += [
                Problem(redact_path(path), line, key, ONCE)
                for line, key in con.execute(REPEATED_KEYS).fetchall()
            ]
            unknown = con.execute(
                "SELECT line, unnest(list_filter(json_keys(j), "
                "lambda k: NOT list_contains($f, k))) FROM staged ORDER BY line",
                {"f": list(FILE_FIELDS)},
            ).fetchall()
            rows = con.execute(f"SELECT line, {JSON_FIELDS_SQL} FROM staged ORDER BY line").df()
        else:
            problems = []  # a CSV header's repeated names are refused by stage_table_rows
            columns = stage_table_rows(con, path, fmt, "staged")
            unknown = [(1, c) for c in columns if c not in FILE_FIELDS]
            present = [c for c in FILE_FIELDS if c in columns]
            # an empty CSV cell is empty text (a withdrawal has an empty reason); a cell
            # neutralised on export ('=x) is read back as it was (=x)
            fields = ", ".join(
                [
                    f"{UNNEUTRALISED.format(cell=f'coalesce(rec[{c!r}], {chr(39) * 2})')} AS {c}"
                    for c in present
                    if c != "recorded_at"
                ]
                + ["rec['recorded_at'] AS recorded_at" for c in present if c == "recorded_at"]
                + [f"NULL::VARCHAR AS {c}" for c in FILE_FIELDS if c not in present]
                + [f"NULL::VARCHAR AS {c}_bad" for c in FILE_FIELDS]
            )
            rows = con.execute(f"SELECT line, {fields} FROM staged ORDER BY line").df()
    except duckdb.Error as error:
        raise InputError(
            [Problem(redact_path(path), None, redact_text(str(error)), "a verdicts file")]
        ) from None
    finally:
        con.close()
    expected = "only the fields " + ", ".join(FILE_FIELDS)
    return rows, problems + [
        Problem(redact_path(path), line, str(key), expected) for line, key in unknown
    ]


# every key a staged JSON line gives more than once (DuckDB reads the first)
ONCE = "each field once (which of its values is meant would be a guess)"
REPEATED_KEYS = """
SELECT line, key FROM (SELECT line, unnest(json_keys(j)) AS key FROM staged)
GROUP BY line, key HAVING count(*) > 1 ORDER BY line, key
"""


# ---------------------------------------------------------------- command-line output
SHOWN_NOTE = 60  # characters of a note in the terminal table (JSON has it whole)


def verdict_records(latest: pd.DataFrame) -> list[dict]:
    """The latest verdicts as JSON-ready records (``recorded_at`` as ISO text)."""
    frame = latest.assign(recorded_at=latest["recorded_at"].astype("string"))
    return frame[COLUMNS].to_dict("records")


def verdicts_text(latest: pd.DataFrame) -> str:
    """The latest verdicts as a terminal table; every cell one line with control characters
    escaped (a note cannot move the cursor or fake a row), long notes cut."""
    if latest.empty:
        return "No verdicts recorded yet.\n"
    shown = pd.DataFrame(
        {
            "run": latest["run"],
            "query": latest["query_id"],
            "reason": latest["reason"],
            "owner": latest["owner"],
            "note": latest["note"].map(_cut),
            "recorded by": latest["recorded_by"],
            "recorded at": latest["recorded_at"].astype("string").str.slice(0, 19),
        }
    )
    shown = shown.astype(object).map(lambda cell: one_line(str(cell)) or "—")
    return text_table(shown, "No verdicts recorded yet.") + "\n"


def _cut(note: str) -> str:
    return note if len(note) <= SHOWN_NOTE else note[: SHOWN_NOTE - 1] + "…"
