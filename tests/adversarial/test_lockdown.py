"""Defence in depth: once a workspace is loaded, its DuckDB connection can touch no file but
its judgment store, and its configuration cannot be changed back.

Should any SQL ever be built from input again, it could neither read a local file, nor
write one, nor attach another database, nor lift the lock.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.judge_session import open_store
from ragrecall_core.inputs.store import (
    attach_store,
    export_grades,
    store_path,
    stored_judgments,
    submit,
)
from tests.fixtures_regressions import write_workspace
from tests.helpers import gold_row, run_row, write_jsonl, write_text


def attacks(folder: Path) -> dict[str, str]:
    secret = write_text(folder / "secret.csv", "token\ns3cr3t\n")
    return {
        "read_text": "SELECT * FROM read_text('/etc/passwd')",
        "read_csv": f"SELECT * FROM read_csv('{secret}')",
        "read_blob": f"SELECT * FROM read_blob('{secret}')",
        "glob": f"SELECT * FROM glob('{folder}/*')",
        "copy_to": f"COPY (SELECT * FROM qrels) TO '{folder / 'stolen.csv'}'",
        "export": f"EXPORT DATABASE '{folder / 'exported'}'",
        "attach": f"ATTACH '{folder / 'other.duckdb'}' AS other",
        "unlock_access": "SET enable_external_access = true",
        "widen_paths": "SET allowed_paths = ['/etc/passwd']",
        "widen_folders": "SET allowed_directories = ['/']",
        "unlock": "SET lock_configuration = false",
        "reset": "RESET enable_external_access",
        "install": "INSTALL httpfs",
    }


@pytest.fixture
def workspace(tmp_path) -> Workspace:
    return Workspace.open(write_workspace(tmp_path / "ws"))


@pytest.mark.parametrize("attack", sorted(attacks(Path("/nonexistent"))))
def test_workspace_cursor_touches_no_file_and_keeps_its_lock(workspace, tmp_path, attack):
    sql = attacks(tmp_path)[attack]

    with pytest.raises(duckdb.Error):
        workspace.cursor().execute(sql).fetchall()

    assert not (tmp_path / "stolen.csv").exists()
    assert not (tmp_path / "exported").exists()
    assert not (tmp_path / "other.duckdb").exists()
    settings = workspace.cursor().execute(
        "SELECT current_setting('enable_external_access'), current_setting('lock_configuration')"
    )
    assert settings.fetchone() == (False, True)


def test_loose_files_are_locked_too(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["a"])])
    beside = write_text(tmp_path / "notes.txt", "not an input")
    workspace = Workspace.from_files(gold, [run])

    with pytest.raises(duckdb.Error, match="disabled by configuration"):
        workspace.cursor().execute(f"SELECT * FROM read_text('{beside}')")


def test_judgment_store_still_attaches_commits_and_reopens(workspace):
    assert open_store(workspace, create=True)
    submit(workspace, "t04", "unjudged-chunk", 2, "anna")
    workspace.cursor().execute("CHECKPOINT judgment_store")
    submit(workspace, "t05", "another-chunk", 0, "anna")

    assert stored_judgments(workspace).chunk_id.tolist() == ["unjudged-chunk", "another-chunk"]
    reopened = Workspace.open(workspace.folder)
    assert open_store(reopened)  # takes the store over: DETACH from the first, ATTACH here
    assert stored_judgments(reopened).chunk_id.tolist() == ["unjudged-chunk", "another-chunk"]
    assert store_path(reopened).exists()
    graded = export_grades(reopened)
    assert {"unjudged-chunk", "another-chunk"} <= set(graded.chunk_id)


def test_store_beside_a_loose_gold_file_still_works(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["a", "b"])])
    workspace = Workspace.from_files(gold, [run])

    assert attach_store(workspace) == tmp_path / "gold.jsonl.judgments.duckdb"
    submit(workspace, "q1", "b", 1, "anna")

    assert stored_judgments(workspace).grade.tolist() == [1]


def test_other_connections_are_not_locked(workspace, tmp_path):
    secret = write_text(tmp_path / "plain.csv", "a\n1\n")

    assert duckdb.connect().execute(f"SELECT a FROM read_csv('{secret}')").fetchall() == [(1,)]


def test_loading_is_confined_to_the_given_files(tmp_path, monkeypatch):
    """The corpus injection ran while loading: a loader that builds SQL from input must
    already be unable to read anything but the files it was given."""
    secret = write_text(tmp_path / "secret.txt", "s3cr3t")
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["a"])])
    corpus = write_jsonl(tmp_path / "corpus.jsonl", [{"chunk_id": "a", "text": "t"}])
    seen = {}

    def injected_loader(con, path):
        own = con.execute("SELECT count(*) FROM read_text($p)", {"p": str(path)}).fetchone()
        seen["own file"] = own
        with pytest.raises(duckdb.Error, match="disabled by configuration"):
            con.execute(f"SELECT content FROM read_text('{secret}')")
        return 1

    monkeypatch.setattr("ragrecall_core.inputs.workspace.load_corpus", injected_loader)
    Workspace.from_files(gold, [run], corpus=corpus)

    assert seen["own file"] == (1,)


def test_relative_and_linked_input_paths_still_load(tmp_path, monkeypatch):
    folder = write_workspace(tmp_path / "ws")
    alias = tmp_path / "alias"
    alias.symlink_to(folder)
    monkeypatch.chdir(tmp_path)

    relative = Workspace.open("ws")
    linked = Workspace.from_files(
        "alias/gold.jsonl",
        ["ws/runs/baseline.jsonl"],
        ["alias/grades/anna.jsonl"],
        "ws/corpus.jsonl",
    )

    assert relative.run_names == ["baseline", "candidate"]
    assert linked.cursor().execute("SELECT count(*) FROM corpus").fetchone()[0] > 0
