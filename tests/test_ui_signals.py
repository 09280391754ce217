"""``ragrecall ui`` stops its server when it is stopped: SIGINT or SIGTERM sent to the
launcher (a service manager, ``timeout``, ``kill``) reaches the streamlit server, the launcher
exits, and no process is left serving the port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.samples import shared_samples

DATA_SAMPLES = shared_samples()
RAGRECALL = Path(sys.executable).with_name("ragrecall")  # the venv's console script
HOST = "127.0.0.1"
# bounds on waits, never asserted as speeds: a slow machine only waits longer before failing
START_BOUND_S = 120
STOP_BOUND_S = 30

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="reads the process table from /proc"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def answers(port: int) -> bool:
    """Whether the server on ``port`` answers HTTP (its health check says ok)."""
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/_stcore/health", timeout=2) as got:
            return got.read().strip() == b"ok"
    except OSError:
        return False


def accepts(port: int) -> bool:
    """Whether anything still listens on ``port``."""
    with socket.socket() as probe:
        probe.settimeout(2)
        return probe.connect_ex((HOST, port)) == 0


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (exited, waiting to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def session_members(session: int) -> list[int]:
    """The live processes of session ``session`` (the launcher's, started apart)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def wait_until(condition, bound_s: float) -> bool:
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


@pytest.fixture
def launcher(tmp_path):
    """``ragrecall ui data_samples`` on a free port, in a session of its own (so that,
    whatever the test finds, every process it started is ended afterwards), once the
    server answers HTTP."""
    port = free_port()
    env = os.environ | {
        "RAGRECALL_HOME": str(tmp_path / "home"),
        "STREAMLIT_SERVER_HEADLESS": "true",
        "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
    }
    log = (tmp_path / "ui.log").open("wb")
    process = subprocess.Popen(
        [str(RAGRECALL), "ui", str(DATA_SAMPLES), "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        started = wait_until(lambda: answers(port) or process.poll() is not None, START_BOUND_S)
        assert started and process.poll() is None, (tmp_path / "ui.log").read_text()
        yield process, port
    finally:
        for pid in session_members(process.pid):  # only what this fixture started
            os.kill(pid, signal.SIGKILL)
        process.wait()
        log.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_the_launcher_stops_the_server(launcher, signum, tmp_path):
    process, port = launcher
    servers = [pid for pid in session_members(process.pid) if pid != process.pid]
    assert servers, "the launcher runs the server as a child"
    process.send_signal(signum)
    try:
        code = process.wait(timeout=STOP_BOUND_S)
    except subprocess.TimeoutExpired:
        pytest.fail("the launcher did not exit")
    assert wait_until(lambda: not any(alive(pid) for pid in servers), STOP_BOUND_S), servers
    assert not accepts(port)
    assert session_members(process.pid) == []
    log = (tmp_path / "ui.log").read_text()
    assert "Traceback" not in log, log
    assert code in (0, 128 + signum), (code, log)


def test_a_killed_launcher_leaves_no_server(launcher):
    """SIGKILL cannot be caught or forwarded: the server learns of its launcher's death from
    the kernel (a parent-death signal) and stops, so nothing is left serving the port."""
    process, port = launcher
    servers = [pid for pid in session_members(process.pid) if pid != process.pid]
    assert servers, "the launcher runs the server as a child"
    process.kill()
    process.wait(timeout=STOP_BOUND_S)
    assert wait_until(lambda: not any(alive(pid) for pid in servers), STOP_BOUND_S), servers
    assert not accepts(port)


STUBBORN_SERVER = """
import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open(sys.argv[1], "w").write(str(helper.pid))
time.sleep(60)  # unkilled, it ends with 0 and leaves its helper behind
"""


def test_a_server_that_ignores_the_signal_is_killed_with_its_children(tmp_path, monkeypatch):
    """The launcher's own stop path in process: a server (and a process it started) that
    ignores SIGTERM is killed once the stop wait is over, and the launcher returns."""
    import threading

    from ragrecall_core import cli

    monkeypatch.setattr(cli, "SERVER_STOP_WAIT_S", 1)
    ready = tmp_path / "helper.pid"

    def stop_when_ready() -> None:
        wait_until(lambda: ready.exists() and ready.read_text(), START_BOUND_S)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=stop_when_ready, daemon=True).start()
    before = signal.getsignal(signal.SIGTERM)
    code = cli.serve([sys.executable, "-c", STUBBORN_SERVER, str(ready)])
    assert code == 128 + signal.SIGKILL
    helper = int(ready.read_text())
    assert wait_until(lambda: not alive(helper), STOP_BOUND_S)
    assert signal.getsignal(signal.SIGTERM) is before  # the test process's handler is back
