"""Compile a checkout's packages to bytecode before a benchmark times them, as an install
does (pip writes each module's ``.pyc``; a checkout run by hand writes them on its first
import).

This machine sets ``PYTHONDONTWRITEBYTECODE=1``, so no run ever wrote them: every timed
process compiled each of our modules from source again (``evaluate`` ~85 ms of its start, a
fresh dashboard server ~0.1-0.2 s), while its peers (pytrec_eval, DuckDB, streamlit's own
modules, the floor's bare page) were loaded from their installed bytecode. Python reads
bytecode written here whatever that variable says, and compiles a module again (without
writing) when its source is newer.
"""

from __future__ import annotations

import compileall
from pathlib import Path

PACKAGES = ("ragrecall_core", "ragrecall_app")


def compiled(checkout: Path) -> None:
    """Write the bytecode of ``checkout``'s packages where it is missing or stale."""
    for package in PACKAGES:
        if (checkout / package).is_dir():
            compileall.compile_dir(checkout / package, quiet=1)
