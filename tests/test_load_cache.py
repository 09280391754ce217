"""A workspace restored from the load cache is the workspace a fresh load makes: the same
tables row for row, the same Python fields, the same evaluation, warnings, configs, column
mappings and corpus; and a cache folder stays bounded."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from ragrecall_core import Workspace, evaluate
from ragrecall_core.inputs import load_cache
from ragrecall_core.inputs.workspace import workspace_facts
from tests.fixtures_regressions import write_workspace
from tests.helpers import count_cache_restores, write_text
from tests.samples import samples_copy, shared_samples
from tests.test_beir import beir_folder

DATA_SAMPLES = shared_samples()
MEASURES = ["Recall@5", "Hit@3", "MRR@10", "P@5", "nDCG@5", "Judged@5"]


HITS: list[bool] = []


@pytest.fixture(autouse=True)
def cache_on(monkeypatch):
    """Caching on whatever the environment says; every restore's outcome in HITS."""
    count_cache_restores(monkeypatch, HITS)


def open_twice(cache: Path, opener) -> tuple[Workspace, Workspace]:
    """A fresh load that writes the cache, then a load that must come from it."""
    first = opener(cache)
    load_cache.wait_for_writes()
    assert len(cache_files(cache)) == 1
    load_cache._DIGESTS.clear()  # a new process: digests from the bytes again
    second = opener(cache)
    assert HITS == [False, True]
    return first, second


def cache_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.duckdb"))


def tables(ws: Workspace) -> dict[str, list[tuple]]:
    """Every table of the workspace's database, rows in their stored order; a run table too
    where a restore leaves it in the cache file (a view of it: rows in the file's order)."""
    names = ws.cursor().execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = 'memory' "
        "AND schema_name = 'main' UNION ALL SELECT view_name FROM duckdb_views() "
        "WHERE database_name = 'memory' AND schema_name = 'main' "
        "AND view_name LIKE 'run_table_%' ORDER BY 1"
    )
    return {
        name: ws.cursor().execute(f"SELECT * FROM {name} {order(name)}").fetchall()  # noqa: S608
        for (name,) in names.fetchall()
    }


def order(name: str) -> str:
    """A run table's rows as a scan gives them (insertion order is preserved: a loaded
    table's and the cache file's alike), any other table's by row id."""
    return "" if load_cache.RUN_TABLE.fullmatch(name) else "ORDER BY rowid"


def everything(ws: Workspace) -> dict:
    """All a caller can see of a workspace."""
    ev = evaluate(ws, MEASURES)
    return {
        "tables": tables(ws),
        "runs view": ws.cursor().execute("SELECT * FROM runs ORDER BY ALL").fetchall(),
        "all_grades": ws.cursor().execute("SELECT * FROM all_grades ORDER BY ALL").fetchall(),
        "fields": (ws.gold, ws.runs, ws.grades, ws.corpus, ws.folder, ws.qrels),
        "run order": ws.run_names,
        "input files": ws.input_files(),
        "column mappings": ws.column_mappings(),
        "configs": ws.configs(),
        "facts": workspace_facts(ws),
        "evaluation": ev.to_dict(per_query=True),
        "warnings": ev.warnings,
    }


def assert_same_evaluation(fresh: dict, restored: dict) -> None:
    """Equal to 12 significant digits: DuckDB sums in parallel, so two fresh loads' means
    may differ in the 16th digit too."""
    assert rounded(restored) == rounded(fresh)


def rounded(value):
    """``value`` with every float at 12 significant digits, however deeply nested."""
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(item) for item in value]
    return value


def assert_same(first: Workspace, second: Workspace) -> None:
    """Equal in every part (the evaluation as :func:`assert_same_evaluation` says)."""
    fresh, restored = everything(first), everything(second)
    assert fresh["tables"]["queries"], "the comparison must hold data"
    assert_same_evaluation(fresh.pop("evaluation"), restored.pop("evaluation"))
    for part in fresh:
        assert restored[part] == fresh[part], part


def assert_same_content(fresh: Workspace, restored: Workspace) -> None:
    """Equal in every part, as :func:`assert_same` says, where the cache was written by
    another read than ``fresh`` (a fill, another process): a table's rows are compared in
    their stored order only where it is the file's (a run table); DuckDB inserts another
    table's rows (``run_queries``) in an order two reads need not share."""
    first, second = everything(fresh), everything(restored)
    assert first["tables"]["queries"], "the comparison must hold data"
    assert_same_evaluation(first.pop("evaluation"), second.pop("evaluation"))
    for found in (first, second):
        found["tables"] = {
            name: rows if load_cache.RUN_TABLE.fullmatch(name) else sorted(rows, key=repr)
            for name, rows in found["tables"].items()
        }
    for part in first:
        assert second[part] == first[part], part


def test_data_samples_restored_equals_a_fresh_load(tmp_path):
    cache = tmp_path / "cache"
    first, second = open_twice(cache, lambda c: Workspace.open(DATA_SAMPLES, cache=c))
    assert first.configs() and first.grades and first.corpus
    assert_same(first, second)


def test_a_fill_writes_what_a_restore_reads_and_leaves_a_trusted_file_alone(tmp_path):
    """A fill (a fresh server's child process) writes the file a later open restores; a
    fill that finds it signed restores nothing and writes nothing; one that finds it edited
    writes it again."""
    cache = tmp_path / "cache"
    with load_cache.filling() as kept:
        Workspace.open(DATA_SAMPLES, cache=cache)
    load_cache.wait_for_writes()
    assert kept == cache_files(cache) and HITS == []
    (path,) = kept
    written = path.stat()
    with pytest.raises(load_cache.AlreadyCached), load_cache.filling():
        Workspace.open(DATA_SAMPLES, cache=cache)
    assert HITS == [] and path.stat().st_ino == written.st_ino
    with open(path, "r+b") as handle:
        handle.seek(4096)
        byte = handle.read(1)[0]
        handle.seek(4096)
        handle.write(bytes([byte ^ 1]))
    with load_cache.filling():
        Workspace.open(DATA_SAMPLES, cache=cache)
    load_cache.wait_for_writes()
    assert path.stat().st_ino != written.st_ino
    assert load_cache.distrust(path, path.stem, load_cache.user_secret()) == ""
    assert_same_content(Workspace.open(DATA_SAMPLES), Workspace.open(DATA_SAMPLES, cache=cache))
    assert HITS == [True]


def test_loose_files_with_aliases_configs_grades_and_corpus(tmp_path):
    root = write_workspace(tmp_path / "ws")
    aliased = write_text(
        root / "runs" / "aliased.csv",
        "qid,docid,sim,position\nt01,noise-a,0.9,1\nt01,doc-1#1,0.5,2\nt02,doc-2#1,0.7,1\n",
    )
    corpus = write_text(
        root / "corpus.jsonl",
        '{"chunk_id": "doc-1#1", "doc_id": "doc-1", "text": "Reset it.", "section": "s"}\n',
    )
    runs = [root / "runs" / "baseline.jsonl", root / "runs" / "candidate.jsonl", aliased]
    grades = sorted((root / "grades").glob("*.jsonl"))

    def opener(cache: Path) -> Workspace:
        return Workspace.from_files(root / "gold.jsonl", runs, grades, corpus, cache=cache)

    first, second = open_twice(tmp_path / "cache", opener)
    assert first.column_mappings() and len(first.configs()) == 3
    assert_same(first, second)


def test_a_beir_folder_restored_equals_a_fresh_load(tmp_path):
    root = beir_folder(tmp_path / "beir")
    run = write_text(tmp_path / "run.trec", "q1 Q0 d1 1 2.0 t\nq2 Q0 d2 1 1.5 t\nq3 Q0 d4 1 1 t\n")

    def opener(cache: Path) -> Workspace:
        return Workspace.from_files(root, [run], cache=cache)

    first, second = open_twice(tmp_path / "cache", opener)
    assert first.qrels
    assert_same(first, second)


def test_a_restored_workspace_is_locked_down_as_a_fresh_one(tmp_path):
    cache = tmp_path / "cache"
    _, restored = open_twice(cache, lambda c: Workspace.open(DATA_SAMPLES, cache=c))
    for attack in (
        "SELECT * FROM read_text('/etc/passwd')",
        f"ATTACH '{cache / 'another.duckdb'}' AS again",
        "SET enable_external_access = true",
    ):
        with pytest.raises(Exception) as refused:
            restored.cursor().execute(attack)
        assert "permission" in type(refused.value).__name__.lower() or "lock" in str(refused.value)
    # the run tables are read from the cache file in place: attached read-only
    attached = restored.cursor().execute(
        "SELECT database_name, readonly FROM duckdb_databases() WHERE NOT internal"
    )
    assert dict(attached.fetchall()) == {"memory": False, load_cache.ALIAS: True}
    with pytest.raises(Exception, match="read-only|READ_ONLY|Cannot execute"):
        restored.cursor().execute(f"DELETE FROM {load_cache.ALIAS}.run_table_0")


def test_a_restored_run_table_is_the_cache_files_read_in_place(tmp_path):
    """The runs are not copied in: each run table is a view of the file's (the fixed tables,
    with their keys, are copied), and the rows read through it are the fresh load's."""
    cache = tmp_path / "cache"
    first, second = open_twice(cache, lambda c: Workspace.open(DATA_SAMPLES, cache=c))
    kinds = second.cursor().execute(
        "SELECT table_name, 'table' FROM duckdb_tables() WHERE database_name = 'memory' "
        "UNION ALL SELECT view_name, 'view' FROM duckdb_views() WHERE database_name = 'memory' "
        "AND NOT internal"
    )
    kinds = dict(kinds.fetchall())
    run_tables = [t for t in kinds if load_cache.RUN_TABLE.fullmatch(t)]
    assert len(run_tables) == len(first.run_names) > 1
    assert {kinds[t] for t in run_tables} == {"view"}
    assert kinds["queries"] == kinds["run_files"] == "table"
    assert tables(second) == tables(first)


def test_one_changed_byte_misses(tmp_path):
    root = tmp_path / "ws"
    samples_copy(root)
    cache = tmp_path / "cache"
    Workspace.open(root, cache=cache)
    load_cache.wait_for_writes()
    gold = root / "gold.jsonl"
    data = gold.read_bytes()
    stat = gold.stat()
    gold.write_bytes(data.replace(b"VPN", b"VPX", 1))
    os.utime(gold, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size and mtime
    changed = Workspace.open(root, cache=cache)
    load_cache.wait_for_writes()
    assert HITS == [False, False]
    texts = changed.cursor().execute("SELECT string_agg(query, ' ') FROM queries").fetchone()[0]
    assert "VPX" in texts
    assert len(cache_files(cache)) == 2


def test_the_same_files_at_another_path_do_not_share_a_cache(tmp_path):
    cache = tmp_path / "cache"
    for name in ("one", "two"):
        samples_copy(tmp_path / name)
        ws = Workspace.open(tmp_path / name, cache=cache)
        load_cache.wait_for_writes()
        paths = {path.parent.parent for path in ws.runs.values()}
        assert paths == {tmp_path / name}
    assert len(cache_files(cache)) == 2


def test_a_config_appearing_beside_a_run_misses(tmp_path):
    root = tmp_path / "ws"
    samples_copy(root)
    (root / "runs" / "bm25.config.json").unlink()
    cache = tmp_path / "cache"
    Workspace.open(root, cache=cache)
    load_cache.wait_for_writes()
    write_text(root / "runs" / "bm25.config.json", '{"retrieval": "sparse"}')
    assert Workspace.open(root, cache=cache).configs()["bm25"] == {"retrieval": "sparse"}


def test_no_cache_folder_means_no_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    Workspace.open(DATA_SAMPLES)
    load_cache.wait_for_writes()
    assert not (tmp_path / "home").exists()


def test_caching_off_in_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(load_cache.CACHE_ENV, "off")
    Workspace.open(DATA_SAMPLES, cache=tmp_path / "cache")
    load_cache.wait_for_writes()
    assert not (tmp_path / "cache").exists()


def test_the_cache_folder_and_files_are_private(tmp_path):
    cache = tmp_path / "home" / "cache"
    Workspace.open(DATA_SAMPLES, cache=cache)
    load_cache.wait_for_writes()
    assert cache.stat().st_mode & 0o777 == 0o700
    assert [f.stat().st_mode & 0o777 for f in cache.iterdir()] == [0o600]


def test_eviction_keeps_the_most_recently_used_within_bounds(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    for n in range(load_cache.MAX_FILES + 3):
        old = write_text(cache / f"{n:064x}.duckdb", "x" * 10)
        os.utime(old, (1_000_000 + n, 1_000_000 + n))
    stale = write_text(cache / f"{load_cache.TEMP_PREFIX}abc.duckdb", "x")
    os.utime(stale, (1_000_000, 1_000_000))
    other = write_text(cache / "notes.txt", "mine")
    Workspace.open(DATA_SAMPLES, cache=cache)
    load_cache.wait_for_writes()
    kept = {p.name for p in cache_files(cache)}
    newest = {f"{n:064x}.duckdb" for n in range(4, load_cache.MAX_FILES + 3)}
    assert len(kept) == load_cache.MAX_FILES and newest < kept
    assert not stale.exists() and other.exists()
    monkeypatch.setattr(load_cache, "MAX_BYTES", 25)
    load_cache.evict(cache)
    assert cache_files(cache) == []  # the newest alone is over 25 bytes: none is kept


def test_a_hit_counts_as_use(tmp_path):
    cache = tmp_path / "cache"
    Workspace.open(DATA_SAMPLES, cache=cache)
    load_cache.wait_for_writes()
    (path,) = cache_files(cache)
    os.utime(path, (1_000_000, 1_000_000))
    Workspace.open(DATA_SAMPLES, cache=cache)
    assert HITS == [False, True]
    assert path.stat().st_mtime > 1_000_000


def test_the_dashboard_keeps_its_workspace_in_the_home_cache(tmp_path, monkeypatch):
    from ragrecall_app import context
    from tests.dashboard_support import app, no_exception

    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    context._load_workspace.clear()
    no_exception(app(DATA_SAMPLES, monkeypatch))
    load_cache.wait_for_writes()
    assert len(cache_files(tmp_path / "home" / "cache")) == 1
    context._load_workspace.clear()  # a fresh server
    no_exception(app(DATA_SAMPLES, monkeypatch))
    assert HITS == [False, True]


def test_the_command_line_caches_only_when_asked(tmp_path, monkeypatch, capsys):
    from tests.helpers import run_cli

    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    # a copy: a load whose inputs' stamps move while it reads them is not kept, and the
    # shared copy of data_samples is read by every test of this process
    samples = samples_copy(tmp_path / "samples")
    gold, runs = samples / "gold.jsonl", sorted((samples / "runs").glob("*.jsonl"))
    argv = ["evaluate", gold, *runs, "--format", "json"]
    plain = run_cli(capsys, argv)
    assert not (tmp_path / "home").exists() and HITS == []
    outputs = []
    for _ in range(2):
        outputs.append(run_cli(capsys, [*argv, "--cache"]))
        load_cache.wait_for_writes()
    # failed twice in full runs (stop 50), never alone: what each run said and what the
    # cache held, so the next failure says why the second run missed
    why = [err for _, _, err in outputs], sorted(p.name for p in (tmp_path / "home").rglob("*"))
    assert HITS == [False, True], why
    for code, out, err in outputs:
        assert (code, err) == (plain[0], plain[2])
        assert_same_evaluation(json.loads(plain[1]), json.loads(out))
    assert len(cache_files(tmp_path / "home" / "cache")) == 1
    compared = run_cli(capsys, ["compare", gold, runs[0], runs[1], "--cache"])
    assert compared[0] == 0 and HITS[-1] is False  # another set of files: its own entry


@pytest.mark.parametrize(
    "command",
    [
        ["check", "{gold}", "{run0}", "--baseline", "{run1}", "--format", "json"],
        ["no-answer", "{gold}", "{run0}", "{run1}", "--format", "json"],
        ["report", "{workspace}", "-o", "{out}/report.md"],
    ],
    ids=["check", "no-answer", "report"],
)
def test_every_command_that_loads_runs_takes_the_cache(tmp_path, monkeypatch, capsys, command):
    """The second run restores the inputs and says what the first said."""
    from tests.helpers import run_cli

    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    workspace = tmp_path / "ws"
    samples_copy(workspace)
    runs = sorted((workspace / "runs").glob("*.jsonl"))
    values = {"gold": workspace / "gold.jsonl", "run0": runs[0], "run1": runs[1]}
    values |= {"workspace": workspace, "out": tmp_path}
    argv = [part.format(**values) for part in command] + ["--cache"]
    said = []
    for _ in range(2):
        said.append(run_cli(capsys, argv))
        load_cache.wait_for_writes()
    assert HITS == [False, True]
    assert said[0][0] in (0, 1) and said[0][0] == said[1][0]
    if "json" in argv:
        assert said[0][1] == said[1][1]


@pytest.mark.parametrize("slice_size", [1, 7, 4096, 1 << 23])
def test_a_file_s_digest_is_the_sha256_of_its_bytes_whatever_the_slice(
    tmp_path, monkeypatch, slice_size
):
    """An input is hashed in slices (fewer takes of the interpreter's lock than
    ``hashlib.file_digest``): the digest is its bytes' sha256 at every slice size, a file
    shorter or longer than a slice or empty alike."""
    monkeypatch.setattr(load_cache, "HASH_SLICE", slice_size)
    for size in (0, 1, 6, 7, 8, 5000):
        data = bytes(range(256)) * (size // 256) + bytes(size % 256)
        path = tmp_path / f"file-{slice_size}-{size}"
        path.write_bytes(data)
        expected = b"file" + hashlib.sha256(data).digest()
        assert load_cache.file_digest(path) == expected
