"""Which judgment store an upload set uses, so two projects' golds of one name never mix
their grades silently.

Uploaded data keeps its grades under ``$RAGRECALL_HOME/stores/``, by default in the store
of its gold's file name: an edited gold uploaded again finds its grades there. But two
different golds named ``gold.jsonl`` would then share one store, and the second project's
numbers would count the first's grades wherever query and chunk ids collide. So each
store remembers which gold contents it was used with (a sidecar
``<store>.golds.json``, written atomically: the store file itself belongs to
:mod:`.store`), and an upload set records its choice in its manifest
(``uploads/<key>.json``: ``store`` and ``gold_sha256``; :func:`.home.store_location`
reads them). When an upload's gold differs from every gold its name's store holding
judgments was used with, the dashboard asks (:func:`open_question`) instead of attaching
it; the answer (:func:`choose`) is kept in the manifest, so a link and a restart reopen
the same store without asking again. A later upload of the same gold follows the last
choice made for it: a switch to its own store marks it in the shared store's record
(:data:`MOVED`), so it never settles unasked on the store it was moved away from. A
store made before this record existed has no record: its golds are unknown, so the
dashboard asks too. Nothing is deleted or moved.

Every change to a record or a manifest is a read, a change and a write, and two dashboard
servers may share one home (two terminals, a team's folder): each change holds an
``fcntl.flock`` on a lock file beside what it changes (``<file>.lock``, left in place: a
lock file removed while another process waits on it would lock nothing), so neither drops
the other's gold or choice. A dropped gold would let a later upload of it share another
gold's judgments unasked. POSIX only (Linux, macOS), as the dashboard is.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs import readers
from ragrecall_core.inputs import store as stores
from ragrecall_core.inputs.home import (
    GOLD_DIGEST,
    SEPARATE,
    SHARED,
    forget_choice,
    is_upload,
    manifest_store,
    upload_manifest,
    upload_store_paths,
)
from ragrecall_core.inputs.secrets import redact_path
from ragrecall_core.output.text import plural

CHOICES = (SHARED, SEPARATE)
RECORD_SUFFIX = ".golds.json"
# a gold's mark in the shared store's record: the last choice made for it was its own store
MOVED = "moved_to_own_store"
LOCK_SUFFIX = ".lock"
# the store tables whose rows are someone's saved work (grades, resolutions, verdicts)
SAVED_TABLES = ("judgments", "resolutions", "verdicts")
# sidecar and manifest changes of this process, one at a time (a read, a change, a write);
# other processes are kept out by the file lock (:func:`changing`)
_WRITE_LOCK = threading.Lock()


@dataclass(frozen=True)
class StoreQuestion:
    """What the dashboard asks before attaching an upload set's gold to the store of its
    name: that store holds ``judgments`` (``None``: it could not be counted) made with
    another gold, first used on ``first_used`` (``None``: a store older than the record)."""

    gold_name: str
    store: Path
    judgments: int | None
    first_used: str | None

    def text(self) -> str:
        """The question as one plain sentence (the file name is shown, never interpreted)."""
        if self.first_used is None:
            made = (
                "made before ragrecall recorded which gold file a store was used with, so it "
                "cannot tell whether they were made with this one"
            )
        else:
            made = f"made with a different gold file (first used {self.first_used})"
        if self.judgments == 0:
            held = (
                f"holds no judgments yet, but it was first used with a different gold file "
                f"({self.first_used}): grades saved for either would count for both"
            )
        elif self.judgments is None:
            held = f"already holds judgments (it could not be read to count them), {made}"
        else:
            held = f"already holds {plural(self.judgments, 'judgment')}, {made}"
        return (
            f"A judgment store for {self.gold_name} {held}. Use it (its grades count where "
            "query and chunk ids match), or start a separate store for this gold?"
        )


def gold_digest(gold: Path) -> str:
    """The SHA-256 of a gold file's bytes, in hex."""
    return readers.sha256_of(gold)


# ---------------------------------------------------------------- a store's record
def record_path(store: Path) -> Path:
    """The sidecar beside ``store`` that lists the gold contents it was used with."""
    return store.with_name(store.name + RECORD_SUFFIX)


def recorded_golds(store: Path) -> list[dict]:
    """The golds ``store`` was used with, oldest first (``sha256``, ``first_used``); none
    when it has no record (made before the record existed) or an unreadable one."""
    try:
        record = json.loads(record_path(store).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    golds = record.get("golds") if isinstance(record, dict) else None
    return [
        g
        for g in golds or []
        if isinstance(g, dict)
        and isinstance(g.get("sha256"), str)
        and GOLD_DIGEST.fullmatch(g["sha256"])
    ]


def record_gold(store: Path, digest: str) -> None:
    """Add ``digest`` to ``store``'s record (once, with today's date), as a gold whose
    last choice is this store: a mark that it moved to a store of its own goes."""
    with changing(record_path(store)):
        golds = recorded_golds(store)
        mine = [g for g in golds if g["sha256"] == digest]
        if mine and MOVED not in mine[0]:
            return
        if mine:
            del mine[0][MOVED]
        else:
            golds.append({"sha256": digest, "first_used": _now()})
        write_atomically(record_path(store), {"golds": golds})


def record_moved(shared: Path, digest: str) -> None:
    """Mark ``digest`` in the shared store's record (when it is listed) as moved to a store
    of its own: the record keeps the gold (another set of it may still use the store, and
    other golds are still asked about it) but a new upload of it no longer settles there."""
    with changing(record_path(shared)):
        golds = recorded_golds(shared)
        mine = [g for g in golds if g["sha256"] == digest]
        if not mine or MOVED in mine[0]:
            return
        mine[0][MOVED] = _now()
        write_atomically(record_path(shared), {"golds": golds})


def last_choice(golds: list[dict], digest: str) -> str | None:
    """The choice last made for the gold content ``digest`` as the shared store's record
    (its ``golds``) keeps it: :data:`SHARED`, :data:`SEPARATE` (moved to its own store), or
    ``None`` (not listed)."""
    for g in golds:
        if g["sha256"] == digest:
            return SEPARATE if MOVED in g else SHARED
    return None


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


@contextmanager
def changing(path: Path) -> Iterator[None]:
    """Hold ``path`` for a read, a change and a write: no other thread of this process and
    no other process holding it meanwhile (a lock file beside it, locked with ``flock``;
    closing it lets go, also when the process dies). Never nested: one file at a time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _WRITE_LOCK, open(path.with_name(path.name + LOCK_SUFFIX), "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        yield


def write_atomically(path: Path, value: dict) -> None:
    """Write ``value`` as JSON to ``path`` whole or not at all (a crash mid-write leaves the
    old file): a temp file in the same folder, flushed, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(value, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
        forget_choice(path)  # a manifest's kept choice (home.manifest_store) is read again
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def saved_judgments(store: Path) -> int | None:
    """How many rows of saved work ``store`` holds: 0 when there is no store file, ``None``
    when it cannot be read (damaged, or held by another process)."""
    if not store.resolve().exists():
        return 0
    try:
        with stores.reading(store) as (con, database):
            return _count_rows(con, database)
    except duckdb.Error:
        return None


def _count_rows(con: duckdb.DuckDBPyConnection, database: str | None) -> int:
    """The rows of :data:`SAVED_TABLES` in ``database`` (``None``: the connection's own)."""
    found = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = coalesce($d, "
        "current_database()) AND schema_name = 'main'",
        {"d": database},
    ).fetchall()
    total = 0
    prefix = f"{database}." if database else ""
    for table in sorted({t for (t,) in found} & set(SAVED_TABLES)):  # names of ours only
        total += con.execute(f"SELECT count(*) FROM {prefix}{table}").fetchone()[0]
    return total


# ---------------------------------------------------------------- an upload set's choice
def read_manifest(manifest: Path) -> dict:
    """An upload set's manifest (InputError naming it when it is no JSON object)."""
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise InputError(
            [Problem(redact_path(manifest), None, str(error), "a JSON object")]
        ) from None
    if not isinstance(record, dict):
        raise InputError([Problem(redact_path(manifest), None, str(record), "a JSON object")])
    return record


def open_question(manifest: Path, gold: Path) -> StoreQuestion | None:
    """Settle which store the upload set of ``manifest`` (gold file ``gold``) uses when
    nothing needs asking, and record it; else the question to ask (nothing recorded).

    No question when the set has chosen already; when its gold has a store of its own
    (chosen before for the same gold in another set); when the store of its name holds no
    judgments yet, or was used with this very gold (the same file uploaded again). A
    manifest saved before the choice existed is settled the same way (its digest added)."""
    record = read_manifest(manifest)
    choice, digest = record.get("store"), record.get("gold_sha256")
    if not (isinstance(digest, str) and GOLD_DIGEST.fullmatch(digest)):
        digest = gold_digest(gold)
        with changing(manifest):  # read again: a choice made meanwhile stays
            record = {**read_manifest(manifest), "gold_sha256": digest}
            write_atomically(manifest, record)
        choice = record.get("store")
    if choice in CHOICES:
        return None
    paths = upload_store_paths(gold.name, digest)
    shared, own = paths[SHARED], paths[SEPARATE]
    golds = recorded_golds(shared)
    last = last_choice(golds, digest)
    if last == SHARED:
        choose(manifest, SHARED)
        return None
    used_own = own.exists() or last_choice(recorded_golds(own), digest) is not None
    if last == SEPARATE or used_own:
        choose(manifest, SEPARATE)
        return None
    held = saved_judgments(shared)
    if held == 0 and not golds:  # a new store, or one nobody has used yet
        choose(manifest, SHARED)
        return None
    first = golds[0]["first_used"] if golds else None
    return StoreQuestion(gold.name, shared, held, str(first)[:40] if first else None)


def choose(manifest: Path, choice: str) -> Path:
    """Keep ``choice`` (:data:`SHARED` or :data:`SEPARATE`) in the upload set's manifest
    and add its gold to the chosen store's record; the store's path."""
    if choice not in CHOICES:
        raise InputError([Problem(redact_path(manifest), None, str(choice), " or ".join(CHOICES))])
    with changing(manifest):
        record = read_manifest(manifest)
        digest = record.get("gold_sha256")
        if not (isinstance(digest, str) and GOLD_DIGEST.fullmatch(digest)):
            raise InputError([Problem(redact_path(manifest), None, str(digest), "a gold SHA-256")])
        record["store"] = choice
        write_atomically(manifest, record)
    paths = upload_store_paths(str(record.get("gold")), digest)
    record_gold(paths[choice], digest)
    if choice == SEPARATE:  # one record at a time: never two locks held
        record_moved(paths[SHARED], digest)
    return paths[choice]


# ---------------------------------------------------------------- changing a choice
@dataclass(frozen=True)
class StoreChoice:
    """An upload set's settled choice: its manifest, its gold's name and SHA-256, the
    choice, and the store each choice means (:data:`SHARED`, :data:`SEPARATE`)."""

    manifest: Path
    gold_name: str
    digest: str
    choice: str
    stores: dict[str, Path]

    @property
    def other(self) -> str:
        """The choice not made: what a change would switch to."""
        return SEPARATE if self.choice == SHARED else SHARED

    def other_golds(self) -> int:
        """How many other gold contents the shared store was used with."""
        return sum(g["sha256"] != self.digest for g in recorded_golds(self.stores[SHARED]))


def current_choice(gold: Path) -> StoreChoice | None:
    """The settled store choice of the upload set whose gold file is ``gold``; ``None`` for
    a gold that is no upload (a folder workspace or a loose file: one store) and for a set
    whose choice is not settled (:func:`open_question` settles or asks first)."""
    if not is_upload(gold):
        return None
    manifest = upload_manifest(gold.parent)
    choice, digest = manifest_store(manifest)
    if choice is None or digest is None:
        return None
    return StoreChoice(manifest, gold.name, digest, choice, upload_store_paths(gold.name, digest))
