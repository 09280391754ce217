"""Which files a server a test started holds open, read from ``/proc``.

A dashboard server attaches its workspace's judgment store when there is one and holds it,
and its lock, for its whole life: a server on the checkout's data_samples locks a store
there against every other test that attaches it at the same time (``pytest -n 2``). The
server fixtures serve copies; these say whether one still holds a file of the checkout.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data_samples"


def parent_of(pid: str) -> str | None:
    """Process ``pid``'s parent's id (``/proc/PID/stat``'s fourth field), or None when gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
    except OSError:
        return None


def family(pid: int) -> list[int]:
    """``pid`` and its children (a launcher's server, its load-cache filler while it runs)."""
    found = [e.name for e in Path("/proc").iterdir() if e.name.isdigit()]
    return [pid, *(int(c) for c in found if parent_of(c) == str(pid))]


def files_held_under(pids: Iterable[int], folder: Path = SAMPLES) -> list[str]:
    """The files under ``folder`` that any of the processes ``pids`` holds open."""
    held = []
    for pid in pids:
        try:
            links = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
        except OSError:
            continue
        held += [link for link in links if Path(link).is_relative_to(folder.resolve())]
    return held
