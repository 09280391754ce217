"""Where judgments live: a DuckDB file that every submitted judgment is committed to.

The store is append-only. Judging a chunk again adds a row (the latest per
annotator counts); undoing a grade adds a row too (:func:`undo_last`: a copy of the
state before it, or a ``withdrawn`` row); resolving a disagreement adds a resolution,
never overwriting the annotators' grades; the review meeting's verdicts per (run, query)
live in their own ``verdicts`` table (:mod:`ragrecall_core.analysis.verdicts`). A store
written before undo and verdicts existed is upgraded when it is attached writable.

The file sits in the workspace folder
(``judgments.duckdb``), beside a loose gold file (``<gold>.judgments.duckdb``), or, for
uploaded files, under ``$RAGRECALL_HOME/stores/`` keyed by the gold file's name, so that
an edited gold uploaded again finds its grades, unless the upload chose a store of its own
for a gold of other content (:mod:`ragrecall_core.inputs.upload_stores` asks which first).

A store that cannot be written (a read-only workspace) is attached read-only: its grades
count, judging is off. A store DuckDB cannot open (damaged, or held by another process)
is refused with one message naming it; the workspace stays open with file grades only.
Writes to one store are serialised in this process (a lock per store file) and each is
one transaction.
"""

from __future__ import annotations

import tempfile
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs.db import FILE_ONLY_VIEWS, JUDGE_PREFIX  # noqa: F401 (its users)
from ragrecall_core.inputs.grades import SAME_NAME, look_alike_expected, spelling
from ragrecall_core.inputs.home import store_location, uploads_folder  # noqa: F401
from ragrecall_core.inputs.secrets import redact_path, redact_text
from ragrecall_core.inputs.workspace import Workspace

if TYPE_CHECKING:  # frames come from DuckDB's .df(); opening a workspace needs no pandas
    import pandas as pd

STORE = "judgment_store"
STORE_TABLES = {"judgments", "resolutions", "verdicts", "judge_runs"}
# a store written before verdicts (or judge runs) existed: still a store (attached writable,
# it is upgraded); any set of tables between these two is one
OLD_STORE_TABLES = {"judgments", "resolutions"}
STORE_SCHEMA = f"""
CREATE SEQUENCE IF NOT EXISTS {STORE}.judgment_ids;
CREATE TABLE IF NOT EXISTS {STORE}.judgments (
    id BIGINT DEFAULT nextval('{STORE}.judgment_ids'), query_id VARCHAR NOT NULL,
    chunk_id VARCHAR NOT NULL, grade INTEGER NOT NULL CHECK (grade IN (0, 1, 2)),
    harmful BOOLEAN NOT NULL, reason VARCHAR, annotator VARCHAR NOT NULL,
    created_at TIMESTAMP DEFAULT current_timestamp);
ALTER TABLE {STORE}.judgments ADD COLUMN IF NOT EXISTS withdrawn BOOLEAN DEFAULT false;
ALTER TABLE {STORE}.judgments ADD COLUMN IF NOT EXISTS undoes BIGINT;
CREATE SEQUENCE IF NOT EXISTS {STORE}.resolution_ids;
CREATE TABLE IF NOT EXISTS {STORE}.resolutions (
    id BIGINT DEFAULT nextval('{STORE}.resolution_ids'),
    query_id VARCHAR NOT NULL, chunk_id VARCHAR NOT NULL,
    grade INTEGER NOT NULL CHECK (grade IN (0, 1, 2)),
    harmful BOOLEAN NOT NULL, reason VARCHAR, resolver VARCHAR NOT NULL,
    created_at TIMESTAMP DEFAULT current_timestamp);
CREATE SEQUENCE IF NOT EXISTS {STORE}.verdict_ids;
CREATE TABLE IF NOT EXISTS {STORE}.verdicts (
    id BIGINT DEFAULT nextval('{STORE}.verdict_ids'), run VARCHAR NOT NULL,
    query_id VARCHAR NOT NULL, reason VARCHAR NOT NULL, note VARCHAR NOT NULL,
    owner VARCHAR NOT NULL, recorded_by VARCHAR NOT NULL,
    recorded_at TIMESTAMP DEFAULT current_timestamp);
CREATE SEQUENCE IF NOT EXISTS {STORE}.judge_run_ids;
CREATE TABLE IF NOT EXISTS {STORE}.judge_runs (
    id BIGINT DEFAULT nextval('{STORE}.judge_run_ids'), annotator VARCHAR NOT NULL,
    judge VARCHAR NOT NULL, config VARCHAR NOT NULL, package VARCHAR, version VARCHAR,
    recorded_at TIMESTAMP DEFAULT current_timestamp);
ALTER TABLE {STORE}.judgments ADD COLUMN IF NOT EXISTS judge_run BIGINT;
"""

# what the evaluation sees: file grades, plus each annotator's latest stored judgment unless
# that latest row withdraws it (an undone first grade); a withdrawn stored grade lets that
# annotator's file grade count again. {withdrawn} is the column, or ``false`` in a read-only
# store written before undo existed. A model judge's grades (annotator ``judge:NAME``) are
# no human's: they are in ``judge_grades`` only.
ALL_GRADES = f"""
CREATE OR REPLACE VIEW store_latest AS (
    SELECT query_id, chunk_id, annotator, arg_max(grade, id) AS grade,
           arg_max(harmful, id) AS harmful, arg_max(reason, id) AS reason,
           arg_max(coalesce({{withdrawn}}, false), id) AS withdrawn
    FROM {STORE}.judgments GROUP BY query_id, chunk_id, annotator);
CREATE OR REPLACE VIEW all_grades AS
WITH latest AS (SELECT * FROM store_latest WHERE NOT starts_with(annotator, '{JUDGE_PREFIX}'))
SELECT query_id, chunk_id, grade, harmful, reason, annotator, source FROM grades
WHERE NOT starts_with(annotator, '{JUDGE_PREFIX}')
  AND NOT EXISTS (SELECT 1 FROM latest s WHERE s.query_id = grades.query_id
                  AND s.chunk_id = grades.chunk_id AND s.annotator = grades.annotator
                  AND NOT s.withdrawn)
UNION ALL
SELECT query_id, chunk_id, grade, harmful, reason, annotator, 'judge page'
FROM latest WHERE NOT withdrawn;
CREATE OR REPLACE VIEW judge_grades AS
SELECT query_id, chunk_id, grade, harmful, reason, annotator FROM grades
WHERE starts_with(annotator, '{JUDGE_PREFIX}')
  AND NOT EXISTS (SELECT 1 FROM store_latest s WHERE s.query_id = grades.query_id
                  AND s.chunk_id = grades.chunk_id AND s.annotator = grades.annotator)
UNION ALL
SELECT query_id, chunk_id, grade, harmful, reason, annotator FROM store_latest
WHERE starts_with(annotator, '{JUDGE_PREFIX}') AND NOT withdrawn;
CREATE OR REPLACE VIEW all_resolutions AS
SELECT query_id, chunk_id, grade, harmful, reason, resolver, created_at, 0 AS id
FROM resolutions
UNION ALL
SELECT query_id, chunk_id, grade, harmful, reason, resolver, created_at, id
FROM {STORE}.resolutions;
"""


MOVE_ASIDE = (
    "a judgment store written by ragrecall: move the file aside (nothing is deleted) and "
    "reopen; a new store then starts empty"
)
HELD_ELSEWHERE = (
    "a store no other process holds open: close the other program using it, then reopen"
)
READ_ONLY = (
    "a writable location: the store's folder cannot be written, so judging is off (copy "
    "the workspace to a writable folder to judge)"
)

_ATTACH_LOCK = threading.Lock()
# store file -> the workspace that has it attached (DuckDB lets one database attach a file)
_HOLDERS: dict[str, weakref.ref] = {}
# store file -> the file (device, inode) attached under that path: a file replaced or
# removed since is attached again (:func:`open_store`)
_ATTACHED_FILES: dict[str, tuple[int, int] | None] = {}
# store file -> the lock every write, attach and detach of it takes (sessions of one server
# are threads; a detach must not land inside another session's transaction). Always taken
# before _ATTACH_LOCK.
_STORE_LOCKS: dict[str, threading.RLock] = {}
# connection -> how the store is attached to it (:func:`_attached_mode`), until it changes;
# a closed connection that is collected goes with its answer
_MODES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MODES_LOCK = threading.Lock()
# how many times a kept answer was forgotten: one read from before a change is not kept
_MODE_CHANGES = [0]
# store files whose folder was found writable (:func:`writable`): asked on every rerun,
# probed once; forgotten when a write to the store fails
_WRITABLE: set[str] = set()


# ---------------------------------------------------------------- where
def store_path(workspace: Workspace) -> Path:
    """Where a workspace's judgment store lives (:func:`.home.store_location`)."""
    return store_location(workspace.folder, workspace.gold)


# ---------------------------------------------------------------- attaching
@dataclass(frozen=True)
class StoreStatus:
    """What the dashboard can do with a workspace's store, and why not when it cannot."""

    path: Path
    attached: bool
    writable: bool
    problem: str = ""

    @property
    def can_judge(self) -> bool:
        return self.writable and not self.problem

    @property
    def note(self) -> str:
        """One plain sentence for a banner ('' when judging works)."""
        if self.problem:
            return f"Stored judgments are not used: {self.problem}"
        if not self.writable:
            counted = " Its grades are counted." if self.attached else ""
            return (
                f"The judgment store {redact_path(self.path)} is read-only (its folder cannot be "
                f"written): judging is off.{counted} Copy the workspace to a writable folder to "
                "judge."
            )
        return ""


def is_open(workspace: Workspace) -> bool:
    """Whether the judgment store is attached to this workspace's database."""
    return _attached_mode(workspace) is not None


def _attached_mode(workspace: Workspace) -> bool | None:
    """``True`` when the store is attached read-only, ``False`` read-write, ``None`` not.

    Asked on every rerun of every session (:func:`connect_store`, the store's version), it
    is DuckDB's answer kept per connection: only this module attaches or detaches the
    store (:func:`attach_store`, :func:`_release`), and each time it does, the kept answer
    is forgotten (:func:`_forget_mode`). An answer read while one was being forgotten is
    not kept: it may be of the state before."""
    con = workspace.con
    with _MODES_LOCK:
        if con in _MODES:
            return _MODES[con]
        changes = _MODE_CHANGES[0]
    row = (
        workspace.cursor()
        .execute("SELECT readonly FROM duckdb_databases() WHERE database_name = $s", {"s": STORE})
        .fetchone()
    )
    mode = None if row is None else bool(row[0])
    with _MODES_LOCK:
        if _MODE_CHANGES[0] == changes:
            _MODES[con] = mode
    return mode


def _forget_mode(con: duckdb.DuckDBPyConnection) -> None:
    """The store was attached to or detached from ``con`` (or may have been): ask again."""
    with _MODES_LOCK:
        _MODE_CHANGES[0] += 1
        _MODES.pop(con, None)


def is_writable(path: Path) -> bool:
    """Whether the store file (existing or not) and its folder can be written.

    Tried, not asked: permission bits say nothing of what root may write, and DuckDB needs
    the folder too (for its write-ahead log). ``tests/test_store_read_only.py`` makes a
    folder read-only for real (a read-only mount, as root) to check it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            with path.open("r+b"):
                pass
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError:
        return False
    return True


def writable(path: Path) -> bool:
    """:func:`is_writable`, probed once per store file in this process while the answer is
    yes: every rerun of every session asks (:func:`connect_store`), and each probe makes
    and removes a file. A failed write forgets it (:func:`forget_writable`); a no is never
    kept, so a folder made writable again lets judging back on without a restart."""
    if str(path) in _WRITABLE:
        return True
    found = is_writable(path)
    if found:
        _WRITABLE.add(str(path))
    return found


def forget_writable(path: Path) -> None:
    """A write to the store at ``path`` failed: probe its folder again next time."""
    _WRITABLE.discard(str(path))


def open_store(workspace: Workspace, create: bool = False) -> bool:
    """Attach the workspace's judgment store if it exists (or ``create`` it); thread-safe.

    Read-only when it cannot be written (``create`` then raises InputError). A store DuckDB
    cannot open raises InputError naming it. A reloaded workspace (its files changed)
    takes the store over from the previous workspace object of the same files, which
    falls back to file grades only. A store file replaced or removed since it was attached
    (a backup restored, the file moved aside) is let go and the file now at its path
    attached: DuckDB would go on reading and writing the old one, and a save there would
    be gone on the next start.
    """
    path = store_path(workspace).resolve()
    with _store_lock(path), _ATTACH_LOCK:
        mode = _attached_mode(workspace)
        if mode is not None and (
            _file_identity(path) != _ATTACHED_FILES.get(str(path)) or not _holds(workspace, path)
        ):
            _release(workspace)
            mode = None
        if mode is not None and not (create and mode):
            return True
        can_write = writable(path)
        if create and not can_write:
            raise InputError([Problem(redact_path(path), None, "read-only", READ_ONLY)])
        if not create and not path.exists():
            return False
        if mode is not None:  # attached read-only, writable now: attach again to write
            _release(workspace)
        holder = _HOLDERS.get(str(path))
        previous = holder() if holder else None
        if previous is not None and previous is not workspace:
            _release(previous)
        try:
            attach_store(workspace, path, read_only=not can_write)
        except InputError:  # a kept "writable" may be what failed: probe again next time
            forget_writable(path)
            raise
        _HOLDERS[str(path)] = weakref.ref(workspace)
        _ATTACHED_FILES[str(path)] = _file_identity(path)
        return True


def _holds(workspace: Workspace, path: Path) -> bool:
    """Whether the store ``workspace`` has attached is the one at ``path``: an upload set
    whose store choice changed (:mod:`.upload_stores`) has the other one attached, whose
    grades must stop counting at once, also when the chosen store has no file yet."""
    holder = _HOLDERS.get(str(path))
    return holder is not None and holder() is workspace


def _file_identity(path: Path) -> tuple[int, int] | None:
    """The file at ``path`` as (device, inode); ``None`` when there is none."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _store_lock(path: Path) -> threading.RLock:
    return _STORE_LOCKS.setdefault(str(path), threading.RLock())  # atomic in CPython


@contextmanager
def reading(path: Path) -> Iterator[tuple[duckdb.DuckDBPyConnection, str | None]]:
    """A read of the store file at ``path`` by code that holds no workspace of it (what an
    upload's question counts): a connection and the store's database name in it. Under the
    store's own lock, so no attach of it starts meanwhile (DuckDB opens a file once per
    process); through the workspace of this process that has it attached when one has (a
    cursor of it, :data:`STORE`), else a read-only connection of its own (``None``: the
    connection's own database). Raises ``duckdb.Error`` when the file cannot be read
    (damaged, or held by another process)."""
    path = path.resolve()
    with _store_lock(path):
        cursor = _holder_cursor(path)
        if cursor is not None:
            yield cursor, STORE
            return
        con = duckdb.connect(str(path), read_only=True)
        try:
            yield con, None
        finally:
            con.close()


def _holder_cursor(path: Path) -> duckdb.DuckDBPyConnection | None:
    """A cursor of the workspace of this process that has the store at ``path`` attached,
    if any. The holder of record may have another store attached since (an upload set
    whose store choice changed): then it holds none at ``path``."""
    ref = _HOLDERS.get(str(path))
    workspace = ref() if ref else None
    try:
        if workspace is None or not is_open(workspace):
            return None
        cursor = workspace.cursor()
        row = cursor.execute(
            "SELECT path FROM duckdb_databases() WHERE database_name = $s", {"s": STORE}
        ).fetchone()
    except duckdb.Error:  # its connection is closed: the file is free
        return None
    return cursor if row is not None and Path(row[0]).resolve() == path else None


def connect_store(workspace: Workspace) -> StoreStatus:
    """Attach the store for viewing, never raising: what can be done with it, and why not."""
    path = store_path(workspace).resolve()
    try:
        attached = open_store(workspace)
    except InputError as error:
        return StoreStatus(path, attached=False, writable=False, problem=redact_text(str(error)))
    return StoreStatus(path, attached=attached, writable=writable(path))


def _release(workspace: Workspace) -> None:
    """Detach the store from ``workspace``; it is no store's holder any more (an upload
    set's other store, attached later, must not read as this one's)."""
    for key, ref in list(_HOLDERS.items()):
        if ref() is workspace:
            _HOLDERS.pop(key, None)
    con = workspace.con
    try:
        con.execute(FILE_ONLY_VIEWS)
        con.execute(f"DETACH {STORE}")
    except duckdb.Error:  # a closed connection has nothing to release
        pass
    finally:
        _forget_mode(con)


def attach_store(workspace: Workspace, path: Path | None = None, read_only: bool = False) -> Path:
    """Attach the judgment store to the workspace's database (once); return its path.

    Raises InputError naming the file when DuckDB cannot open it as a store."""
    path = Path(path or store_path(workspace))
    if is_open(workspace):
        return path
    con = workspace.con
    try:
        con.execute(
            f"ATTACH $path AS {STORE}" + (" (READ_ONLY)" if read_only else ""),
            {"path": str(path)},
        )
    except duckdb.Error as error:
        raise _unusable(path, error) from None
    finally:
        _forget_mode(con)
    tables = _store_tables(con)
    is_store = OLD_STORE_TABLES <= tables <= STORE_TABLES
    if not is_store and (tables or read_only):  # a DuckDB file, but not a store
        _release(workspace)
        shown = "tables: " + (", ".join(sorted(tables)) or "none")
        raise InputError([Problem(redact_path(path), None, shown, MOVE_ASIDE)])
    try:
        if not read_only:
            con.execute(STORE_SCHEMA)
        con.execute(ALL_GRADES.format(withdrawn=_withdrawn_column(con)))
    except duckdb.Error as error:  # the store's tables, not the store's columns
        _release(workspace)
        raise _unusable(path, error) from None
    return path


def _withdrawn_column(con: duckdb.DuckDBPyConnection) -> str:
    """``withdrawn``, or ``false`` for a read-only store written before undo existed."""
    row = con.execute(
        "SELECT count(*) FROM duckdb_columns() WHERE database_name = $s "
        "AND table_name = 'judgments' AND column_name = 'withdrawn'",
        {"s": STORE},
    ).fetchone()
    return "withdrawn" if row[0] else "false"


def has_table(workspace: Workspace, table: str) -> bool:
    """Whether the attached store has ``table`` (a read-only old store has no verdicts)."""
    return table in _store_tables(workspace.cursor())


def _store_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = $s", {"s": STORE}
    ).fetchall()
    return {r[0] for r in rows}


def _unusable(path: Path, error: duckdb.Error) -> InputError:
    """One problem naming the store, what DuckDB said and what to do."""
    said = _said(path, error)
    expected = HELD_ELSEWHERE if "lock" in said.lower() else MOVE_ASIDE
    return InputError([Problem(redact_path(path), None, said, expected)])


def _said(path: Path, error: duckdb.Error) -> str:
    """What DuckDB said of the store, for a problem's value: its first line without the
    error's kind, the store's path as its name (the problem names the file). Never cut
    here: :class:`Problem` shortens a value, in its middle, so the end stays."""
    said = str(error).split("Error: ", 1)[-1].replace(str(path), path.name)
    return redact_text((said.splitlines() or [""])[0])


# ---------------------------------------------------------------- writing
@contextmanager
def store_transaction(workspace: Workspace) -> Iterator[duckdb.DuckDBPyConnection]:
    """A cursor in one transaction on the writable store, the store's write lock held.

    Raises InputError when the store cannot be written or opened, and when DuckDB fails
    to write it (a full disk): nothing of the transaction is stored, and the one who saved
    is told so by name, never with a traceback."""
    path = store_path(workspace).resolve()
    with _store_lock(path):
        open_store(workspace, create=True)
        con = workspace.cursor()
        con.execute("BEGIN TRANSACTION")
        try:
            yield con
        except BaseException as error:
            con.execute("ROLLBACK")
            if isinstance(error, duckdb.Error):
                raise _not_saved(path, error) from None
            raise
        try:
            con.execute("COMMIT")
        except duckdb.Error as error:  # DuckDB has rolled it back
            raise _not_saved(path, error) from None


NOT_SAVED = (
    "a store the save can be written to: it was not saved (nothing of it is stored); free "
    "disk space or fix the file, then save again"
)


def _not_saved(path: Path, error: duckdb.Error) -> InputError:
    """One problem naming the store and what DuckDB said when a write failed (its folder
    is probed again: it may have become read-only)."""
    forget_writable(path)
    return InputError([Problem(redact_path(path), None, _said(path, error), NOT_SAVED)])


def submit(
    workspace: Workspace,
    query_id: str,
    chunk_id: str,
    grade: int,
    annotator: str,
    harmful: bool = False,
    reason: str = "",
    only_if_new: bool = False,
) -> bool:
    """Commit one judgment now; return whether it was stored.

    Once this returns, the write-ahead log holds it, so it survives a killed process.
    ``only_if_new``: store nothing (return False) when this annotator already graded the
    chunk, checked and written under the store's lock, so two tabs of one annotator cannot
    both store a grade for the same chunk (a deliberate re-grade leaves it False)."""
    _require_valid("judgment", grade, annotator, "the annotator's name")
    row = (query_id, chunk_id, grade, harmful, reason, annotator)
    with store_transaction(workspace) as con:
        _refuse_look_alike(con, annotator.strip())
        if only_if_new and _has_grade(con, annotator, query_id, chunk_id):
            return False
        _append(con, "judgments", "annotator", row)
    return True


def resolve(
    workspace: Workspace,
    query_id: str,
    chunk_id: str,
    grade: int,
    resolver: str,
    harmful: bool = False,
    reason: str = "",
) -> None:
    """Record how a disagreement was settled; the annotators' grades stay as they were."""
    _require_valid("resolution", grade, resolver, "the resolver's name")
    row = (query_id, chunk_id, grade, harmful, reason, resolver)
    with store_transaction(workspace) as con:
        _append(con, "resolutions", "resolver", row)


# this annotator's latest stored grade not yet undone (undo rows themselves are no grades)
LAST_GRADE = f"""
SELECT id, query_id, chunk_id, grade FROM {STORE}.judgments j
WHERE annotator = $a AND undoes IS NULL
  AND NOT EXISTS (SELECT 1 FROM {STORE}.judgments u WHERE u.undoes = j.id)
ORDER BY id DESC LIMIT 1
"""
# the state of that (query, chunk, annotator) just before the undone row, if it had one
STATE_BEFORE = f"""
SELECT grade, harmful, reason, coalesce(withdrawn, false) FROM {STORE}.judgments
WHERE annotator = $a AND query_id = $q AND chunk_id = $c AND id < $id
ORDER BY id DESC LIMIT 1
"""


def undo_last(
    workspace: Workspace, annotator: str, item: tuple[str, str] | None = None
) -> tuple[str, str] | None:
    """Undo ``annotator``'s latest stored grade; return its ``(query_id, chunk_id)``, or
    ``None`` when there is nothing of theirs to undo.

    With ``item`` (the ``(query_id, chunk_id)`` a session graded last), only that grade is
    undone: when another grade of the annotator was stored since (the same name in another
    tab, an import), InputError names it and nothing is undone, so an undo never takes
    back a grade whose saver was told it was saved.

    The store stays append-only: the undo is a new row (``undoes`` = the undone row's id)
    that restores the state before the undone grade (a copy of the previous row of that
    query, chunk and annotator), or withdraws the grade when it was the first one, so the
    chunk returns to the annotator's queue and any file grade of theirs counts again. One
    transaction under the store's lock: a crash leaves either both rows or neither undo."""
    _require_valid("undo", 0, annotator, "the annotator's name")
    person = annotator.strip()
    with store_transaction(workspace) as con:
        last = con.execute(LAST_GRADE, {"a": person}).fetchone()
        if last is None:
            return None
        undone_id, query_id, chunk_id, grade = last
        if item is not None and (query_id, chunk_id) != tuple(item):
            latest = f"chunk {chunk_id} of query {query_id}"
            expected = (
                f"{person}'s latest grade to be the one graded here (chunk {item[1]} of query "
                f"{item[0]}): a grade of {person} was saved since, in another tab or an "
                "import; undo it there"
            )
            raise InputError([Problem("undo", None, latest, expected)])
        before = con.execute(
            STATE_BEFORE, {"a": person, "q": query_id, "c": chunk_id, "id": undone_id}
        ).fetchone()
        grade, harmful, reason, withdrawn = before or (grade, False, "", True)
        row = {**_graded(query_id, chunk_id, grade, harmful, reason), "annotator": person}
        _insert(con, "judgments", {**row, "withdrawn": withdrawn, "undoes": undone_id})
    return query_id, chunk_id


def _has_grade(con: duckdb.DuckDBPyConnection, annotator: str, query_id: str, chunk_id: str):
    row = con.execute(
        "SELECT count(*) FROM all_grades WHERE annotator = $a AND query_id = $q AND chunk_id = $c",
        {"a": annotator.strip(), "q": query_id, "c": chunk_id},
    ).fetchone()
    return row[0] > 0


# the annotators' names of the loaded grades files, and of the store when it is attached
FILE_NAMES = "SELECT annotator, min(source) AS place FROM grades GROUP BY annotator"
STORE_NAMES = f"SELECT DISTINCT annotator, 'the judgment store' FROM {STORE}.judgments"
# the other spellings of $name among them ({names}), one name to a reader as grades files
# are compared with each other (grades.SAME_NAME), each with where it is written
LOOK_ALIKE_NAMES = f"""
WITH named AS ({{names}})
SELECT annotator, place FROM named
WHERE {SAME_NAME.format(name="annotator")} = {SAME_NAME.format(name="$name")}
  AND annotator <> $name
ORDER BY annotator, place
"""


def _refuse_look_alike(con: duckdb.DuckDBPyConnection, name: str, with_store: bool = True) -> None:
    """Refuse to save under ``name`` when it differs only in case or Unicode normalisation
    from an annotator of the loaded grades files or of the store (``Kim`` beside
    ``kim.csv``): saved, it would be a second annotator, agreeing with the first in the
    agreement table and voting twice in the reviewers' median. Neither spelling is surely
    the other's, so nothing is merged, and no saved grade is touched."""
    names = " UNION ALL ".join([FILE_NAMES, STORE_NAMES] if with_store else [FILE_NAMES])
    others = con.execute(LOOK_ALIKE_NAMES.format(names=names), {"name": name}).fetchall()
    if others:
        expected = look_alike_expected(others) + ": judge under that name, or choose another"
        raise InputError([Problem("judgment", None, f"annotator {spelling(name)}", expected)])


def look_alike(workspace: Workspace, name: str) -> Problem | None:
    """The problem of judging under ``name`` (:func:`_refuse_look_alike`), asked when the
    name is typed rather than at its first grade; None when it is its own. Without a store
    attached, the grades files' names alone (a save checks the store's too)."""
    try:
        _refuse_look_alike(workspace.cursor(), name.strip(), with_store=is_open(workspace))
    except InputError as refused:
        return refused.problems[0]
    return None


def _append(con: duckdb.DuckDBPyConnection, table: str, person_column: str, row: tuple) -> None:
    """Insert one grade row into a store table (``table`` and ``person_column`` are
    constants)."""
    query_id, chunk_id, grade, harmful, reason, person = row
    graded = _graded(query_id, chunk_id, grade, harmful, reason)
    _insert(con, table, {**graded, person_column: person.strip()})


def _graded(query_id: str, chunk_id: str, grade: int, harmful: bool, reason: str) -> dict:
    """The columns every grade row has (judgments and resolutions alike)."""
    return {
        "query_id": query_id,
        "chunk_id": chunk_id,
        "grade": grade,
        "harmful": harmful,
        "reason": reason.strip(),
    }


def _insert(
    con: duckdb.DuckDBPyConnection, table: str, values: dict, returning: str = ""
) -> duckdb.DuckDBPyConnection:
    """Append one row to the store's ``table``. The table's and the columns' names (the keys of
    ``values``) are this module's constants, never input; every value is bound."""
    columns = ", ".join(values)
    places = ", ".join(f"${column}" for column in values)
    tail = f" RETURNING {returning}" if returning else ""
    return con.execute(f"INSERT INTO {STORE}.{table} ({columns}) VALUES ({places}){tail}", values)


def kept_for_judges(person: str) -> bool:
    """Whether ``person`` is a name kept for model judges (it starts with
    :data:`JUDGE_PREFIX`): a person judging by hand cannot take it."""
    return person.strip().startswith(JUDGE_PREFIX)


def _require_valid(
    what: str, grade: int, person: str, expected_person: str, judge: bool = False
) -> None:
    """A grade of 0 / 1 / 2 and a person's name; a model judge's name (``judge=True``)
    starts with :data:`JUDGE_PREFIX`, a human's never does."""
    problems = []
    if grade not in (0, 1, 2) or isinstance(grade, bool):
        problems.append(Problem(what, None, str(grade), "a grade of 2, 1 or 0"))
    if not isinstance(person, str) or not person.strip():
        problems.append(Problem(what, None, repr(person), expected_person))
    elif kept_for_judges(person) != judge:
        kept = (
            f"a name starting with {JUDGE_PREFIX!r}"
            if judge
            else (f"{expected_person} not starting with {JUDGE_PREFIX!r} (kept for model judges)")
        )
        problems.append(Problem(what, None, person.strip(), kept))
    if problems:
        raise InputError(problems)


# ---------------------------------------------------------------- model judges
def record_judge_run(
    workspace: Workspace,
    annotator: str,
    judge: str,
    config: str,
    package: str | None,
    version: str | None,
) -> int:
    """Record what a model judge is (its redacted config as JSON text, its package and
    version) before it grades; return the id its grades carry."""
    _require_valid("judge", 0, annotator, "the judge's name", judge=True)
    with store_transaction(workspace) as con:
        described = {"judge": judge, "config": config, "package": package, "version": version}
        row = _insert(
            con, "judge_runs", {"annotator": annotator.strip(), **described}, returning="id"
        ).fetchone()
    return int(row[0])


def submit_judge_grade(
    workspace: Workspace,
    query_id: str,
    chunk_id: str,
    grade: int,
    annotator: str,
    judge_run: int,
    harmful: bool = False,
    reason: str = "",
) -> None:
    """Commit one model judge's grade now (append-only, as :func:`submit`)."""
    _require_valid("judge", grade, annotator, "the judge's name", judge=True)
    with store_transaction(workspace) as con:
        row = {**_graded(query_id, chunk_id, grade, harmful, reason), "judge_run": judge_run}
        _insert(con, "judgments", {**row, "annotator": annotator.strip()})


def judge_grades(workspace: Workspace, annotator: str | None = None) -> pd.DataFrame:
    """Every model judge's latest grade (``annotator`` only, if given), from grades files
    and, when it is attached (:func:`open_store`), the store: query_id, chunk_id, grade,
    harmful, reason, annotator. Never attaches it: what counts stays the caller's choice."""
    return (
        workspace.cursor()
        .execute(
            "SELECT * FROM judge_grades WHERE $a IS NULL OR annotator = $a "
            "ORDER BY annotator, query_id, chunk_id",
            {"a": annotator},
        )
        .df()
    )


def judge_runs(workspace: Workspace) -> pd.DataFrame:
    """What each model judge was when it graded (id, annotator, judge, config, package,
    version, recorded_at); empty without a store or in an old read-only one."""
    if not (is_open(workspace) and has_table(workspace, "judge_runs")):
        return workspace.cursor().execute("SELECT NULL AS id WHERE false").df()
    return workspace.cursor().execute(f"SELECT * FROM {STORE}.judge_runs ORDER BY id").df()


def stored_judgments(workspace: Workspace, annotator: str | None = None) -> pd.DataFrame:
    return (
        workspace.cursor()
        .execute(
            f"SELECT * FROM {STORE}.judgments WHERE $a IS NULL OR annotator = $a ORDER BY id",
            {"a": annotator},
        )
        .df()
    )


def export_grades(workspace: Workspace) -> pd.DataFrame:
    """Every current grade (files and judge page) in the grades file format (query_id,
    chunk_id, grade, harmful, reason, annotator)."""
    return (
        workspace.cursor()
        .execute(
            "SELECT query_id, chunk_id, grade, harmful, reason, annotator FROM all_grades "
            "ORDER BY annotator, query_id, chunk_id"
        )
        .df()
    )
