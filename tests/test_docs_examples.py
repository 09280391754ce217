"""Every Python example of the docs runs, and the CI gate page's command prints what the
page shows.

Each page's ```python blocks run in order, as one reader would paste them, in a fresh
folder holding a copy of data_samples/ (so a page may write files there). A block that the
text just before it says to save ("Save this as `retriever.py`:") is written to that file
and then run, so the blocks after it can import it. Pages' own claims (printed messages,
exit codes, peer measure names) are checked by tests/test_docs_<page>.py.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.samples import samples_copy

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BLOCK = re.compile(r"```(\w*)\n(.*?)```", flags=re.S)
SAVE_AS = re.compile(r"Save this as `([\w.]+\.py)`:\s*$")


def blocks(text: str, language: str) -> list[tuple[str, str]]:
    """``(text before the block, block)`` for each block of ``language``."""
    found, start = [], 0
    for match in BLOCK.finditer(text):
        if match.group(1) == language:
            found.append((text[start : match.start()], match.group(2)))
        start = match.end()
    return found


PAGES = {page.name: blocks(page.read_text("utf-8"), "python") for page in sorted(DOCS.glob("*.md"))}
WITH_CODE = sorted(name for name, found in PAGES.items() if found)


def workspace_copy(folder: Path) -> Path:
    samples_copy(folder / "data_samples")  # the name the docs' commands give it
    return folder


def run_page(name: str, folder: Path, monkeypatch) -> str:
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))
    before = set(sys.modules)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            for n, (before_text, code) in enumerate(PAGES[name]):
                saved = SAVE_AS.search(before_text)
                where = f"docs/{name} (python block {n + 1})"
                if saved:
                    (folder / saved.group(1)).write_text(code, "utf-8")
                    where = str(folder / saved.group(1))
                exec(compile(code, where, "exec"), {"__name__": "__docs__"})  # noqa: S102
    finally:
        for module in set(sys.modules) - before:
            if getattr(sys.modules[module], "__file__", "") and str(folder) in str(
                sys.modules[module].__file__
            ):
                del sys.modules[module]
    return printed.getvalue()


def test_the_pages_with_code_are_the_ones_expected():
    assert {"python-api.md", "switching.md", "capture.md"} <= set(WITH_CODE)


@pytest.mark.parametrize("name", WITH_CODE)
def test_every_python_block_of_the_page_runs(name, tmp_path, monkeypatch):
    run_page(name, workspace_copy(tmp_path), monkeypatch)


def test_a_block_saved_as_a_file_is_importable_by_the_next(tmp_path, monkeypatch):
    """The saving rule itself: the capture page's retriever.py is written, then imported."""
    run_page("capture.md", workspace_copy(tmp_path), monkeypatch)
    assert (tmp_path / "retriever.py").read_text("utf-8").startswith('"""retriever.py:')
    assert (tmp_path / "captured" / "mine.jsonl").stat().st_size > 0


def test_a_failing_example_fails_the_test(tmp_path, monkeypatch):
    """The check can fail: a block whose assertion is false raises."""
    monkeypatch.setitem(PAGES, "broken.md", [("", "assert 1 + 1 == 3\n")])
    with pytest.raises(AssertionError):
        run_page("broken.md", tmp_path, monkeypatch)


def test_the_ci_gate_example_prints_what_the_page_shows(tmp_path):
    text = (DOCS / "ci-gate.md").read_text("utf-8")
    ((_, shell),) = blocks(text, "bash")
    ((_, shown),) = blocks(text, "text")
    env = {
        **os.environ,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"],
    }
    env.pop("GITHUB_STEP_SUMMARY", None)
    done = subprocess.run(
        ["bash", "-c", shell],
        cwd=workspace_copy(tmp_path),
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
    assert (tmp_path / "gate.md").read_text("utf-8").startswith("## Release gate: PASSED")
    assert "<testsuite" in (tmp_path / "gate.xml").read_text("utf-8")
