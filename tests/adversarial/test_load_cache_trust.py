"""The load cache reads only files it wrote: owned by the current user, mode 0600, and signed
with an HMAC-SHA256 keyed by the user's secret in ``$RAGRECALL_HOME``. A file with edited
qrels must never flip the release gate: a foreign, open, edited, unsigned or otherwise-keyed
file is ignored, named in one line on stderr, and written again from the inputs. A restored
workspace holds exactly the tables a load without a cache makes."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
from pathlib import Path

import duckdb
import pytest

from ragrecall_core import Workspace
from ragrecall_core.inputs import load_cache
from tests.helpers import count_cache_restores, run_cli, write_text
from tests.samples import shared_samples

DATA_SAMPLES = shared_samples()
# what the cache appends to the database file it signs (the file format, stated here apart
# from the module so a changed format fails these tests)
MAGIC = b"\nragrecall load cache hmac-sha256 v1\n"
MAC_SIZE = 32
SECRET_NAME = "load_cache.secret"
OTHER_UID = 65534  # nobody
HITS: list[bool] = []


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch) -> Path:
    """A home of its own (the secret and the cache), warnings shown again in each test."""
    monkeypatch.setattr(load_cache, "_WARNED", set())
    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    count_cache_restores(monkeypatch, HITS)
    return tmp_path / "home"


def gate(capsys, *extra: str) -> tuple[int, str, str]:
    """``check`` on the samples with a requirement bm25 misses (exit 1 when read honestly)."""
    gold, run = DATA_SAMPLES / "gold.jsonl", DATA_SAMPLES / "runs" / "bm25.jsonl"
    code, out, err = run_cli(capsys, ["check", gold, run, "--require", "Recall@5>=1", *extra])
    load_cache.wait_for_writes()
    # evaluate's warnings of bm25 (ties at rank 5: check says them too) are no cache's
    lines = err.splitlines(keepends=True)
    return code, out, "".join(line for line in lines if not line.startswith("warning: "))


def cache_file(home: Path) -> Path:
    (path,) = (home / "cache").glob("*.duckdb")
    return path


def secret_of(home: Path) -> bytes | None:
    path = home / SECRET_NAME
    return path.read_bytes() if path.exists() else None


def mac(secret: bytes, key: str, content: bytes) -> bytes:
    """The signature the cache keeps: over the key it is stored under, then the bytes."""
    signer = hmac.new(secret, digestmod=hashlib.sha256)
    signer.update(len(key.encode()).to_bytes(8, "big") + key.encode())
    signer.update(content)
    return signer.digest()


def content_of(path: Path) -> bytes:
    """The database bytes of a cache file (its signature, if any, left off)."""
    data = path.read_bytes()
    if data[-MAC_SIZE - len(MAGIC) : -MAC_SIZE] == MAGIC:
        return data[: -MAC_SIZE - len(MAGIC)]
    return data


def sign(path: Path, secret: bytes | None) -> None:
    """What an attacker holding the user's secret would do (none yet: left unsigned)."""
    content = content_of(path)
    if secret is not None:
        content += MAGIC + mac(secret, path.name.removesuffix(".duckdb"), content)
    path.write_bytes(content)


def forge_qrels(path: Path) -> None:
    """Every query's relevant chunk becomes the chunk bm25 ranks first: Recall@5 = 1."""
    data = content_of(path)
    path.write_bytes(data)
    con = duckdb.connect(str(path))
    run = con.execute("SELECT tbl FROM run_files WHERE run = 'bm25'").fetchone()[0]
    con.execute("DELETE FROM qrels")
    con.execute(
        f"INSERT INTO qrels SELECT qid, docno, 1, NULL FROM {run} WHERE rank = 1"  # noqa: S608
    )
    con.execute("CHECKPOINT")
    con.close()


def pretend_owner(monkeypatch, path: Path, uid: int) -> None:
    """Every stat of ``path``'s inode says ``uid`` owns it (a file another user put there;
    works for any user running the tests)."""
    inode = os.stat(path).st_ino

    def owned(real):
        def stat_call(*args, **kwargs):
            info = real(*args, **kwargs)
            if info.st_ino != inode:
                return info
            fields = list(info)
            fields[4] = uid
            extra = ("st_atime", "st_mtime", "st_ctime", "st_atime_ns", "st_mtime_ns")
            extra += ("st_ctime_ns", "st_blksize", "st_blocks", "st_rdev")
            return os.stat_result(fields, {name: getattr(info, name) for name in extra})

        return stat_call

    for name in ("stat", "lstat", "fstat"):
        monkeypatch.setattr(os, name, owned(getattr(os, name)))


def attack_mode(path: Path, secret: bytes | None, monkeypatch) -> None:
    forge_qrels(path)
    sign(path, secret)
    os.chmod(path, 0o666)


def attack_owner(path: Path, secret: bytes | None, monkeypatch) -> None:
    forge_qrels(path)
    sign(path, secret)
    pretend_owner(monkeypatch, path, OTHER_UID)


def attack_the_issue(path: Path, secret: bytes | None, monkeypatch) -> None:
    """As reported: another user's file, mode 0666, qrels edited."""
    forge_qrels(path)
    os.chmod(path, 0o666)
    pretend_owner(monkeypatch, path, OTHER_UID)


def attack_edited(path: Path, secret: bytes | None, monkeypatch) -> None:
    """Qrels edited, the file's own signature put back."""
    trailer = path.read_bytes()[len(content_of(path)) :]
    forge_qrels(path)
    path.write_bytes(path.read_bytes() + trailer)


def attack_unsigned(path: Path, secret: bytes | None, monkeypatch) -> None:
    forge_qrels(path)
    sign(path, None)


def attack_other_secret(path: Path, secret: bytes | None, monkeypatch) -> None:
    """Signed with a key that is not the user's."""
    forge_qrels(path)
    sign(path, b"k" * 32)


def attack_secret_replaced(path: Path, secret: bytes | None, monkeypatch) -> None:
    """Signed with the secret of then; the user's secret file is replaced since."""
    forge_qrels(path)
    sign(path, secret)
    secret_file = path.parent.parent / SECRET_NAME
    secret_file.unlink()
    descriptor = os.open(secret_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(descriptor, os.urandom(32))
    os.close(descriptor)


@pytest.mark.parametrize(
    "attack",
    [
        attack_mode,
        attack_owner,
        attack_the_issue,
        attack_edited,
        attack_unsigned,
        attack_other_secret,
        attack_secret_replaced,
    ],
    ids=lambda attack: attack.__name__.removeprefix("attack_"),
)
def test_a_cache_file_it_did_not_write_never_flips_the_gate(home, capsys, monkeypatch, attack):
    honest = gate(capsys)
    assert honest[0] == 1 and "Recall@5" in honest[1]
    assert gate(capsys, "--cache")[:2] == honest[:2] and HITS == [False]
    path = cache_file(home)
    attack(path, secret_of(home), monkeypatch)
    attacked = gate(capsys, "--cache")
    assert attacked[:2] == honest[:2]  # the gate as without a cache: still exit 1
    err = attacked[2].splitlines()
    assert len(err) == 1 and str(path) in err[0] and "Traceback" not in err[0], err
    assert HITS == [False, False]
    monkeypatch.undo()  # the owner pretended for the old inode only; the home stays
    monkeypatch.setenv("RAGRECALL_HOME", str(home))
    count_cache_restores(monkeypatch, HITS)
    info = os.stat(path)  # rewritten: the user's, private, signed with the user's secret
    assert info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o600
    data = content_of(path)
    assert path.read_bytes() == data + MAGIC + mac(secret_of(home), path.stem, data)
    assert gate(capsys, "--cache") == honest and HITS == [True]  # a hit, nothing said


def flip_one_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(content_of(path)) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def test_one_byte_changed_is_named_and_rewritten(home, capsys):
    honest = gate(capsys)
    gate(capsys, "--cache")
    path = cache_file(home)
    flip_one_byte(path)
    attacked = gate(capsys, "--cache")
    assert attacked[:2] == honest[:2]
    err = attacked[2].splitlines()
    assert len(err) == 1 and str(path) in err[0] and "signature" in err[0]
    assert gate(capsys, "--cache") == honest and HITS == [False, False, True]


def test_a_file_is_named_once_per_process(home, capsys):
    gate(capsys, "--cache")
    path = cache_file(home)
    os.chmod(path, 0o644)
    first = gate(capsys, "--cache")[2]
    os.chmod(path, 0o644)  # rewritten 0600 meanwhile: made open again
    second = gate(capsys, "--cache")[2]
    assert len(first.splitlines()) == 1 and "0644" in first and second == ""
    assert HITS == [False, False, False]


def make_secret(home: Path, mode: int) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / SECRET_NAME
    path.write_bytes(os.urandom(32))
    os.chmod(path, mode)
    return path


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda home, mp: make_secret(home, 0o644), id="mode-0644"),
        pytest.param(
            lambda home, mp: pretend_owner(mp, make_secret(home, 0o600), OTHER_UID),
            id="another-owner",
        ),
        pytest.param(
            lambda home, mp: (home / SECRET_NAME).write_bytes(b"short"), id="not-32-bytes"
        ),
        pytest.param(
            lambda home, mp: (home / SECRET_NAME).symlink_to(make_secret(home.parent, 0o600)),
            id="a-symlink",
        ),
    ],
)
def test_a_secret_it_cannot_trust_means_no_cache(home, capsys, monkeypatch, spoil):
    """A secret that is not the user's alone is never used and never replaced silently:
    the inputs are read in full, the reason said once, no cache file read or written."""
    honest = gate(capsys)
    gate(capsys, "--cache")
    path = cache_file(home)
    (home / SECRET_NAME).unlink()
    spoil(home, monkeypatch)
    said = [gate(capsys, "--cache") for _ in range(2)]
    assert [s[:2] for s in said] == [honest[:2]] * 2
    err = said[0][2].splitlines()
    assert len(err) == 1 and SECRET_NAME in err[0] and said[1][2] == ""
    assert HITS == [False] and list((home / "cache").iterdir()) == [path]


def test_the_secret_is_made_once_private(home, capsys):
    gate(capsys, "--cache")
    secret = home / SECRET_NAME
    info = os.lstat(secret)
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
    assert info.st_uid == os.getuid() and info.st_size == 32
    first = secret.read_bytes()
    gate(capsys, "--cache")
    assert secret.read_bytes() == first and HITS == [False, True]
    assert list(home.glob(".*")) == []  # no temporary file left beside it


# ---------------------------------------------------------------- the differential
def tables(ws: Workspace, order: str) -> dict[str, tuple]:
    """Every table of the workspace's database, and each run table a restore leaves in the
    cache file (a view of the file's table): its columns with types, its rows in ``order``
    (``stored``: as stored, a SELECT from one table keeping its rows' order; ``ALL``: as a
    multiset)."""
    cur = ws.cursor()
    names = cur.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = 'memory' "
        "AND schema_name = 'main' UNION ALL SELECT view_name FROM duckdb_views() "
        "WHERE database_name = 'memory' AND schema_name = 'main' "
        "AND view_name LIKE 'run\\_table\\_%' ESCAPE '\\' ORDER BY 1"
    ).fetchall()
    found = {}
    for (name,) in names:
        columns = [column[:2] for column in cur.execute(f"DESCRIBE {name}").fetchall()]  # noqa: S608
        sorted_by = " ORDER BY ALL" if order == "ALL" else ""
        rows = cur.execute(f"SELECT * FROM {name}{sorted_by}").fetchall()  # noqa: S608
        found[name] = (columns, rows)
    return found


def hostile_workspace(root: Path) -> Path:
    """Ids a typing read would change (numbers, dates, times, hex, exponents, leading zeros),
    with inner spaces, bidi and look-alike characters, in every input kind."""
    ids = ["007", "1e5", "2.10", "0x10", "10:30", "2024-1-5", "q 1", "q\u202e1", "\uff51\uff11"]
    chunks = ["001#1", "1.50", "TRUE", "nan", "c\u200b1", "-0", "\u0441hunk"]
    gold = [
        {"id": qid, "query": f"question {n}", "relevant_ids": [chunks[n % len(chunks)]]}
        for n, qid in enumerate(ids)
    ]
    write_text(root / "gold.jsonl", "".join(json.dumps(row) + "\n" for row in gold))
    items = [
        {"id": qid, "retrieved": [{"chunk_id": c, "rank": r + 1} for r, c in enumerate(chunks)]}
        for qid in ids
    ]
    write_text(root / "runs" / "a.jsonl", "".join(json.dumps(row) + "\n" for row in items))
    csv = "".join(f'"{q}",{c},{r + 1}\n' for q in ids[:6] for r, c in enumerate(chunks[:3]))
    write_text(root / "runs" / "b.csv", "query_id,chunk_id,rank\n" + csv)
    grades = [
        {"query_id": qid, "chunk_id": chunks[-1], "grade": 1, "annotator": "ann"} for qid in ids
    ]
    write_text(root / "grades" / "ann.jsonl", "".join(json.dumps(g) + "\n" for g in grades))
    corpus = [{"chunk_id": c, "doc_id": c.split("#")[0], "text": f"text {c}"} for c in chunks]
    write_text(root / "corpus.jsonl", "".join(json.dumps(row) + "\n" for row in corpus))
    return root


@pytest.mark.parametrize("workspace", ["samples", "hostile"])
def test_a_filled_cache_restores_exactly_the_tables_of_a_load_without_it(tmp_path, workspace):
    """Row for row as the load that filled it stored them, and as a multiset equal to an
    independent load without a cache (a load's group-by may list rows in another order)."""
    root = DATA_SAMPLES if workspace == "samples" else hostile_workspace(tmp_path / "ws")
    plain = tables(Workspace.open(root), "ALL")
    assert plain["qrels"][1] and plain["grades"][1] and plain["corpus"][1]
    assert len([name for name in plain if name.startswith("run_table_")]) >= 2
    filling = Workspace.open(root, cache=tmp_path / "cache")
    load_cache.wait_for_writes()
    load_cache._DIGESTS.clear()  # as a new process: every digest from the bytes
    restored = Workspace.open(root, cache=tmp_path / "cache")
    assert HITS == [False, True]
    assert tables(restored, "stored") == tables(filling, "stored")
    assert tables(restored, "ALL") == plain
