"""What the browser tests, the screenshots and the browser benchmark share: Debian's
chromium with the same flags and window, a free port, the server's flags and the wait for
its health answer.

One home for them: the tests (``tests/browser/conftest.py``), ``scripts/screenshots.py`` and
``benchmarks/bench_browser.py`` had each their own copy, and a flag added to one was missing
from the others.
"""

from __future__ import annotations

import socket
import time
import urllib.request

CHROMIUM = "/usr/bin/chromium"  # Debian's (apt-get install -y chromium); never downloaded
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1600, "height": 1000}
# what `ragrecall ui` runs, before the server flags
SERVE = ["-m", "ragrecall_app.serve"]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_flags(port: int) -> list[str]:
    """Streamlit's flags for a served dashboard: headless on ``port``, no file watcher."""
    return ["--server.headless", "true", "--server.port", str(port)] + [
        "--server.fileWatcherType",
        "none",
    ]


def healthy_within(url: str, timeout: float) -> bool:
    """Whether the streamlit server at ``url`` answers ``ok`` on its health route within
    ``timeout`` seconds."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as answer:
                if answer.read().decode().strip() == "ok":
                    return True
        except OSError:
            time.sleep(0.1)
    return False
