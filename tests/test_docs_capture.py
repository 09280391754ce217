"""The docs' "From your retriever to a release gate" (docs/capture.md) runs as written
(issue 16).

Its Python block is saved as ``retriever.py`` and its shell block runs line by line in a
fresh folder holding a copy of ``data_samples/``'s gold set and corpus, with the
``ragrecall`` of this environment on the PATH.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TITLE = "## From your retriever to a release gate"


def section() -> str:
    text = (ROOT / "docs" / "capture.md").read_text("utf-8")
    start = text.index(TITLE)
    end = text.find("\n## ", start + len(TITLE))
    return text[start : end if end != -1 else len(text)]


def block(text: str, language: str) -> str:
    (found,) = re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)
    return found


def commands(shell: str) -> list[str]:
    """One command per line, a trailing backslash joining the next."""
    return [c.strip() for c in shell.replace("\\\n", " ").splitlines() if c.strip()]


def ranked(path: Path) -> dict[str, list[tuple[str, int, float]]]:
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    return {
        line["id"]: [(i["chunk_id"], i["rank"], i["score"]) for i in line["retrieved"]]
        for line in lines
    }


def test_the_walkthrough_runs_as_written(tmp_path):
    text = section()
    (tmp_path / "data_samples").mkdir()
    for name in ("gold.jsonl", "corpus.jsonl"):
        shutil.copy(ROOT / "data_samples" / name, tmp_path / "data_samples" / name)
    (tmp_path / "retriever.py").write_text(block(text, "python"), "utf-8")
    env = {
        **os.environ,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"],
    }
    env.pop("GITHUB_STEP_SUMMARY", None)
    steps = commands(block(text, "bash"))
    assert [s.split()[1] for s in steps[1:]] == ["capture", "capture", "compare", "check"]
    codes = []
    for step in steps:
        done = subprocess.run(
            ["bash", "-c", step], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert "Traceback" not in done.stderr, done.stderr
        codes.append(done.returncode)
    assert codes == [0, 0, 0, 0, 1], "the page says the gate exits 1"
    assert "exits 1" in text

    captured = ranked(tmp_path / "captured" / "bm25.jsonl")
    shipped = ranked(ROOT / "data_samples" / "runs" / "bm25.jsonl")
    assert captured.keys() == shipped.keys()
    for qid, items in shipped.items():
        assert [i[:2] for i in captured[qid]] == [i[:2] for i in items], qid
        assert [i[2] for i in captured[qid]] == [round(i[2], 6) for i in items]
    assert ranked(tmp_path / "captured" / "bm25-every-word.jsonl") != captured

    assert (tmp_path / "gate.md").read_text("utf-8").startswith("## Release gate: FAILED")
    suite = ET.parse(tmp_path / "gate.xml").getroot().find("testsuite")
    assert int(suite.get("failures")) >= 1
