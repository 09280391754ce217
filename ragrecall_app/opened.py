"""Opening a source's workspace, and a workspace the launcher opened ahead.

The launcher (:mod:`ragrecall_app.serve`) restores a fresh server's workspace from the load
cache first thing, before the dashboard's own modules (pandas, the views, streamlit's
caches in :mod:`ragrecall_app.context`) are imported: this module and what it imports
need none of them. The first read of the same source under the same content key
(:func:`ragrecall_app.context.open_source`, through its shared cache) then takes that
workspace instead of opening it again, or waits for it while it is being opened. Any
other read opens its own, the same way (:func:`open_spec`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from concurrent.futures import Future
from pathlib import Path

from ragrecall_core.inputs.load_cache import default_folder, hash_beside
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.views.source import Source, content_hash, fingerprint

# spec -> (content key, workspace) being opened ahead, taken once
_AHEAD: dict[tuple, Future] = {}
_LOCK = threading.Lock()


def spec_of(source: Source) -> tuple:
    """``source`` as small values (a cache key): a folder, or the loose files' paths, each
    resolved (:func:`_real`): one folder however spelled is one spec, so one workspace
    object in this server, and its judgment store has one holder (two objects of one store
    take it from each other, run after run: ``store.open_store``)."""
    text = lambda p: None if p is None else _real(p)  # noqa: E731
    if source.is_folder:
        return (_real(source.workspace), None, (), (), None)
    return (
        None,
        text(source.gold),
        tuple(map(_real, source.runs)),
        tuple(map(_real, source.grades)),
        text(source.corpus),
    )


def _real(path: Path) -> str:
    """``path`` with its symlinks and ``..`` resolved; as spelled when it cannot be (a
    symlink loop: the open then names the problem)."""
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return str(path)


def open_spec(spec: tuple) -> Workspace:
    """Open the workspace of ``spec`` (:func:`spec_of`): restored from the load cache
    (``$RAGRECALL_HOME/cache``; off with ``RAGRECALL_CACHE=off``) when it holds these
    files, else read and checked, and kept there."""
    folder, gold, runs, grades, corpus = spec
    if folder is not None:
        return Workspace.open(folder, cache=default_folder())
    return Workspace.from_files(gold, list(runs), list(grades), corpus, cache=default_folder())


def key_of(prints: tuple) -> str:
    """The content key of the files :func:`fingerprint` describes (each file's digest is
    remembered in this process under its identity: a second hash only reads the stats): the
    one key under which a session's read (:func:`ragrecall_app.context.open_source`) and the
    launcher's find a workspace."""
    return content_hash([Path(p) for p, _size, _mtime in prints])


def content_key(source: Source) -> str | None:
    """The content key of ``source``'s input files (None: it has none), each file hashed
    once in this process (on two threads)."""
    files = source.input_files()
    if not files:
        return None
    hash_beside(files)  # then each file's digest is remembered
    return key_of(fingerprint(files))


def open_ahead(source: Source, after: Iterable[threading.Thread] = ()) -> None:
    """Once the threads ``after`` have ended (the launcher's own hashing: a file is hashed
    once), hash the inputs of ``source`` and open its workspace, for the first
    :func:`take_or_open` of the same spec, which waits for it meanwhile (from the start). What
    fails is left to that read, which then opens it itself (and reports its problems)."""
    opening: Future = Future()
    with _LOCK:
        _AHEAD[spec_of(source)] = opening
    try:
        for thread in after:
            thread.join()
        key = content_key(source)
        opening.set_result((key, None if key is None else open_spec(spec_of(source))))
    except Exception as error:  # noqa: BLE001 (the read opens it again and reports it)
        opening.set_exception(error)


def take_or_open(spec: tuple, key: str) -> Workspace:
    """The workspace :func:`open_ahead` opened for ``spec`` (waiting while it is being
    opened), taken once, if its files' content key is ``key``; else (none, its files changed
    since, or its open failed) opened here."""
    with _LOCK:
        ahead = _AHEAD.pop(spec, None)
    if ahead is not None:
        try:
            ahead_key, workspace = ahead.result()
            if ahead_key == key and workspace is not None:
                return workspace
        except Exception:  # noqa: BLE001, S110 (opened again below: its problems are reported)
            pass
    return open_spec(spec)
