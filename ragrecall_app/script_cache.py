"""Streamlit's compiled scripts, kept while their files are unchanged.

Streamlit empties its cache of compiled scripts whenever the last browser session leaves
("stale cached scripts" when no file watcher runs), so the next visitor's first run
parses and compiles ``app.py`` and its page again, magic and all (about 7 ms of the
server's CPU on a quiet machine, several times that while other work runs). A review
meeting opens the dashboard, closes it, and opens it again. :func:`keep_unchanged` makes
that emptying drop only the scripts whose file changed since they were compiled: a
script edited while the server runs is still compiled again, as streamlit intends.

It reaches into streamlit's ``ScriptCache`` (its ``_cache`` and ``_lock``), as the
launcher's warm-up already does for the runtime's cache (:mod:`.serve`); a streamlit
without them keeps its own behaviour.
"""

from __future__ import annotations

import os

Stamp = tuple[int, int, int, int] | None


def keep_unchanged(cache) -> bool:
    """Make ``cache.clear()`` (a streamlit ``ScriptCache``) drop only the scripts whose file
    changed, or went away, since they were compiled. Whether it could (False: left as is)."""
    if not (hasattr(cache, "_cache") and hasattr(cache, "_lock")):
        return False
    stamps: dict[str, Stamp] = {}
    compile_script = cache.get_bytecode

    def get_bytecode(script_path: str):
        path = os.path.abspath(script_path)
        # taken before the read: a change during the compile shows at the next clear
        stamps.setdefault(path, file_stamp(path))
        return compile_script(script_path)

    def clear() -> None:
        with cache._lock:
            for path in list(cache._cache):
                if path not in stamps or stamps[path] != file_stamp(path):
                    del cache._cache[path]
                    stamps.pop(path, None)

    cache.get_bytecode = get_bytecode
    cache.clear = clear
    return True


def file_stamp(path: str) -> Stamp:
    """The file at ``path`` as (device, inode, size, modification ns); None when absent."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns
