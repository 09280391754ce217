"""Store-free copies of the checkout's data_samples: what every test opens instead of it.

A user who grades in ``ragrecall ui data_samples`` (docs/review-meeting.md suggests it)
leaves ``data_samples/judgments.duckdb``. A test opening the checkout's folder as a
workspace attaches that store: its grades change the numbers the test expects, and under
``pytest -n 2`` one worker's lock on it fails the other's tests ("Could not set lock on
file"). A copy leaves any store out, so the suite holds in such a checkout."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# a judgment store and its write-ahead log (ragrecall_core.inputs.store), in a folder or
# beside a loose gold file (gold.judgments.duckdb)
STORE_FILES = ("*.duckdb", "*.duckdb.wal")


def samples_copy(folder: Path) -> Path:
    """data_samples copied to ``folder``, without any judgment store the checkout holds.

    A test that writes (a grade, a verdict, a cache beside it) gets its own copy; one that
    only reads shares :func:`shared_samples`."""
    ignore = shutil.ignore_patterns(*STORE_FILES)
    return Path(shutil.copytree(ROOT / "data_samples", folder, ignore=ignore))


@functools.cache
def shared_samples() -> Path:
    """One store-free copy of data_samples for this process's tests that only read it (a
    pytest-xdist worker makes its own), named data_samples as the checkout's is; removed
    when the process ends. Copied on first use, so a run that needs none copies nothing."""
    parent = Path(tempfile.mkdtemp(prefix="ragrecall-samples-"))
    atexit.register(shutil.rmtree, parent, ignore_errors=True)
    return samples_copy(parent / "data_samples")
