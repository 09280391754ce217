"""Screenshots of the real dashboard for the docs: docs/img/*.png at 1600x1000.

Starts the app as ``ragrecall ui`` does (``python -m ragrecall_app.serve``) on
``data_samples/`` (as the browser tests do: only viewing, nothing is judged), with its own
``RAGRECALL_HOME`` in a temporary folder; opens each view in Debian's chromium through
playwright, waits for the page to settle (script done, expected text and charts drawn)
and saves it.

    python scripts/screenshots.py              # every shot into docs/img/
    python scripts/screenshots.py --out /tmp/shots --only reading-view

Needs the `test` extra (playwright) and /usr/bin/chromium (never `playwright install`).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from scripts.chromium import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    SERVE,
    VIEWPORT,
    free_port,
    healthy_within,
    server_flags,
)

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60_000
PLOT = ".ragrecall-chart .main-svg"  # the charts' own component (ragrecall_app/chart.py)
# file name -> (URL path and query, text the finished page shows, element it draws last)
SHOTS = {
    "reading-view": ("query-table?q=q043&run=bm25", "Gold list", "text=Retrieved by bm25"),
    "failures": ("failure-groups", "Group failing queries by", PLOT),
    "compare": ("runs-diff", "What changed between the two runs", "text=Measures: candidate"),
}


def start_server(home: Path) -> tuple[subprocess.Popen, str]:
    """The dashboard on data_samples/, served as ``ragrecall ui`` serves it."""
    port = free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    env.pop("RAGRECALL_WORKSPACE", None)
    env["RAGRECALL_HOME"] = str(home)
    server = subprocess.Popen(
        [sys.executable, *SERVE, *server_flags(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://localhost:{port}"
    if healthy_within(url, 60):
        return server, url
    server.terminate()
    raise SystemExit(f"streamlit did not start on port {port}")


SETTLED = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  return app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-testid=stSkeleton]');
}"""


def settle(page: Page, text: str, last: str) -> None:
    """The script has finished, the expected text and the element drawn last are shown,
    no placeholder is left, and that still holds a second later (a rerun may follow)."""
    page.wait_for_selector("[data-testid=stApp]", timeout=TIMEOUT)
    page.get_by_text(text).first.wait_for(timeout=TIMEOUT)
    page.locator(last).first.wait_for(timeout=TIMEOUT)
    for _check in range(2):
        page.wait_for_function(SETTLED, timeout=TIMEOUT)
        page.wait_for_timeout(1000)
    page.wait_for_function(SETTLED, timeout=TIMEOUT)


def take(url: str, out: Path, only: list[str]) -> list[Path]:
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for name in only:
                path, text, last = SHOTS[name]
                page = browser.new_page(viewport=VIEWPORT)
                page.goto(f"{url}/{path}")
                settle(page, text, last)
                target = out / f"{name}.png"
                page.screenshot(path=str(target), animations="disabled", timeout=TIMEOUT)
                written.append(target)
                page.close()
        finally:
            browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("--only", nargs="+", choices=sorted(SHOTS), default=list(SHOTS))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ragrecall-shots-") as home:
        server, url = start_server(Path(home))
        try:
            for path in take(url, args.out, args.only):
                print(
                    f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"
                    f": {path.stat().st_size // 1024} KB"
                )
        finally:
            server.terminate()
            server.wait(timeout=20)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
