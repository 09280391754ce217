"""Where ragrecall keeps files: its own folder (the load cache, uploads) and each
workspace's judgment store. Loading needs the store's place (to allow it), never the store."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

HOME_VARIABLE = "RAGRECALL_HOME"
# an upload set's choice of judgment store, in its manifest (``uploads/<key>.json``):
# the store of its gold's name, which other golds of that name may use too, or its own
SHARED, SEPARATE = "shared", "separate"
GOLD_DIGEST = re.compile("[0-9a-f]{64}")
# a separate store's name carries this many hex digits of its gold's SHA-256
STORE_DIGEST_LENGTH = 8


def ragrecall_home() -> Path:
    """ragrecall's own persistent folder: ``$RAGRECALL_HOME``, else ``~/.ragrecall``."""
    return Path(os.environ.get(HOME_VARIABLE) or Path.home() / ".ragrecall").expanduser()


def uploads_folder() -> Path:
    """Where uploaded files are kept, one content-addressed folder per upload."""
    return ragrecall_home() / "uploads"


def stores_folder() -> Path:
    """Where the judgment stores of uploaded data live (a store outlives its uploads)."""
    return ragrecall_home() / "stores"


def upload_manifest(folder: Path) -> Path:
    """The manifest of the upload set kept in ``folder`` (``uploads/<key>``): beside it,
    ``uploads/<key>.json``, naming its files and its store choice."""
    return folder.with_suffix(".json")


def store_location(folder: Path | None, gold: Path) -> Path:
    """The one place that says where the judgment store of a workspace lives: in its
    ``folder`` when opened as one, else beside its ``gold`` file (uploads: under home, as
    their manifest chose: :func:`upload_store_file`)."""
    if folder is not None:
        return folder / "judgments.duckdb"
    if is_upload(gold):
        choice, digest = manifest_store(upload_manifest(gold.parent))
        return stores_folder() / upload_store_file(gold.name, digest if choice != SHARED else None)
    return gold.with_name(gold.name + ".judgments.duckdb")


def is_upload(gold: Path) -> bool:
    """Whether ``gold`` is the gold of an upload set (kept under home's uploads folder),
    whose store its manifest chooses, rather than a folder's or a loose file's."""
    return gold.resolve().is_relative_to(uploads_folder().resolve())


def upload_store_paths(gold_name: str, digest: str | None) -> dict[str, Path]:
    """The store each choice means for an uploaded gold of ``gold_name`` whose SHA-256 is
    ``digest``: :data:`SHARED`, that name's, and :data:`SEPARATE`, its own (the shared one
    while no digest is known)."""
    folder = stores_folder()
    return {
        SHARED: folder / upload_store_file(gold_name),
        SEPARATE: folder / upload_store_file(gold_name, digest),
    }


def store_places(folder: Path | None, gold: Path) -> list[Path]:
    """Every store a workspace may use, for its connection to allow before it loads
    (:func:`.db.lock_down`): its one store, or for an upload set whose gold's SHA-256 its
    manifest records both the shared store of its gold's name and its own, so a changed
    choice (:mod:`.upload_stores`) opens the other at once, without loading it again."""
    place = store_location(folder, gold)
    if folder is not None or not is_upload(gold):
        return [place]
    _choice, digest = manifest_store(upload_manifest(gold.parent))
    return sorted({place, *upload_store_paths(gold.name, digest).values()})


def upload_store_file(gold_name: str, digest: str | None = None) -> str:
    """The file name of an uploaded gold's store: ``<name>.judgments.duckdb``, shared by
    every gold of that name (an edited gold uploaded again finds its grades), or with a
    ``digest`` (the gold's SHA-256) ``<name>.<8 hex>.judgments.duckdb``, its own."""
    own = f".{digest[:STORE_DIGEST_LENGTH]}" if digest else ""
    return f"{_safe_name(gold_name)}{own}.judgments.duckdb"


def manifest_store(manifest: Path) -> tuple[str | None, str | None]:
    """An upload set's store choice and its gold's SHA-256 as its manifest records them.

    A set saved before the choice existed records neither: it keeps the shared store it
    always used (``store_location`` falls back to it). A set whose choice is still open
    has a digest but no choice: its own store, so nothing opened before the dashboard
    asks can mix two golds' grades. Anything malformed reads as not recorded.

    Asked on every rerun (:func:`store_location`): the manifest is read and parsed again
    only when the file at its path changed (another inode, size, or modification or change
    time: every write replaces it whole, :mod:`.upload_stores`), in this process or
    another."""
    try:
        found = manifest.stat()
    except OSError:
        return None, None
    seen = (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
    kept = _CHOICES.get(str(manifest))
    if kept is not None and kept[0] == seen:
        return kept[1]
    answer = _read_choice(manifest)
    if len(_CHOICES) >= _CHOICES_KEPT:
        _CHOICES.clear()  # a few sets are open at a time; a server may see many over a day
    _CHOICES[str(manifest)] = (seen, answer)
    return answer


# manifest path -> (what its file was, its choice and digest): :func:`manifest_store`
_CHOICES: dict[str, tuple[tuple, tuple[str | None, str | None]]] = {}
_CHOICES_KEPT = 256


def forget_choice(manifest: Path) -> None:
    """``manifest`` was written by this process: read it again next time, even should the
    file's inode, size and times look as before (a reused inode within one clock tick)."""
    _CHOICES.pop(str(manifest), None)


def _read_choice(manifest: Path) -> tuple[str | None, str | None]:
    """The choice and digest a manifest records (:func:`manifest_store`), read now."""
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None, None
    if not isinstance(record, dict):
        return None, None
    choice, digest = record.get("store"), record.get("gold_sha256")
    choice = choice if choice in (SHARED, SEPARATE) else None
    digest = digest if isinstance(digest, str) and GOLD_DIGEST.fullmatch(digest) else None
    if digest is None:
        return (None, None) if choice == SEPARATE else (choice, None)
    return choice, digest


def _safe_name(name: str) -> str:
    """A file name from an untrusted one (an uploaded file's): letters, digits, ``._-``."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)[:100].lstrip(".") or "gold"
