"""Where the dashboard's data comes from (:class:`Source`), read from its arguments
(:func:`parse_source`), and the content key of its files (:func:`fingerprint`,
:func:`content_hash`).

A module of its own that imports no pandas: the launcher (``ragrecall_app.serve``) reads the
source and restores its workspace from the load cache first thing, while the dashboard's
own modules (pandas, the views) are still being imported. ``dashboard_state`` names them
too.

The source comes from the command line after ``--`` or the ``RAGRECALL_WORKSPACE``
environment variable::

    streamlit run app.py -- --workspace W
    streamlit run app.py -- --gold G --run R1 --run R2 --grades F --corpus C
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ragrecall_core.inputs.beir import beir_files
from ragrecall_core.inputs.configs import config_path_for
from ragrecall_core.inputs.secrets import redact_path

# the judgment store and its write-ahead log live in a workspace folder but are no input
STORE_SUFFIXES = (".duckdb", ".duckdb.wal")


@dataclass(frozen=True)
class Source:
    """Where the data comes from: a workspace folder, or loose files."""

    workspace: Path | None = None
    gold: Path | None = None
    runs: tuple[Path, ...] = ()
    grades: tuple[Path, ...] = ()
    corpus: Path | None = None
    files: tuple[Path, ...] = field(default=(), compare=False)

    @property
    def is_folder(self) -> bool:
        return self.gold is None

    def describe(self) -> str:
        """The data as the dashboard names it (a folder's path redacted: it is shown)."""
        if self.is_folder:
            return redact_path(self.workspace)
        return f"{redact_path(self.gold)} + {len(self.runs)} run file(s)"

    def input_files(self) -> list[Path]:
        """Every file the source reads (for a folder: the files of its layout)."""
        if not self.is_folder:
            gold = beir_files(self.gold) if self.gold and self.gold.is_dir() else [self.gold]
            files = [*gold, *self.runs, *self.grades]
            files += [config_path_for(p) for p in self.runs]
            if self.corpus:
                files.append(self.corpus)
            return [p for p in files if p is not None and p.is_file()]
        root = self.workspace
        if root is None or not root.is_dir():
            return []
        found = [p for p in root.iterdir() if p.is_file()]
        for sub in ("runs", "grades", "qrels"):
            if (root / sub).is_dir():
                found += [p for p in (root / sub).iterdir() if p.is_file()]
        found = [p for p in found if not p.name.endswith(STORE_SUFFIXES)]  # judgments: not inputs
        return sorted(p for p in found if not p.name.startswith("."))


def parse_source(argv: Sequence[str], env: Mapping[str, str], default_workspace: Path) -> Source:
    """The data source from ``-- --workspace W`` / ``--gold G --run R ...`` or the env."""
    parser = argparse.ArgumentParser(prog="app.py", add_help=False)
    parser.add_argument("--workspace", type=Path)
    parser.add_argument("--gold", type=Path)
    parser.add_argument("--run", type=Path, action="append", default=[])
    parser.add_argument("--grades", type=Path, action="append", default=[])
    parser.add_argument("--corpus", type=Path)
    args, _unknown = parser.parse_known_args(list(argv))
    if args.gold is not None:
        return Source(
            gold=args.gold, runs=tuple(args.run), grades=tuple(args.grades), corpus=args.corpus
        )
    if args.workspace is not None:
        return Source(workspace=args.workspace)
    if env.get("RAGRECALL_WORKSPACE"):
        return Source(workspace=Path(env["RAGRECALL_WORKSPACE"]))
    return Source(workspace=default_workspace)


def fingerprint(paths: Sequence[Path]) -> tuple[tuple[str, int, int], ...]:
    """Cheap identity of files (path, size, mtime): the key under which content hashes cache."""
    out = []
    for p in paths:
        st = p.stat()
        out.append((str(p.resolve()), st.st_size, st.st_mtime_ns))
    return tuple(out)


def content_hash(paths: Sequence[Path]) -> str:
    """One sha256 over the names and contents of ``paths``, each part length-prefixed. A
    file's digest is the load cache's (:func:`~ragrecall_core.inputs.load_cache.file_digest`),
    so a fresh server reads each input once to key both its caches."""
    from ragrecall_core.inputs.load_cache import file_digest, frame_part

    digest = hashlib.sha256()
    for path in paths:
        frame_part(digest, path.name.encode())
        frame_part(digest, file_digest(path) or b"not a regular file")
    return digest.hexdigest()
