"""Work started beside a read: a function in a thread of its own, a test on a cursor of its
own, a module imported while DuckDB holds the cores (it releases Python's lock as it reads).

Every such thread is awaited by whoever needs its result (:func:`in_background` returns the
function that waits), so nothing runs on after its caller's table is gone.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import duckdb

T = TypeVar("T")


def in_background(function: Callable[..., T], *args) -> Callable[[], T]:
    """Start ``function(*args)`` in a thread; return the function that waits for its result
    (or raises its exception)."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragrecall-tests")
    future = pool.submit(function, *args)
    pool.shutdown(wait=False)  # the thread ends with the function
    return future.result


def on_cursor(work: Callable[..., T], con: duckdb.DuckDBPyConnection, *args) -> T:
    """``work(cursor, *args)`` on a cursor of ``con`` of its own (a connection is not
    thread-safe; a cursor shares its database, settings and committed tables)."""
    with con.cursor() as cursor:
        return work(cursor, *args)


def imported(module: str) -> Callable[[], object]:
    """Start importing ``module`` in a thread (the import system's own lock makes a second
    import of it wait for this one); return the function that waits for the module. A read
    of a large file imports numpy for its whole-table tests only after the read: importing it
    during the read takes it off the read's path (~0.1 s)."""
    return in_background(importlib.import_module, module)
