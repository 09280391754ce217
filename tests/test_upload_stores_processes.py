"""Two dashboard servers on one ``$RAGRECALL_HOME`` (two terminals, a team's shared home)
record golds into one store's record and choices into manifests at once: neither may drop
the other's record. A dropped gold digest means a later upload of that gold is not asked
and silently shares another gold's judgments (:mod:`ragrecall_core.inputs.upload_stores`).

The writers here are separate interpreters (no lock of this one is inherited), each
waiting for one start file so their reads and writes interleave."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from ragrecall_core.inputs import upload_stores
from ragrecall_core.inputs.home import SHARED, stores_folder, upload_store_file

PROCESSES = 4
EACH = 40  # golds each process records: half directly, half by choosing on a manifest


def digest_of(process: int, item: int) -> str:
    return hashlib.sha256(f"{process}-{item}".encode()).hexdigest()


ROOT = Path(__file__).resolve().parent.parent


def record_many(home: str, process: int) -> None:
    """One server: once the start file is there, record its golds into the shared store of
    ``gold.jsonl``, every other one by choosing :data:`SHARED` on an upload set's manifest."""
    os.environ["RAGRECALL_HOME"] = home
    store = stores_folder() / upload_store_file("gold.jsonl")
    manifests = Path(home) / "uploads"
    (Path(home) / f"ready-{process}").touch()
    while not (Path(home) / "start").exists():
        time.sleep(0.001)
    for item in range(EACH):
        digest = digest_of(process, item)
        if item % 2:
            manifest = manifests / f"{process:02d}{item:014d}.json"
            upload_stores.write_atomically(manifest, {"gold": "gold.jsonl", "gold_sha256": digest})
            upload_stores.choose(manifest, SHARED)
        else:
            upload_stores.record_gold(store, digest)


def test_servers_recording_at_once_lose_no_gold_and_no_choice(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("RAGRECALL_HOME", str(home))
    home.mkdir()
    code = "import sys; from tests.test_upload_stores_processes import record_many as r; "
    code += "r(sys.argv[1], int(sys.argv[2]))"
    servers = [
        subprocess.Popen([sys.executable, "-c", code, str(home), str(p)], cwd=ROOT)
        for p in range(PROCESSES)
    ]
    while len(list(home.glob("ready-*"))) < PROCESSES:  # all imported: they start at once
        time.sleep(0.01)
    (home / "start").touch()
    assert [s.wait() for s in servers] == [0] * PROCESSES
    store = stores_folder() / upload_store_file("gold.jsonl")
    recorded = {g["sha256"] for g in upload_stores.recorded_golds(store)}
    expected = {digest_of(p, i) for p in range(PROCESSES) for i in range(EACH)}
    assert sorted(expected - recorded) == []
    assert len(upload_stores.recorded_golds(store)) == len(expected)  # each once
    for manifest in (home / "uploads").glob("*.json"):
        assert json.loads(manifest.read_text())["store"] == SHARED
