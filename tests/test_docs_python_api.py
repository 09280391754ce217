"""The docs' "Python API" page: its first example runs as written, from the repository's
folder, and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).parent.parent


def python_api_block() -> str:
    """The first Python code block of docs/python-api.md, before its first subsection."""
    text = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    section = text.split("# Python API\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)


def test_python_api_example_runs_and_prints_what_it_says(monkeypatch):
    monkeypatch.chdir(ROOT)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(python_api_block(), "docs/python-api.md", "exec"), {})  # noqa: S102
    said = re.search(r"print\(error\)  # (.*?)\.\.\.\n", python_api_block()).group(1)
    assert said in printed.getvalue()
    assert "Recall@2" in printed.getvalue()  # the comparison's deltas
