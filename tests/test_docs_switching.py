"""The docs' "Switching from ranx / ir_measures / pytrec_eval" page runs as written,
and each ragrecall call there asks for the measures its peer's call names."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
TITLE = "# Switching from ranx / ir_measures / pytrec_eval\n"


def section() -> str:
    """The whole page after its title (it has no subsections)."""
    text = (ROOT / "docs" / "switching.md").read_text(encoding="utf-8")
    assert text.startswith(TITLE)
    return text.split(TITLE, 1)[1].split("\n## ", 1)[0]


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", section(), flags=re.S)


def test_the_switching_page_is_short_and_has_code():
    assert len(section().splitlines()) <= 40
    assert python_blocks()


def test_the_switching_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    for n, block in enumerate(python_blocks()):
        exec(compile(block, f"docs/switching.md (block {n + 1})", "exec"), {})  # noqa: S102


def names(listed: str) -> set[str]:
    return set(re.findall(r'"([^"]+)"', listed)) or {n.strip() for n in listed.split(",")}


def test_each_ragrecall_call_asks_for_its_peers_measures():
    code = "\n".join(python_blocks())
    peers = re.findall(r"# (ranx|ir_measures|pytrec_eval): .*?[\[{](.*?)[\]}]", code)
    calls = re.findall(r"ev = ragrecall\.evaluate\(\s*qrels, \[(.*?)\]", code)
    assert [p for p, _ in peers] == ["ranx", "ir_measures", "pytrec_eval"]
    assert len(calls) == len(peers)
    for (peer, theirs), ours in zip(peers, calls, strict=True):
        assert names(theirs) == names(ours), peer
