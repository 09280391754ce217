"""Loaded, validated workspaces kept on disk by content, so a second open reads one file.

Reading and checking every input again costs seconds at 10,000 queries (four 66 MB JSONL
runs: ~5 s); copying the tables a clean load made back from a DuckDB file costs well under
one. A cache file is ``<cache dir>/<key>.duckdb``; the default folder is
``$RAGRECALL_HOME/cache`` (made 0700, files 0600). ``$RAGRECALL_CACHE=off`` turns every
cache off, whatever a caller passes.

**Key**: a sha256 over :data:`SCHEMA_VERSION`, ragrecall's and DuckDB's versions (DuckDB's
readers and casts make the tables too), the bytes of the loader's own source
(``ragrecall_core/inputs/*.py``: a changed loader never reads an old cache), how the
workspace is loaded (loose files or a BEIR folder) and, for every file the load reads, in
order: its role, its path as given (paths are stored in the tables) and its bytes (a run's
absent config sidecar counts as absent). Never mtimes: a file's digest is
only remembered in this process under its (path, size, mtime, ctime, inode), so a changed
file is read again. A path that is no regular file (a FIFO, a folder) means no cache at all.

**Miss**: the load runs as without a cache, with a temporary file in the cache folder
attached before the connection is locked down. Only a load without any problem is kept:
a background thread (a cursor: a connection is not thread-safe) copies every table of the
in-memory database's ``main`` schema into it (the judgment store is a separate database
and never copied), checkpoints, detaches, makes it 0600, signs it (appends the signature,
fsync) and renames it into place atomically. Writing
takes ~1.4 s at 10,000 queries, so the workspace is returned without waiting for it;
:func:`wait_for_writes` waits (tests, benchmarks); Python waits for it before exiting.
A file changed from before its key was made to the end of the load (its size, mtime, ctime,
inode or device moved: edited, or a symlink pointed elsewhere) is not kept.

**Trust**: a cache file is read only if this module wrote it. It must be owned by the
current user, mode 0600, with nothing beside it (DuckDB replays a write-ahead log onto a
file it attaches, read-only too, and the signature covers the file alone: a write clears
one), and end in :data:`SIGNATURE_MAGIC` plus an HMAC-SHA256 over its key and every byte
before the signature, keyed by the user's secret (:data:`SECRET_NAME` in
``$RAGRECALL_HOME``: 32 random bytes, made 0600 with O_EXCL and linked into place). All
of it is checked through one descriptor opened without following a symlink, before DuckDB
opens the file (~0.05 s at 47 MB); the folder is the user's and 0700, so no one else can
swap the file between the check and the attach. A secret file that is not the user's
alone (someone else's, not 0600, a symlink, not 32 bytes) is named on stderr once and no
cache is used: it is never replaced silently.

**Hit**: a fresh connection (:func:`.db.connect`) attaches the file read-only, checks that
it holds exactly the tables a load makes with the columns they have (and its own key),
copies the schema's own tables in, leaves the run tables where they are (each
``run_table_<n>`` a view of the file's, which stays attached read-only for the
connection's life), and recreates the ``runs`` view; the caller then locks it down with
the same files as a fresh load. Copying the runs in was most of a restore (4 x 1M rows at
10,000 queries: ~0.55 of ~0.7 CPU s), and DuckDB scans the file's compressed columns as
fast as an in-memory table, holding fewer bytes. The file is not written again in place
(a new one replaces it by rename, eviction unlinks it): the attached one stays the bytes
that were checked. Any file that fails a check (foreign, open to others, unsigned, edited,
garbage, other tables) is named in one line on stderr (once per process), is a miss, and
is written again; a cache folder that cannot be used (a symlink, a file, not writable) is
named in one line on stderr and the load goes on without a cache.

**Fill**: inside :func:`filling` (a fresh server's child process,
:mod:`ragrecall_app.cache_fill`) a load only fills the cache: a trusted file already there
is not restored (:class:`AlreadyCached`), any other load reads, checks and writes as on a
miss.

**Eviction**: after each write, at most :data:`MAX_FILES` (8) cache files and
:data:`MAX_BYTES` (2 GB) together stay, the most recently used first (a hit touches its
file). A temporary file is named with its writer's process id: a load that writes the
cache (before it makes its own) and each eviction remove those whose process is gone (a
fill's child killed with the server, a process that crashed), whatever their age, and
never one whose process lives (another server writing the same key, this process's own
writer threads). A temporary file without a writer's id (an older ragrecall's) goes
once it is older than an hour.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import re
import secrets
import stat
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import duckdb

from ragrecall_core.inputs.db import STORE_FILE_SUFFIXES, connect
from ragrecall_core.inputs.home import ragrecall_home
from ragrecall_core.inputs.readers import file_stamp
from ragrecall_core.inputs.runs import runs_view_sql
from ragrecall_core.inputs.secrets import redact_path
from ragrecall_core.inputs.sql import quote_identifier
from ragrecall_core.version import __version__

# bump whenever the tables a load creates change (names, columns, meaning)
SCHEMA_VERSION = 2
CACHE_ENV = "RAGRECALL_CACHE"
MAX_FILES = 8
MAX_BYTES = 2 * 10**9
STALE_TEMP_SECONDS = 3600
ALIAS = "ragrecall_load_cache"
KEY_TABLE = "ragrecall_load_cache_key"
CACHE_NAME = re.compile(r"[0-9a-f]{64}\.duckdb")
TEMP_PREFIX = ".tmp-"
# a temporary cache file (or a file DuckDB keeps beside it): key, writer's pid, uuid
TEMP_NAME = re.compile(r"\.tmp-[0-9a-f]{64}-([0-9]{1,10})-[0-9a-f]{32}\.duckdb(\.[a-z.]+)?")
RUN_TABLE = re.compile(r"run_table_[0-9]{1,6}")
# every run loader makes these columns (runs.py); the ``runs`` view reads them
RUN_TABLE_COLUMNS = (
    ("qid", "VARCHAR"),
    ("docno", "VARCHAR"),
    ("rank", "BIGINT"),
    ("score", "DOUBLE"),
    ("typed", "BOOLEAN"),
    ("position", "BIGINT"),
)
# a run read as listed JSON lines holds its positions as INTEGER (a narrower table)
RUN_POSITION_TYPES = ("BIGINT", "INTEGER")
LOADER_SOURCES = Path(__file__).parent
# the user's signing key, in $RAGRECALL_HOME; a cache file ends in MAGIC + its HMAC-SHA256
SECRET_NAME = "load_cache.secret"
SECRET_SIZE = 32
SIGNATURE_MAGIC = b"\nragrecall load cache hmac-sha256 v1\n"
MAC_SIZE = hashlib.sha256().digest_size
SIGNATURE_SIZE = len(SIGNATURE_MAGIC) + MAC_SIZE
READ_CHUNK = 1 << 20
# an input is hashed in slices of this many bytes (_sha256_of)
HASH_SLICE = 8 << 20
# opening never follows a symlink and never waits on a FIFO
OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK

Loaded = TypeVar("Loaded")


@dataclass(frozen=True)
class LoadPlan:
    """What one load reads: its kind (``files`` / ``beir``) and every file with its role."""

    kind: str
    files: tuple[tuple[str, Path], ...]


def load(
    cache: str | Path | None,
    plan: LoadPlan,
    memory_limit: str | None,
    fresh: Callable[[duckdb.DuckDBPyConnection], Loaded],
    restored: Callable[[duckdb.DuckDBPyConnection, dict[str, Path]], Loaded],
) -> Loaded:
    """``fresh(con)`` loads the inputs into a new connection (locking it down first, raising
    on problems); ``restored(con, runs)`` makes the same result from a connection the cache
    filled (``runs``: run name -> path, in load order). With no cache folder, or caching off,
    ``fresh`` alone."""
    folder = usable_folder(Path(cache)) if cache is not None and enabled() else None
    # the inputs' identities before their bytes make the key: one that moves before the
    # load ends (edited, or a symlink pointed elsewhere) leaves the load unkept
    before = fingerprints(plan) if folder is not None else ()
    key = cache_key(plan) if folder is not None else None
    secret = user_secret() if key is not None else None
    if folder is None or key is None or secret is None:
        return fresh(connect(memory_limit=memory_limit))
    path = folder / f"{key}.duckdb"
    filled = _FILLING.get()
    if filled is not None:
        filled.append(path)
        if _trusted(path, key, secret):
            raise AlreadyCached(path)
        return _load_and_keep(folder, key, plan, before, memory_limit, fresh, secret)
    con = restore(path, key, memory_limit, secret)
    if con is not None:
        _touch(path)
        return restored(con, run_paths(con))
    return _load_and_keep(folder, key, plan, before, memory_limit, fresh, secret)


class AlreadyCached(Exception):
    """Raised by a load inside :func:`filling` when a trusted cache file holds its inputs."""


# the cache files the loads of a filling() block keep (or found kept); None outside one
_FILLING: ContextVar[list[Path] | None] = ContextVar("ragrecall_load_cache_filling", default=None)


@contextmanager
def filling() -> Iterator[list[Path]]:
    """A block whose loads only fill the cache (a fresh server's child process:
    :mod:`ragrecall_app.cache_fill`): a load whose trusted file is already there raises
    :class:`AlreadyCached` instead of restoring it, any other reads and checks its inputs
    and writes the file as on a miss (an untrusted one is named and written again). Yields
    the list of the cache files those loads keep, or found; :func:`wait_for_writes` then
    waits for them (a load with problems raises, and keeps none)."""
    paths: list[Path] = []
    token = _FILLING.set(paths)
    try:
        yield paths
    finally:
        _FILLING.reset(token)


def _trusted(path: Path, key: str, secret: bytes) -> bool:
    """Whether ``path`` is a cache file this module wrote for ``key`` (one that is not is
    named on stderr once, as a restore names it)."""
    try:
        why = distrust(path, key, secret)
    except FileNotFoundError:
        return False
    if why:
        _ignored(path, why)
    return not why


def enabled() -> bool:
    """False when ``$RAGRECALL_CACHE`` is ``off`` (any case); another value than ``on`` or
    empty is named on stderr once and leaves the cache on."""
    value = os.environ.get(CACHE_ENV, "").strip().lower()
    if value not in ("", "on", "off"):
        _warn_once(f"{CACHE_ENV}={value[:40]!r} ignored: expected off or on")
    return value != "off"


def default_folder() -> Path:
    """``$RAGRECALL_HOME/cache``."""
    return ragrecall_home() / "cache"


# ---------------------------------------------------------------- the key
_DIGESTS: dict[tuple, bytes] = {}
_LOADER_DIGEST: list[bytes] = []


def cache_key(plan: LoadPlan) -> str | None:
    """The content key of ``plan``, or None when one of its files cannot be read as a
    regular file (the load then reports it)."""
    digest = hashlib.sha256()
    engine = f"duckdb {duckdb.__version__}"  # its readers and casts make the tables too
    for part in (f"schema {SCHEMA_VERSION}", f"ragrecall {__version__}", engine, plan.kind):
        frame_part(digest, part.encode())
    digest.update(_loader_digest())
    for role, path in plan.files:
        found = file_digest(path)
        if found is None:
            return None
        frame_part(digest, role.encode())
        frame_part(digest, os.fsencode(str(path)))
        digest.update(found)
    return digest.hexdigest()


def frame_part(digest, data: bytes) -> None:
    """Length-prefixed, so no two different sequences of parts hash alike."""
    digest.update(len(data).to_bytes(8, "big"))
    digest.update(data)


def _loader_digest() -> bytes:
    if not _LOADER_DIGEST:
        digest = hashlib.sha256()
        for source in sorted(LOADER_SOURCES.glob("*.py")):
            frame_part(digest, source.name.encode())
            frame_part(digest, source.read_bytes())
        _LOADER_DIGEST.append(digest.digest())
    return _LOADER_DIGEST[0]


def file_digest(path: Path) -> bytes | None:
    """sha256 of the file's bytes (``absent`` for a file that does not exist), remembered
    under its identity; None for anything but a regular file or a missing one."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return b"absent"
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    identity = (
        str(path.resolve()),
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,  # any write moves it; no one can set it back (utime sets mtime)
        info.st_ino,
        info.st_dev,
    )
    if identity not in _DIGESTS:
        try:
            found = b"file" + _sha256_of(path)
        except OSError:
            return None
        if len(_DIGESTS) >= 1024:
            _DIGESTS.clear()
        _DIGESTS[identity] = found
    return _DIGESTS[identity]


def _sha256_of(path: Path) -> bytes:
    """sha256 of the file's bytes, read in slices of :data:`HASH_SLICE` into one buffer.
    ``hashlib.file_digest`` reads 256 KB at a time, and each slice takes the interpreter's
    lock twice (the read, the update): beside a thread that holds it (a fresh server
    imports pandas and starts streamlit while its inputs are hashed) the waits added up."""
    digest = hashlib.sha256()
    buffer = bytearray(HASH_SLICE)
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as handle:
        while read := handle.readinto(buffer):
            digest.update(view[:read])
    return digest.digest()


def hash_beside(paths: Sequence[Path], threads: int = 2) -> None:
    """Hash ``paths`` (:func:`file_digest`, remembered) in ``threads`` threads at once:
    sha256 leaves the interpreter's lock free, so a fresh server's inputs (four 66 MB runs
    at 10,000 queries) are hashed on both cores before its key is made of them."""
    from concurrent.futures import ThreadPoolExecutor

    largest_first = sorted(dict.fromkeys(paths), key=_size, reverse=True)
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        list(pool.map(file_digest, largest_first))


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def fingerprints(plan: LoadPlan) -> tuple:
    """The :func:`~ragrecall_core.inputs.readers.file_stamp` of every file of ``plan``:
    whether one changed between the making of its key and the end of a load."""
    return tuple(file_stamp(path) for _role, path in plan.files)


# ---------------------------------------------------------------- the folder
_WARNED: set[str] = set()


def usable_folder(folder: Path) -> Path | None:
    """``folder``, made 0700 when missing, or None (named on stderr once) when it is a
    symlink, no folder, someone else's, or cannot be written."""
    try:
        if not os.path.lexists(folder):
            folder.parent.mkdir(parents=True, exist_ok=True)
            folder.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError as error:
        return _refused(folder, error.strerror or "cannot be made")
    if stat.S_ISLNK(info.st_mode):
        return _refused(folder, "a symlink (a cache folder must be a real folder)")
    if not stat.S_ISDIR(info.st_mode):
        return _refused(folder, "not a folder")
    if info.st_uid != os.getuid():
        return _refused(folder, "owned by another user")
    if not os.access(folder, os.W_OK | os.X_OK):
        return _refused(folder, "not writable")
    if stat.S_IMODE(info.st_mode) & 0o077:
        try:
            os.chmod(folder, 0o700)
        except OSError as error:
            return _refused(folder, error.strerror or "cannot be made private")
    return folder


def _refused(folder: Path, why: str) -> None:
    _warn_once(f"load cache {redact_path(folder)} not used: {why}; inputs are read in full")
    return None


def _warn_once(line: str) -> None:
    if line not in _WARNED:
        _WARNED.add(line)
        print(f"ragrecall: {line}", file=sys.stderr)


# ---------------------------------------------------------------- trust
def user_secret() -> bytes | None:
    """The user's signing key, ``$RAGRECALL_HOME/load_cache.secret`` (32 random bytes, the
    user's, 0600), made when missing; None (named on stderr once) when the file there is
    anything else: a key others could read or write signs nothing, and it is not replaced."""
    path = ragrecall_home() / SECRET_NAME
    try:
        found = _read_secret(path)
    except FileNotFoundError:
        found = _make_secret(path)
    if isinstance(found, bytes):
        return found
    _warn_once(
        f"load cache not used: its key {redact_path(path)} is {found}; inputs are read in full"
    )
    return None


def _read_secret(path: Path) -> bytes | str:
    """The key in ``path``, or why it is not one; FileNotFoundError when there is none."""
    try:
        descriptor = os.open(path, OPEN_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as error:
        return _open_failure(error)
    with os.fdopen(descriptor, "rb") as handle:
        why = not_private(os.fstat(descriptor))
        data = b"" if why else handle.read(SECRET_SIZE + 1)
    if why or len(data) == SECRET_SIZE:
        return why or data
    return f"{len(data)} bytes long, not {SECRET_SIZE}"


def _make_secret(path: Path) -> bytes | str:
    """Write a new key beside ``path`` (O_EXCL, 0600 whatever the umask) and link it into
    place: a process reading it meanwhile finds no file or the whole key, and of two
    processes making one at once the first link wins and both use it."""
    temp = path.with_name(f"{TEMP_PREFIX}{path.name}-{uuid.uuid4().hex}")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        with os.fdopen(os.open(temp, flags, 0o600), "wb") as handle:
            os.fchmod(handle.fileno(), 0o600)
            handle.write(secrets.token_bytes(SECRET_SIZE))
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temp, path)
        except FileExistsError:
            pass
        return _read_secret(path)
    except OSError as error:
        return f"not to be made ({error.strerror or type(error).__name__})"
    finally:
        temp.unlink(missing_ok=True)


def not_private(info: os.stat_result) -> str:
    """Why a file with this stat is not one this user alone wrote ('' when it is)."""
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if info.st_uid != os.getuid():
        return f"owned by another user (uid {info.st_uid})"
    mode = stat.S_IMODE(info.st_mode)
    return f"mode {mode:04o}, not 0600" if mode != 0o600 else ""


def _open_failure(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "a symlink"
    return error.strerror or type(error).__name__


def signer(secret: bytes, key: str):
    """An HMAC-SHA256 keyed by ``secret`` that has read the ``key`` a file is stored under."""
    mac = hmac.new(secret, digestmod=hashlib.sha256)
    frame_part(mac, key.encode())
    return mac


def _mac_of(handle, length: int, mac) -> bytes | None:
    """``mac`` over the first ``length`` bytes of ``handle``; None if the file is shorter."""
    handle.seek(0)
    while length:
        chunk = handle.read(min(READ_CHUNK, length))
        if not chunk:
            return None
        mac.update(chunk)
        length -= len(chunk)
    return mac.digest()


def distrust(path: Path, key: str, secret: bytes) -> str:
    """Why the cache file ``path`` is not one this module wrote for ``key`` ('' when it
    is): read through one descriptor, never following a symlink, before DuckDB opens it.
    FileNotFoundError when there is none."""
    try:
        descriptor = os.open(path, OPEN_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as error:
        return _open_failure(error)
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(descriptor)
        why = not_private(info)
        if why:
            return why
        if any(os.path.lexists(file) for file in _beside(path)):
            # DuckDB would replay a write-ahead log onto the signed bytes, read-only too
            return "a write-ahead log lies beside it"
        length = info.st_size - SIGNATURE_SIZE
        if length < 0:
            return "not signed"
        handle.seek(length)
        tail = handle.read(SIGNATURE_SIZE)
        if not tail.startswith(SIGNATURE_MAGIC):
            return "not signed"
        found = _mac_of(handle, length, signer(secret, key))
    if found is None or not hmac.compare_digest(found, tail[len(SIGNATURE_MAGIC) :]):
        return "its signature does not match its content"
    return ""


def sign(path: Path, key: str, secret: bytes) -> None:
    """Append the signature of ``path``'s bytes (stored under ``key``) and sync the file."""
    with open(path, "r+b") as handle:
        length = handle.seek(0, os.SEEK_END)
        found = _mac_of(handle, length, signer(secret, key))
        handle.seek(length)
        handle.write(SIGNATURE_MAGIC + found)
        handle.flush()
        os.fsync(handle.fileno())


# ---------------------------------------------------------------- hit
def restore(
    path: Path, key: str, memory_limit: str | None, secret: bytes
) -> duckdb.DuckDBPyConnection | None:
    """A new in-memory connection holding the tables of the cache file ``path``, the
    ``runs`` view recreated; None when the file is missing or not what this module wrote
    (named on stderr once: it is written again)."""
    if not _trusted(path, key, secret):
        return None
    con = connect(memory_limit=memory_limit)
    try:
        con.execute(f"ATTACH $path AS {ALIAS} (READ_ONLY)", {"path": str(path)})
        tables = _valid_tables(con, key)
        if tables is None:
            con.close()
            return _ignored(path, "it holds other tables than a load makes")
        _copy_in(con, *tables)
    except (duckdb.Error, OSError):
        con.close()
        return _ignored(path, "DuckDB cannot read it")
    return con


def _ignored(path: Path, why: str) -> None:
    # the folder is the user's ($RAGRECALL_HOME), the name a content key: hex, kept whole
    shown = Path(redact_path(path.parent)) / path.name
    _warn_once(f"load cache file {shown} ignored: {why}; it is written again from the inputs")
    return None


# the tables of two databases' main schemas (views aside) with their columns, in order
_COLUMNS_SQL = """
SELECT database_name, table_name, list(column_name || ' ' || data_type ORDER BY column_index)
FROM duckdb_columns() WHERE list_contains($dbs, database_name) AND schema_name = 'main'
AND (database_name, table_name) IN (SELECT (database_name, table_name) FROM duckdb_tables()
                                    WHERE list_contains($dbs, database_name)
                                      AND schema_name = 'main')
GROUP BY ALL
"""


def _columns(con: duckdb.DuckDBPyConnection) -> tuple[dict, dict]:
    """The tables of the connection's own database and of the attached cache file, each
    name -> its columns (one query: each call waits to take the interpreter's lock back)."""
    found: dict[str, dict[str, tuple[str, ...]]] = {"memory": {}, ALIAS: {}}
    for database, name, columns in con.execute(_COLUMNS_SQL, {"dbs": list(found)}).fetchall():
        found[database][name] = tuple(columns)
    return found["memory"], found[ALIAS]


# the key a cache file names and its run tables, in their names' order
_KEY_AND_RUNS_SQL = f"""
SELECT (SELECT list(key) FROM {ALIAS}.{KEY_TABLE}),
       (SELECT coalesce(list(tbl ORDER BY tbl), []) FROM {ALIAS}.run_files)
"""


def _valid_tables(con: duckdb.DuckDBPyConnection, key: str) -> tuple[list[str], list[str]] | None:
    """The tables to copy (the load's fixed tables, and its run tables), or None unless the
    cache holds exactly those, with the columns a load makes, and names ``key``."""
    expected, cached = _columns(con)  # expected: the schema connect() made
    if cached.get(KEY_TABLE) != ("key VARCHAR",) or cached.get("run_files") is None:
        return None
    stored_key, run_tables = con.execute(_KEY_AND_RUNS_SQL).fetchone()
    wanted = expected | {KEY_TABLE: ("key VARCHAR",)}
    named_well = all(isinstance(t, str) and RUN_TABLE.fullmatch(t) for t in run_tables)
    fixed = {table: columns for table, columns in cached.items() if table not in run_tables}
    runs_well = all(cached.get(table) in _RUN_SCHEMAS for table in run_tables)
    if stored_key != [key] or not named_well or fixed != wanted or not runs_well:
        return None
    return sorted(expected), run_tables


# the column lists a run table may have, as _columns reports them: one per position type
_RUN_SCHEMAS = {
    tuple(f"{name} {position if name == 'position' else kind}" for name, kind in RUN_TABLE_COLUMNS)
    for position in RUN_POSITION_TYPES
}


def _copy_in(con: duckdb.DuckDBPyConnection, fixed: Sequence[str], runs: Sequence[str]) -> None:
    """Cached rows into the schema's ``fixed`` tables (keys and constraints as a load has
    them); each of the ``runs`` tables a view of the attached file's, read in place (its rows
    in their stored order, the columns the load gave it); then the ``runs`` view made again
    (all_grades / all_resolutions: connect() made them). One call: each waits to take the
    interpreter's lock back (db.connect). Names were checked against the schema and
    :data:`RUN_TABLE` before any reaches SQL."""
    names = [quote_identifier(table) for table in fixed]
    copies = [f"INSERT INTO main.{name} SELECT * FROM {ALIAS}.{name}" for name in names]
    names = [quote_identifier(table) for table in runs]
    copies += [f"CREATE VIEW main.{name} AS SELECT * FROM {ALIAS}.{name}" for name in names]
    con.execute("; ".join(["BEGIN", *copies, "COMMIT", runs_view_sql(runs)]))


def run_paths(con: duckdb.DuckDBPyConnection) -> dict[str, Path]:
    """Run name -> its file, in load order (run tables are numbered as they are loaded)."""
    rows = con.execute(
        "SELECT run, path FROM run_files ORDER BY CAST(substr(tbl, 11) AS INTEGER)"
    ).fetchall()
    return {run: Path(path) for run, path in rows}


def _touch(path: Path) -> None:
    """Mark ``path`` as used now (eviction keeps the most recently used)."""
    try:
        os.utime(path)
    except OSError:
        pass


# ---------------------------------------------------------------- miss
def _load_and_keep(
    folder: Path,
    key: str,
    plan: LoadPlan,
    before: tuple,
    memory_limit: str | None,
    fresh: Callable[[duckdb.DuckDBPyConnection], Loaded],
    secret: bytes,
) -> Loaded:
    """Load with a temporary cache file attached (before ``fresh`` locks the connection
    down); keep it only when the load raised nothing and no input changed since its
    :func:`fingerprints` were ``before`` (taken before the key was made)."""
    con = connect(memory_limit=memory_limit)
    remove_dead_writers(folder)
    temp = folder / f"{TEMP_PREFIX}{key}-{os.getpid()}-{uuid.uuid4().hex}.duckdb"
    try:
        con.execute(f"ATTACH $path AS {ALIAS}", {"path": str(temp)})
    except duckdb.Error:
        _refused(folder, "a cache file cannot be made in it")
        _remove(temp)
        return fresh(con)
    try:
        loaded = fresh(con)
    except BaseException:
        _discard(con.cursor(), temp)
        raise
    if fingerprints(plan) != before:
        _discard(con.cursor(), temp)
        return loaded
    tables = _tables_to_keep(con)
    writer = threading.Thread(
        target=_write,
        args=(con.cursor(), tables, temp, folder / f"{key}.duckdb", key, secret),
        name=f"ragrecall-load-cache-{key[:8]}",
    )
    with _PENDING_LOCK:
        _PENDING.add(writer)
    writer.start()
    return loaded


def _tables_to_keep(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every table of the in-memory database's main schema (the load's tables)."""
    rows = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = 'memory' "
        "AND schema_name = 'main' ORDER BY table_name"
    ).fetchall()
    return [row[0] for row in rows]


_PENDING: set[threading.Thread] = set()
_PENDING_LOCK = threading.Lock()


def wait_for_writes() -> None:
    """Wait until every cache file this process is writing is in place (or given up)."""
    with _PENDING_LOCK:
        pending = list(_PENDING)
    for writer in pending:
        writer.join()


def _write(
    cur: duckdb.DuckDBPyConnection,
    tables: Sequence[str],
    temp: Path,
    final: Path,
    key: str,
    secret: bytes,
) -> None:
    """Copy ``tables`` into the attached temporary file, sign it, then move it into place.
    Table names come from the catalog of the load's own database (quoted all the same)."""
    try:
        cur.execute("BEGIN")
        for table in tables:
            name = quote_identifier(table)
            cur.execute(f"CREATE TABLE {ALIAS}.{name} AS SELECT * FROM main.{name}")
        cur.execute(f"CREATE TABLE {ALIAS}.{KEY_TABLE} (key VARCHAR)")
        cur.execute(f"INSERT INTO {ALIAS}.{KEY_TABLE} VALUES ($key)", {"key": key})
        cur.execute("COMMIT")
        cur.execute(f"CHECKPOINT {ALIAS}")
        cur.execute(f"DETACH {ALIAS}")
        if any(p.exists() for p in _beside(temp)):  # a log not folded in: not one file
            raise OSError("a write-ahead log remained")
        os.chmod(temp, 0o600)
        sign(temp, key, secret)
        for file in _beside(final):  # a log beside it would be replayed onto it
            file.unlink(missing_ok=True)
        os.replace(temp, final)
        evict(final.parent)
    except (duckdb.Error, OSError):
        _discard(cur, temp)
    finally:
        cur.close()
        with _PENDING_LOCK:
            _PENDING.discard(threading.current_thread())


def _discard(cur: duckdb.DuckDBPyConnection, temp: Path) -> None:
    """Detach the temporary cache file (if still attached) and delete it."""
    try:
        cur.execute("ROLLBACK")
    except duckdb.Error:
        pass
    try:
        cur.execute(f"DETACH DATABASE IF EXISTS {ALIAS}")
    except duckdb.Error:
        pass
    _remove(temp)


def _beside(path: Path) -> list[Path]:
    """The files DuckDB may keep beside a database file (not the file itself)."""
    return [path.with_name(path.name + suffix) for suffix in STORE_FILE_SUFFIXES if suffix]


def _remove(path: Path) -> None:
    for file in (path, *_beside(path)):
        try:
            file.unlink(missing_ok=True)
        except OSError:
            pass


def evict(folder: Path) -> None:
    """Keep the most recently used cache files, at most :data:`MAX_FILES` of them and
    :data:`MAX_BYTES` together (the first that does not fit goes, and every older one);
    delete the temporary files of writers that are gone (:func:`remove_dead_writers`), and
    those without a writer's id older than :data:`STALE_TEMP_SECONDS`. Only files named as
    this module names them are touched."""
    kept, used, full, now = 0, 0, False, time.time()
    for mtime, size, path in sorted(_cache_files(folder), reverse=True):
        if path.name.startswith(TEMP_PREFIX):
            pid = _writer_pid(path)
            if _gone(pid) if pid is not None else now - mtime > STALE_TEMP_SECONDS:
                _remove(_temp_base(path))
            continue
        kept, used = kept + 1, used + size
        full = full or kept > MAX_FILES or used > MAX_BYTES
        if full:  # this one and every older one go
            _remove(path)


def _cache_files(folder: Path) -> list[tuple[float, int, Path]]:
    """(mtime, size, path) of the regular files in ``folder`` this module writes."""
    found = []
    for path in folder.iterdir():
        name = path.name
        if not (CACHE_NAME.fullmatch(name) or name.startswith(TEMP_PREFIX)):
            continue
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            found.append((info.st_mtime, info.st_size, path))
    return found


def remove_dead_writers(folder: Path) -> None:
    """Delete the temporary cache files (and DuckDB's files beside them) in ``folder`` whose
    writer's process is gone: killed or crashed while it wrote, it never will finish. One
    whose process lives is never touched, whatever its age."""
    try:
        names = [path for path in folder.iterdir() if path.name.startswith(TEMP_PREFIX)]
    except OSError:
        return
    for path in names:
        pid = _writer_pid(path)
        if pid is not None and _gone(pid):
            _remove(_temp_base(path))


def _writer_pid(path: Path) -> int | None:
    """The process id in a temporary cache file's name (None when it has none)."""
    found = TEMP_NAME.fullmatch(path.name)
    return int(found.group(1)) if found else None


def _temp_base(path: Path) -> Path:
    """The temporary cache file ``path`` is, or that DuckDB keeps it beside."""
    found = TEMP_NAME.fullmatch(path.name)
    suffix = found.group(2) if found else None
    return path.with_name(path.name[: -len(suffix)]) if suffix else path


def _gone(pid: int) -> bool:
    """Whether no process has the id ``pid`` (never this one: its writers are threads).
    A process of another user counts as living (``EPERM``); so does a reused id, until it
    ends too."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False
    return False
