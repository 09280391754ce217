"""Progress while loading (issue 14): a bar on stderr when stderr is a terminal, nothing when
it is not, and stdout (the results) clean either way.

``ragrecall evaluate`` runs in a child process whose stderr is a pseudo-terminal (``pty``) or
a pipe; the bar's delay is cut to nothing so a file of a few seconds' load shows it.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys

import duckdb
import pytest

from ragrecall_core.inputs.progress import bar

CHILD = """
import sys
import ragrecall_core.inputs.progress as progress
progress.SHOW_AFTER = 0
progress.REDRAW_EVERY = 0.02
from ragrecall_core.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A TREC run of 1.5M lines (long enough to load for a poll to see it) and its qrels."""
    folder = tmp_path_factory.mktemp("progress")
    run, qrels = folder / "run.trec", folder / "qrels.txt"
    con = duckdb.connect()
    con.execute(
        "COPY (SELECT 'q' || (i // 1000) AS q, 'Q0', 'd' || i, i % 1000 + 1, "
        "1000 - i % 1000, 'x' FROM range(1500000) t(i)) "
        "TO $path (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '')",
        {"path": str(run)},
    )
    qrels.write_text("".join(f"q{q} 0 d{q * 1000 + 3} 1\n" for q in range(1500)))
    return qrels, run


def run_child(files, stderr_is_tty: bool) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``ragrecall evaluate --format json`` on ``files``."""
    argv = [sys.executable, "-c", CHILD, "evaluate", *map(str, files), "-m", "MRR@10"]
    argv += ["--format", "json"]
    env = {**os.environ, "TERM": "xterm"}
    if not stderr_is_tty:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    err = b""
    while True:  # drain the terminal while the child writes, or it could block on a full pty
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            err += chunk
        elif child.poll() is not None:
            break
    out = child.stdout.read().decode()
    code = child.wait(timeout=300)
    os.close(master)
    return code, out, err.decode()


def test_a_terminal_shows_the_bar_on_stderr_and_stdout_stays_clean(files):
    code, out, err = run_child(files, stderr_is_tty=True)
    assert code == 0, err
    assert "reading run.trec [" in err and "%" in err
    assert err.endswith("\r\x1b[K")  # the bar is erased when the file is loaded
    assert json.loads(out)["runs"][0]["aggregate"]["MRR@10"] > 0
    assert "reading" not in out and "\r" not in out


def test_no_terminal_no_bar(files):
    code, out, err = run_child(files, stderr_is_tty=False)
    assert code == 0, err
    assert err == ""
    assert json.loads(out)["runs"][0]["aggregate"]["MRR@10"] > 0
    assert "\r" not in out and "reading" not in out


def test_the_bar_is_bounded_and_one_line():
    assert bar("reading x", 31.4) == "reading x [#########.....................]  31%"
    assert bar("reading x", 150) == "reading x [" + "#" * 30 + "] 150%"
    assert bar("reading x", -1).startswith("reading x [......")
