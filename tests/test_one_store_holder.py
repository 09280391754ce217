"""One workspace per folder in a server, however the folder is spelled.

A server keeps one workspace object per (spec, content key), and a workspace's judgment
store is held by one workspace object at a time: another object of the same store takes it
over (ragrecall_core.inputs.store.open_store). A folder opened under two spellings (a
symlink, a relative launch path beside a typed absolute one, ``..``) was two specs, so two
objects took the one store from each other on every run, in the middle of each other's
runs: stored grades read as none, DuckDB's file-handle errors, the store shown unusable
(found by trying it from outside, stop 44)."""

from __future__ import annotations

from pathlib import Path

from ragrecall_app import context, opened
from ragrecall_core.views.source import Source
from tests.samples import samples_copy, shared_samples

SAMPLES = shared_samples()


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    samples_copy(folder)
    return folder


def test_a_folder_spelled_three_ways_is_one_spec_and_one_workspace(tmp_path):
    folder = _folder(tmp_path)
    (tmp_path / "link").symlink_to(folder, target_is_directory=True)
    spellings = [folder, tmp_path / "link", tmp_path / "ws" / ".." / "ws"]
    sources = [Source(workspace=path) for path in spellings]
    assert len({opened.spec_of(source) for source in sources}) == 1
    workspaces = [context.open_source(source)[0] for source in sources]
    assert all(ws is workspaces[0] for ws in workspaces)


def test_loose_files_through_a_symlinked_folder_are_one_spec(tmp_path):
    folder = _folder(tmp_path)
    (tmp_path / "link").symlink_to(folder, target_is_directory=True)

    def loose(base: Path) -> Source:
        runs = tuple(sorted((base / "runs").glob("*.jsonl")))
        return Source(gold=base / "gold.jsonl", runs=runs, corpus=base / "corpus.jsonl")

    assert opened.spec_of(loose(folder)) == opened.spec_of(loose(tmp_path / "link"))


def test_a_symlink_loop_is_left_as_spelled_for_the_open_to_report(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    spec = opened.spec_of(Source(workspace=tmp_path / "a"))
    assert spec[0] == str(tmp_path / "a")
