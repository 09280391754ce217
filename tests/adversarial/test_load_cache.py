"""A load cache that is damaged, hostile or cannot be used is ignored: the inputs are read
as without a cache, never a traceback, never other data. Secrets never reach a cache file;
an input with problems never writes one."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

import duckdb
import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.inputs import load_cache
from tests.helpers import count_cache_restores
from tests.samples import samples_copy, shared_samples

DATA_SAMPLES = shared_samples()
HITS: list[bool] = []


@pytest.fixture(autouse=True)
def cache_on(monkeypatch):
    """Caching on whatever the environment says; every restore's outcome in HITS;
    warnings shown again in each test (they are printed once per process)."""
    monkeypatch.setattr(load_cache, "_WARNED", set())
    count_cache_restores(monkeypatch, HITS)


def fingerprint_of_data(ws: Workspace) -> list:
    """What the samples hold, to tell their data from any other."""
    cur = ws.cursor()
    return [
        ws.run_names,
        cur.execute("SELECT count(*), count(DISTINCT query_id) FROM runs").fetchall(),
        cur.execute("SELECT * FROM queries ORDER BY query_id").fetchall(),
        cur.execute("SELECT count(*) FROM corpus").fetchall(),
    ]


EXPECTED = fingerprint_of_data(Workspace.open(DATA_SAMPLES))


def cached(cache: Path) -> Path:
    """Open the samples once with ``cache`` and return the cache file written."""
    Workspace.open(DATA_SAMPLES, cache=cache)
    load_cache.wait_for_writes()
    (path,) = cache.glob("*.duckdb")
    HITS.clear()
    return path


def open_again(cache: Path) -> Workspace:
    ws = Workspace.open(DATA_SAMPLES, cache=cache)
    load_cache.wait_for_writes()
    return ws


def assert_rewritten(cache: Path, path: Path) -> None:
    """The bad file was replaced by a good one: the next open is a hit."""
    HITS.clear()
    assert fingerprint_of_data(open_again(cache)) == EXPECTED
    assert HITS == [True] and [p.name for p in cache.iterdir()] == [path.name]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: data[:100], id="header-only"),
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: os.urandom(len(data)), id="garbage"),
        pytest.param(lambda data: data[:4096] + os.urandom(len(data) - 4096), id="bad-blocks"),
    ],
)
def test_a_damaged_cache_file_is_read_from_the_inputs_and_rewritten(tmp_path, capfd, damage):
    cache = tmp_path / "cache"
    path = cached(cache)
    path.write_bytes(damage(path.read_bytes()))
    assert fingerprint_of_data(open_again(cache)) == EXPECTED
    assert HITS == [False]
    assert_named_once(capfd, path)
    assert_rewritten(cache, path)


def assert_named_once(capfd, path: Path) -> None:
    """One line on stderr names the file that was read past."""
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 1 and str(path) in err[0] and "ignored" in err[0], err


def edit(path: Path, *statements: str) -> None:
    """Run ``statements`` on the cache file and sign it again with the user's own key (an
    attacker who has it): only the check of its tables stands in the way."""
    content = path.read_bytes()[: -load_cache.SIGNATURE_SIZE]
    path.write_bytes(content)
    con = duckdb.connect(str(path))
    for statement in statements:
        con.execute(statement)
    con.close()
    load_cache.sign(path, path.stem, load_cache.user_secret())


@pytest.mark.parametrize(
    "statements",
    [
        pytest.param(["CREATE TABLE stolen AS SELECT 1 AS x"], id="an-extra-table"),
        pytest.param(["DROP TABLE corpus"], id="a-missing-table"),
        pytest.param(["DROP TABLE ragrecall_load_cache_key"], id="no-key"),
        pytest.param(["UPDATE ragrecall_load_cache_key SET key = 'other'"], id="another-key"),
        pytest.param(["INSERT INTO ragrecall_load_cache_key VALUES ('x')"], id="two-keys"),
        pytest.param(["ALTER TABLE queries ADD COLUMN extra VARCHAR"], id="another-column"),
        pytest.param(
            ["DROP TABLE run_table_0", "CREATE TABLE run_table_0 AS SELECT 'x' AS qid"],
            id="a-run-table-of-other-columns",
        ),
        pytest.param(
            [
                "UPDATE run_files SET tbl = 'run_table_0 UNION ALL SELECT * FROM corpus' "
                "WHERE tbl = 'run_table_0'"
            ],
            id="sql-in-a-table-name",
        ),
        pytest.param(
            ["UPDATE run_files SET tbl = 'run_table_1' WHERE tbl = 'run_table_0'"],
            id="a-run-table-named-twice",
        ),
        pytest.param(
            ["ALTER TABLE run_table_3 RENAME TO run_table_9"], id="a-run-table-not-listed"
        ),
    ],
)
def test_a_cache_file_with_other_tables_is_not_read(tmp_path, capfd, statements):
    cache = tmp_path / "cache"
    path = cached(cache)
    edit(path, *statements)
    assert fingerprint_of_data(open_again(cache)) == EXPECTED
    assert HITS == [False]
    assert_named_once(capfd, path)
    assert_rewritten(cache, path)


def test_a_cache_file_that_is_a_symlink_is_not_followed(tmp_path):
    cache = tmp_path / "cache"
    path = cached(cache)
    elsewhere = tmp_path / "elsewhere.duckdb"
    shutil.move(path, elsewhere)
    path.symlink_to(elsewhere)
    assert fingerprint_of_data(open_again(cache)) == EXPECTED
    assert HITS == [False]
    assert not path.is_symlink() and elsewhere.is_file()  # replaced, the target untouched


@pytest.mark.parametrize("kind", ["symlink", "file", "under-a-file"])
def test_a_cache_folder_that_cannot_be_used_is_named_once(tmp_path, capfd, kind):
    target = tmp_path / "real"
    target.mkdir(mode=0o700)
    cache = tmp_path / "cache"
    if kind == "symlink":
        cache.symlink_to(target)
    elif kind == "file":
        cache.write_text("not a folder")
    else:
        (tmp_path / "file").write_text("")
        cache = tmp_path / "file" / "cache"
    for _ in range(2):
        assert fingerprint_of_data(open_again(cache)) == EXPECTED
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 1 and str(cache) in err[0] and "Traceback" not in err[0]
    assert HITS == [] and list(target.iterdir()) == []


def test_a_cache_file_that_cannot_be_made_is_named_once(tmp_path, capfd, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    fixed = uuid.UUID(int=7)
    monkeypatch.setattr(load_cache.uuid, "uuid4", lambda: fixed)
    key = load_cache.cache_key(load_plan_of(Workspace.open(DATA_SAMPLES)))
    obstacle = cache / f"{load_cache.TEMP_PREFIX}{key}-{os.getpid()}-{fixed.hex}.duckdb"
    obstacle.mkdir()  # in the way of the temporary file
    for _ in range(2):
        assert fingerprint_of_data(open_again(cache)) == EXPECTED
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 1 and "cannot be made" in err[0]
    assert list(cache.iterdir()) == [obstacle] and HITS == [False, False]


def load_plan_of(ws: Workspace):
    from ragrecall_core.inputs.workspace import load_plan

    runs = list(ws.runs.values())
    return load_plan("files", [("gold", ws.gold)], runs, ws.grades, ws.corpus)


def test_a_secret_in_a_run_config_never_reaches_the_cache_file(tmp_path):
    root = tmp_path / "ws"
    samples_copy(root)
    config = root / "runs" / "bm25.config.json"
    secret = "sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    data = json.loads(config.read_text()) | {"api_key": secret, "endpoint": f"https://u:{secret}@h"}
    config.write_text(json.dumps(data))
    cache = tmp_path / "cache"
    ws = Workspace.open(root, cache=cache)
    load_cache.wait_for_writes()
    assert "api_key" in ws.configs()["bm25"]
    (path,) = cache.iterdir()
    assert secret.encode() not in path.read_bytes()
    assert secret[8:24].encode() not in path.read_bytes()


def test_an_input_with_problems_never_writes_a_cache(tmp_path):
    root = tmp_path / "ws"
    samples_copy(root)
    with (root / "runs" / "bm25.jsonl").open("a") as run:
        run.write('{"id": 5, "retrieved": "nothing"}\n')
    cache = tmp_path / "cache"
    errors = []
    for _ in range(2):
        with pytest.raises(InputError) as refused:
            Workspace.open(root, cache=cache)
        load_cache.wait_for_writes()
        errors.append(str(refused.value))
        assert list(cache.iterdir()) == []  # not even a temporary file
    assert errors[0] == errors[1] and "bm25.jsonl" in errors[0]


def test_an_input_that_changes_while_it_is_loaded_is_not_kept(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "q1"}\n')
    plan = load_cache.LoadPlan("files", (("gold", gold),))
    cache = tmp_path / "cache"

    def fresh(con):
        gold.write_text('{"id": "q2"}\n')  # edited between the hash and the end of the load
        return "loaded"

    assert load_cache.load(cache, plan, None, fresh, None) == "loaded"
    load_cache.wait_for_writes()
    assert list(cache.iterdir()) == []


def test_an_input_that_is_no_regular_file_is_not_read_for_the_key(tmp_path):
    fifo = tmp_path / "gold.jsonl"
    os.mkfifo(fifo)  # reading it for a hash would wait for a writer forever
    plan = load_cache.LoadPlan("files", (("gold", fifo),))
    assert load_cache.cache_key(plan) is None
    assert load_cache.load(tmp_path / "cache", plan, None, lambda con: "fresh", None) == "fresh"


def test_a_bad_cache_setting_is_named_and_the_cache_stays_on(tmp_path, capfd, monkeypatch):
    monkeypatch.setenv(load_cache.CACHE_ENV, "of")
    cache = tmp_path / "cache"
    open_again(cache)
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 1 and load_cache.CACHE_ENV in err[0] and "off" in err[0]
    assert len(list(cache.glob("*.duckdb"))) == 1
