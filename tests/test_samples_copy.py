"""Every test opens a store-free copy of data_samples, never the checkout's folder itself.

A user who grades in ``ragrecall ui data_samples`` leaves ``data_samples/judgments.duckdb``
(and its ``.wal``); that is using the app as documented, and the suite must hold in such a
checkout. A test opening the checkout's folder as a workspace would attach that store: its
grades would count in tests that expect none, and under ``pytest -n 2`` one worker's lock
on it fails the other's tests. So the copy helpers (tests/samples.py) leave any store out,
and only modules that read the shipped files themselves name the checkout's folder."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from ragrecall_app import serve
from tests import samples
from tests.dashboard_support import app, samples_workspace
from tests.helpers import launch_here
from tests.samples import ROOT, samples_copy, shared_samples

STORE = ("judgments.duckdb", "judgments.duckdb.wal", "gold.judgments.duckdb")
# The modules that may name the checkout's data_samples, and why: none opens it as a
# workspace (which attaches its store) nor passes its gold to a command (which attaches a
# store beside it); reading a shipped file is safe.
READS_SHIPPED_FILES = {
    "samples.py": "the copy helpers",
    "test_samples_copy.py": "builds a stand-in checkout from it",
    "held_files.py": "checks a server holds no file under the checkout's folder",
    "plain_scores.py": "computes scores from the raw JSON lines",
    "test_data_samples.py": "checks the shipped files are valid",
    "test_configs.py": "reads the shipped runs' config files",
    "test_dependencies.py": "names the folder the package data lists",
    "test_docs_usage.py": "reads the docs' commands",
    "test_docs_examples.py": "copies it by samples_copy under the name the docs use",
    "test_docs_capture.py": "copies the gold and corpus files, reads a run",
    "test_capture.py": "reads the corpus and the queries to capture runs elsewhere",
    "test_capture_frameworks.py": "reads the corpus and the queries to capture runs elsewhere",
    "test_assist_minilm_samples.py": "reads the shipped grades and runs",
}
NAMED = re.compile(r"""["']data_samples["']""")


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A stand-in checkout whose data_samples holds a judgment store and its log, as a
    user's after ``ragrecall ui data_samples``, and a loose gold's store."""
    root = tmp_path / "checkout"
    shutil.copytree(ROOT / "data_samples", root / "data_samples")
    for name in STORE:
        (root / "data_samples" / name).write_bytes(b"store")
    monkeypatch.setattr(samples, "ROOT", root)
    return root


def stores_in(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(STORE[:2]))


def test_samples_copy_leaves_the_store_out(checkout, tmp_path):
    copied = samples_copy(tmp_path / "copy")
    assert stores_in(copied) == []
    assert (copied / "gold.jsonl").read_bytes() == (
        checkout / "data_samples" / "gold.jsonl"
    ).read_bytes()


def test_samples_workspace_leaves_the_store_out(checkout, tmp_path, monkeypatch):
    copied = samples_workspace(tmp_path, monkeypatch)
    assert stores_in(copied) == []
    assert (copied / "runs").is_dir()


def test_the_shared_copy_leaves_the_store_out(checkout):
    copied = shared_samples.__wrapped__()  # a fresh one: the cached one may predate the patch
    assert stores_in(copied) == [] and copied.name == "data_samples"
    assert not copied.is_relative_to(checkout)
    assert sorted(p.name for p in (copied / "runs").iterdir()) == sorted(
        p.name for p in (checkout / "data_samples" / "runs").iterdir()
    )


def test_the_dashboard_launched_without_a_workspace_opens_the_shared_copy(monkeypatch):
    """app.py's own default is the checkout's data_samples; the tests' launch workspace is
    the copy."""
    at = app(monkeypatch=monkeypatch)
    assert at.text_input(key="side_ws").value == str(shared_samples())
    assert not shared_samples().is_relative_to(ROOT)


def test_a_launch_without_a_source_reads_the_shared_copy(monkeypatch):
    """serve.main's own default is the checkout's data_samples: its launcher would read
    (hash) a store left there."""
    read, named_inputs = [], serve.named_inputs
    monkeypatch.delenv("RAGRECALL_WORKSPACE", raising=False)
    monkeypatch.setattr(serve.cache_fill, "start", lambda args: None)
    monkeypatch.setattr(serve, "named_inputs", lambda *a: read.append(named_inputs(*a)) or read[-1])
    assert launch_here(monkeypatch) == 0
    (files,) = read
    assert files and all(Path(f).is_relative_to(shared_samples()) for f in files)


def test_no_test_module_names_the_checkouts_data_samples_but_those_that_read_files():
    """A module naming the folder opens it in place sooner or later: it goes through
    tests/samples.py instead (a copy of its own, or the shared one)."""
    naming = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("*.py")
        if path.name not in READS_SHIPPED_FILES and NAMED.search(path.read_text("utf-8"))
    )
    assert naming == []
