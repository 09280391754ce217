"""What lies beside the load cache's key and its file (issue 30, stop 44): an input that
changes after its key is made, a write-ahead log beside a signed cache file, another engine.

- The key is made of the inputs' bytes, then the load reads them. An input changed between
  the two (edited, or a symlink pointed at another file) was read whole and kept under the
  key of its old bytes: the next open of the old bytes restored the new ones' numbers. Now
  the inputs' identities are taken before the key is made, and a load during which any
  moved is not kept.
- DuckDB replays a database file's write-ahead log (``<file>.wal``) when it attaches the
  file, read-only too; the signature covers the file alone. A log laid beside a signed cache
  file changed what the restore read (a run's scores, the qrels: the gate flipped). Now a
  cache file with anything beside it is not trusted (named on stderr, read from the inputs
  and written again), and a write clears what lies beside the file it puts in place.
- The key names the DuckDB that read the inputs: its readers and casts are part of what a
  load makes.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pytest

from ragrecall_core import Workspace
from ragrecall_core.inputs import load_cache
from tests.helpers import count_cache_restores, gold_row, run_cli, write_jsonl, write_text
from tests.samples import shared_samples

DATA_SAMPLES = shared_samples()
HITS: list[bool] = []
OLD = '{"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 1, "score": 0.5}]}\n'
NEW = '{"id": "q1", "retrieved": [{"chunk_id": "b", "rank": 1, "score": 9.5}]}\n'


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch) -> Path:
    """A home of its own (the secret and the cache), warnings shown again in each test."""
    monkeypatch.setattr(load_cache, "_WARNED", set())
    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    count_cache_restores(monkeypatch, HITS)
    return tmp_path / "home"


def rows(workspace: Workspace) -> list[tuple]:
    return workspace.con.execute("SELECT * FROM runs ORDER BY ALL").fetchall()


def edit_on_first_restore(monkeypatch, change) -> None:
    """``change()`` once, after the key is made and before the load reads the inputs."""
    restore, done = load_cache.restore, []

    def changing(*args):
        if not done:
            done.append(change())
        return restore(*args)

    monkeypatch.setattr(load_cache, "restore", changing)


def rewrite(path: Path, text: str) -> None:
    """``path`` holding ``text`` again, as a new file (another inode, another ctime)."""
    path.unlink()
    write_text(path, text)


@pytest.mark.parametrize("how", ["edited", "a symlink pointed elsewhere"])
def test_an_input_changed_after_its_key_is_made_is_not_kept(tmp_path, monkeypatch, how):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = tmp_path / "run.jsonl"
    if how == "edited":
        write_text(run, OLD)
        edit_on_first_restore(monkeypatch, lambda: rewrite(run, NEW))
        put_back = lambda: rewrite(run, OLD)  # noqa: E731
    else:
        old, new = write_text(tmp_path / "old.jsonl", OLD), write_text(tmp_path / "new.jsonl", NEW)
        run.symlink_to(old)

        def point(target: Path) -> None:
            run.unlink()
            run.symlink_to(target)

        edit_on_first_restore(monkeypatch, lambda: point(new))
        put_back = lambda: point(old)  # noqa: E731
    cache = tmp_path / "cache"
    loaded = Workspace.from_files(gold, [run], cache=cache)
    load_cache.wait_for_writes()
    assert [row[2] for row in rows(loaded)] == ["b"]  # the bytes the load read
    put_back()
    load_cache._DIGESTS.clear()  # another process: the digests from the bytes again
    again = Workspace.from_files(gold, [run], cache=cache)
    assert rows(again) == rows(Workspace.from_files(gold, [run]))
    assert [row[2] for row in rows(again)] == ["a"]


def plant_log(path: Path, *statements: str) -> Path:
    """A write-ahead log of ``statements`` made on a copy of the cache file ``path`` (its
    signature and all: DuckDB reads a database file's blocks by place), laid beside it."""
    copy = path.with_name("copy.duckdb")
    shutil.copyfile(path, copy)
    con = duckdb.connect(str(copy), config={"checkpoint_threshold": "1TB"})
    con.execute("PRAGMA disable_checkpoint_on_shutdown")
    for statement in statements:
        con.execute(statement)
    con.close()
    log = path.with_name(path.name + ".wal")
    os.replace(copy.with_name(copy.name + ".wal"), log)
    copy.unlink()
    return log


def gate(capsys, *extra: str) -> tuple[int, str, str]:
    """``check`` on the samples with a requirement bm25 misses (exit 1 when read honestly)."""
    gold, run = DATA_SAMPLES / "gold.jsonl", DATA_SAMPLES / "runs" / "bm25.jsonl"
    code, out, err = run_cli(capsys, ["check", gold, run, "--require", "Recall@5>=1", *extra])
    load_cache.wait_for_writes()
    # evaluate's warnings of bm25 (ties at rank 5: check says them too) are no cache's
    lines = err.splitlines(keepends=True)
    return code, out, "".join(line for line in lines if not line.startswith("warning: "))


def test_a_log_beside_a_signed_cache_file_never_flips_the_gate(home, capsys):
    honest = gate(capsys)
    assert honest[0] == 1 and "Recall@5" in honest[1]
    assert gate(capsys, "--cache")[:2] == honest[:2] and HITS == [False]
    (path,) = (home / "cache").glob("*.duckdb")
    log = plant_log(
        path,
        "DELETE FROM qrels WHERE (query_id, chunk_id) NOT IN "
        "(SELECT qid, docno FROM run_table_0 WHERE position <= 5)",
    )
    attacked = gate(capsys, "--cache")
    assert attacked[:2] == honest[:2]  # the gate as without a cache: still exit 1
    err = attacked[2].splitlines()
    assert len(err) == 1 and str(path) in err[0] and "ignored" in err[0], err
    assert not log.exists()  # written again, alone
    assert gate(capsys, "--cache") == honest and HITS == [False, False, True]


@pytest.mark.parametrize("suffix", [".wal", ".wal.checkpoint", ".wal.recovery"])
def test_a_cache_file_with_anything_beside_it_is_not_trusted(home, suffix):
    Workspace.open(DATA_SAMPLES, cache=home / "cache")
    load_cache.wait_for_writes()
    (path,) = (home / "cache").glob("*.duckdb")
    key, secret = path.stem, load_cache.user_secret()
    assert load_cache.distrust(path, key, secret) == ""
    path.with_name(path.name + suffix).write_bytes(b"")
    assert load_cache.distrust(path, key, secret)


def test_the_key_names_the_engine(monkeypatch, tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    plan = load_cache.LoadPlan("files", (("gold", gold),))
    key = load_cache.cache_key(plan)
    monkeypatch.setattr(duckdb, "__version__", "0.0.1")
    assert load_cache.cache_key(plan) != key
