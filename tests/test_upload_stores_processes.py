"""Two dashboard servers on one ``$RAGRECALL_HOME`` (two terminals, a team's shared home)
record golds into one store's record and choices into manifests at once: neither may drop
the other's record. A dropped gold digest means a later upload of that gold is not asked
and silently shares another gold's judgments (:mod:`ragrecall_core.inputs.upload_stores`).

The writers here are separate processes (spawned: no lock of this one is inherited), each
starting at one barrier so their reads and writes interleave."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from pathlib import Path

from ragrecall_core.inputs import upload_stores
from ragrecall_core.inputs.home import SHARED, stores_folder, upload_store_file

PROCESSES = 4
EACH = 40  # golds each process records: half directly, half by choosing on a manifest


def digest_of(process: int, item: int) -> str:
    return hashlib.sha256(f"{process}-{item}".encode()).hexdigest()


def record_many(home: str, process: int, start) -> None:
    """One server: after the barrier, record its golds into the shared store of
    ``gold.jsonl``, every other one by choosing :data:`SHARED` on an upload set's manifest."""
    os.environ["RAGRECALL_HOME"] = home
    store = stores_folder() / upload_store_file("gold.jsonl")
    manifests = Path(home) / "uploads"
    start.wait()
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
    spawn = multiprocessing.get_context("spawn")
    start = spawn.Barrier(PROCESSES)
    servers = [
        spawn.Process(target=record_many, args=(str(home), p, start)) for p in range(PROCESSES)
    ]
    for server in servers:
        server.start()
    for server in servers:
        server.join()
    assert [s.exitcode for s in servers] == [0] * PROCESSES
    store = stores_folder() / upload_store_file("gold.jsonl")
    recorded = {g["sha256"] for g in upload_stores.recorded_golds(store)}
    expected = {digest_of(p, i) for p in range(PROCESSES) for i in range(EACH)}
    assert sorted(expected - recorded) == []
    assert len(upload_stores.recorded_golds(store)) == len(expected)  # each once
    for manifest in (home / "uploads").glob("*.json"):
        assert json.loads(manifest.read_text())["store"] == SHARED
