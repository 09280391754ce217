"""Where ragrecall keeps files: its own folder (the load cache, uploads) and each
workspace's judgment store. Loading needs the store's place (to allow it), never the store."""

from __future__ import annotations

import os
import re
from pathlib import Path

HOME_VARIABLE = "RAGRECALL_HOME"


def ragrecall_home() -> Path:
    """ragrecall's own persistent folder: ``$RAGRECALL_HOME``, else ``~/.ragrecall``."""
    return Path(os.environ.get(HOME_VARIABLE) or Path.home() / ".ragrecall").expanduser()


def uploads_folder() -> Path:
    """Where uploaded files are kept, one content-addressed folder per upload."""
    return ragrecall_home() / "uploads"


def store_location(folder: Path | None, gold: Path) -> Path:
    """The one place that says where the judgment store of a workspace lives: in its
    ``folder`` when opened as one, else beside its ``gold`` file (uploads: under home)."""
    if folder is not None:
        return folder / "judgments.duckdb"
    if gold.resolve().is_relative_to(uploads_folder().resolve()):
        return ragrecall_home() / "stores" / f"{_safe_name(gold.name)}.judgments.duckdb"
    return gold.with_name(gold.name + ".judgments.duckdb")


def _safe_name(name: str) -> str:
    """A file name from an untrusted one (an uploaded file's): letters, digits, ``._-``."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)[:100].lstrip(".") or "gold"
