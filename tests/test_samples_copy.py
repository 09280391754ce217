"""The test helpers' copies of data_samples leave a judgment store of the checkout out, and
the checkout's data_samples holds none.

A store left in the checkout's data_samples (by ``ragrecall judge data_samples``, or a grade
or a verdict given in ``ragrecall ui data_samples``) would otherwise come along into every
copy: its grades would count in tests that expect none, and a copy made while another
process writes it may be torn. The tests that open the checkout's data_samples itself
attach it too, and under ``pytest -n 2`` one worker's lock on it fails the other's tests."""

from __future__ import annotations

import shutil

import pytest

from tests import dashboard_support
from tests.dashboard_support import ROOT, samples_copy, samples_workspace

STORE = ("judgments.duckdb", "judgments.duckdb.wal")


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A stand-in checkout whose data_samples holds a judgment store and its log."""
    root = tmp_path / "checkout"
    shutil.copytree(dashboard_support.ROOT / "data_samples", root / "data_samples")
    for name in STORE:
        (root / "data_samples" / name).write_bytes(b"store")
    monkeypatch.setattr(dashboard_support, "ROOT", root)
    return root


def test_samples_copy_leaves_the_store_out(checkout, tmp_path):
    copied = samples_copy(tmp_path / "copy")
    assert sorted(p.name for p in copied.iterdir() if p.name.startswith("judgments")) == []
    assert (copied / "gold.jsonl").read_bytes() == (
        checkout / "data_samples" / "gold.jsonl"
    ).read_bytes()


def test_samples_workspace_leaves_the_store_out(checkout, tmp_path, monkeypatch):
    copied = samples_workspace(tmp_path, monkeypatch)
    assert sorted(p.name for p in copied.iterdir() if p.name.startswith("judgments")) == []
    assert (copied / "runs").is_dir()


def test_the_checkouts_data_samples_holds_no_judgment_store():
    """The tests never write one there (their servers and copies are elsewhere): one found
    was left by a run by hand. Keep its grades if they matter, then delete it."""
    found = (ROOT / "data_samples").iterdir()
    assert sorted(p.name for p in found if p.name.startswith(STORE)) == []
