"""A progress bar on stderr while a file loads, only when stderr is a terminal.

DuckDB's own bar is printed with ``printf``, to stdout, which carries ragrecall's results
(JSON, TSV): so DuckDB only tracks progress (``enable_progress_bar``, printing off, set by
:func:`ragrecall_core.inputs.db.connect` when :func:`wanted`) and a thread here polls the
connection's ``query_progress()`` and draws one line on stderr: the file's name, a bar and
the percentage of the query running now (a load runs a few: read, check, rank). The line
appears only after a second, so a small file shows nothing, and is erased when the file is
loaded. Nothing is drawn when stderr is a pipe or a file.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import duckdb

from ragrecall_core.errors import one_line

SHOW_AFTER = 1.0  # seconds before the bar appears
REDRAW_EVERY = 0.2  # seconds
WIDTH = 30  # characters of the bar itself
NAME_CHARS = 40  # of the file name shown
ERASE_LINE = "\r\x1b[K"


def wanted(stream: TextIO | None = None) -> bool:
    """Whether a bar may be drawn on ``stream`` (default stderr): only a terminal."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


@contextmanager
def shown(
    con: duckdb.DuckDBPyConnection, path: Path, stream: TextIO | None = None
) -> Iterator[None]:
    """Draw the bar of ``con``'s queries on ``stream`` (default stderr) while the block
    loads ``path``; nothing at all unless ``stream`` is a terminal."""
    stream = sys.stderr if stream is None else stream
    if not wanted(stream):
        yield
        return
    stop = threading.Event()
    label = f"reading {one_line(path.name)[:NAME_CHARS]}"
    drawer = threading.Thread(target=_draw, args=(con, label, stream, stop), daemon=True)
    drawer.start()
    try:
        yield
    finally:
        stop.set()
        drawer.join()


def _draw(
    con: duckdb.DuckDBPyConnection, label: str, stream: TextIO, stop: threading.Event
) -> None:
    if stop.wait(SHOW_AFTER):
        return
    drawn = False
    while not stop.is_set():
        percent = con.query_progress()
        if percent >= 0:
            stream.write(ERASE_LINE + bar(label, percent))
            stream.flush()
            drawn = True
        stop.wait(REDRAW_EVERY)
    if drawn:
        stream.write(ERASE_LINE)
        stream.flush()


def bar(label: str, percent: float) -> str:
    """``reading run.trec [#########.....................]  31%``"""
    filled = round(WIDTH * min(max(percent, 0.0), 100.0) / 100)
    return f"{label} [{'#' * filled}{'.' * (WIDTH - filled)}] {percent:3.0f}%"
