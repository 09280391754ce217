"""A read-only workspace made for real (stop 45), not by saying ``is_writable`` is False.

Root writes anything a mode forbids, so as root the workspace folder is bound read-only
onto itself in a mount namespace of the check's own (``unshare -m``: the read-only mount
a shared drive or a container volume gives), else made immutable (``chattr +i``); as
anyone else its modes are taken away. The check runs in a child process in that folder,
proves a write there fails, then looks at what the store does: its grades and verdicts
(even those only in its write-ahead log, the process killed right after saving) count,
judging is off saying why, every write is refused by name, nothing is changed, and the
command line exits 2 with one line. No way to make a folder read-only fails the test: it
is never skipped."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.dashboard_support import ROOT
from tests.helpers import write_text
from tests.test_app_judge import seed002

FILLED = """
import os, signal, sys
sys.path.insert(0, {root!r})
from ragrecall_core import Workspace
from ragrecall_core.analysis import verdicts as v
from ragrecall_core.inputs.store import resolve, submit
ws = Workspace.open({folder!r})
submit(ws, "q1", "D", 2, "anna")
resolve(ws, "q1", "D", 1, "carol")
v.record_verdict(ws, "old", "q1", "paraphrase", recorded_by="dora")
os.kill(os.getpid(), signal.SIGKILL)  # the saves only in the write-ahead log
"""

LOOK = """
import contextlib, io, json, os, sys
sys.path.insert(0, {root!r})
from pathlib import Path
from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.analysis import verdicts as v
from ragrecall_core.cli import main
from ragrecall_core.inputs.store import export_grades, resolve, submit
folder = Path({folder!r})
seen = {{}}
try:
    (folder / "probe").write_text("x")
    seen["probe"] = "written"
except OSError as error:
    seen["probe"] = type(error).__name__
ws = Workspace.open(folder)
status = js.connect_store(ws)
seen["status"] = [status.attached, status.writable, status.can_judge, status.note]
seen["grades"] = export_grades(ws)[["chunk_id", "annotator"]].values.tolist()
seen["resolutions"] = ws.cursor().execute(
    "SELECT resolver FROM all_resolutions WHERE id > 0").fetchall()
seen["verdicts"] = v.latest_verdicts(ws)[["reason", "recorded_by"]].values.tolist()
writes = {{
    "submit": lambda: submit(ws, "q1", "B", 0, "anna"),
    "resolve": lambda: resolve(ws, "q1", "B", 0, "carol"),
    "undo": lambda: js.undo_last(ws, "anna"),
    "verdict": lambda: v.record_verdict(ws, "old", "q1", "other", recorded_by="eve"),
    "import": lambda: v.import_verdicts(ws, Path({verdicts_file!r})),
}}
for name, write in writes.items():
    try:
        seen[name] = ["stored", write()]
    except InputError as error:
        seen[name] = [len(error.problems), str(error)]
ws.con.close()
for name, argv in {{
    "cli list": ["verdicts", str(folder), "--format", "json"],
    "cli import": ["verdicts", str(folder), "--import", {verdicts_file!r}],
}}.items():
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    seen[name] = [code, out.getvalue(), err.getvalue()]
print(json.dumps(seen))
"""

# the folder bound read-only onto itself, in this command's own mount namespace
READ_ONLY_MOUNT = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" -c "$3"'


def as_read_only(folder: Path, script: str) -> subprocess.CompletedProcess:
    """Run ``script`` in a child Python with ``folder`` read-only (see the module's text)."""
    if os.geteuid() != 0:
        return _with_modes_taken(folder, script)
    if _mounts_read_only(folder):
        return _python(
            script, prefix=["unshare", "-m", "sh", "-c", READ_ONLY_MOUNT, "sh", str(folder)]
        )
    return _immutable(folder, script)


def _mounts_read_only(folder: Path) -> bool:
    """Whether root may bind ``folder`` read-only here, in a mount namespace of its own."""
    if not shutil.which("unshare"):
        return False
    argv = ["unshare", "-m", "sh", "-c", READ_ONLY_MOUNT, "sh", str(folder), "true", ""]
    return subprocess.run(argv, capture_output=True, check=False).returncode == 0


def _python(script: str, prefix: list[str] = ()) -> subprocess.CompletedProcess:
    argv = [*prefix, sys.executable, script] if prefix else [sys.executable, "-c", script]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)


def _with_modes_taken(folder: Path, script: str) -> subprocess.CompletedProcess:
    every = [folder, *folder.rglob("*")]
    modes = {path: path.stat().st_mode for path in every}
    for path in every:
        path.chmod(modes[path] & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        return _python(script)
    finally:
        for path in every:
            path.chmod(modes[path])


def _immutable(folder: Path, script: str) -> subprocess.CompletedProcess:
    chattr = shutil.which("chattr")
    made = chattr and subprocess.run([chattr, "-R", "+i", str(folder)], capture_output=True)
    try:
        if not made or made.returncode != 0:
            pytest.fail(
                "no way to make a read-only folder here as root: unshare -m with a bind mount "
                "and chattr +i both failed; run the tests as another user"
            )
        return _python(script)
    finally:
        if made:
            subprocess.run([chattr, "-R", "-i", str(folder)], capture_output=True, check=False)


def fingerprint(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def verdicts_file(tmp_path) -> Path:
    row = {"run": "new", "query_id": "q1", "reason": "chunk boundary", "recorded_by": "fay"}
    return write_text(tmp_path / "elsewhere" / "verdicts.jsonl", json.dumps(row) + "\n")


def look_read_only(folder: Path, verdicts_file: Path) -> dict:
    script = LOOK.format(root=str(ROOT), folder=str(folder), verdicts_file=str(verdicts_file))
    before = fingerprint(folder)
    done = as_read_only(folder, script)
    assert done.returncode == 0, done.stderr[-3000:]
    assert fingerprint(folder) == before  # nothing changed, nothing lost
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["probe"] != "written", "the folder was not read-only"
    return seen


def test_a_read_only_store_counts_everything_saved_and_refuses_every_write(tmp_path, verdicts_file):
    folder = seed002(tmp_path / "ws")
    filled = subprocess.run(
        [sys.executable, "-c", FILLED.format(root=str(ROOT), folder=str(folder))],
        cwd=ROOT,
        check=False,
    )
    assert filled.returncode == -9
    assert (folder / "judgments.duckdb.wal").exists()  # the saves are in the log alone
    seen = look_read_only(folder, verdicts_file)
    attached, writable, can_judge, note = seen["status"]
    assert attached and not writable and not can_judge
    assert "read-only" in note and "Its grades are counted" in note
    assert seen["grades"] == [["D", "anna"]]
    assert seen["resolutions"] == [["carol"]]
    assert seen["verdicts"] == [["paraphrase", "dora"]]
    store = str(folder / "judgments.duckdb")
    for write in ("submit", "resolve", "undo", "verdict", "import"):
        count, said = seen[write]
        assert count == 1 and said.startswith(f"{store}: got 'read-only'"), (write, said)
    code, out, err = seen["cli list"]
    assert code == 0 and json.loads(out)["verdicts"][0]["reason"] == "paraphrase", (out, err)
    code, out, err = seen["cli import"]
    [problem] = err.strip().splitlines()[1:]  # one line per problem, under the headline
    assert code == 2 and problem.startswith(f"{store}: got 'read-only'"), err


def test_a_read_only_folder_without_a_store_says_so_and_makes_none(tmp_path, verdicts_file):
    folder = seed002(tmp_path / "ws")
    seen = look_read_only(folder, verdicts_file)
    attached, writable, can_judge, note = seen["status"]
    assert not attached and not writable and not can_judge and "read-only" in note
    assert seen["grades"] == [] and seen["verdicts"] == []
    for write in ("submit", "verdict", "import"):
        assert "got 'read-only'" in seen[write][1], seen[write]
    assert seen["undo"][1].startswith(str(folder / "judgments.duckdb"))
    assert not (folder / "judgments.duckdb").exists()
