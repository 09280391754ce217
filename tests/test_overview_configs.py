"""The Overview's run configurations: each run's sidecar as indented JSON text (no JSON
viewer on a new session's first page), every value shown as written, nothing live."""

from __future__ import annotations

import json

from ragrecall_app.overview_sections import CONFIGS_OPEN
from ragrecall_app.render import printable_json
from tests.dashboard_support import app, no_exception
from tests.helpers import write_jsonl

CONFIG = {
    "name": "<script>alert(1)</script> [x](javascript:alert(1)) :red[y] $z$",
    "model": {"id": "minilm", "dim": 384, "tags": ["a|b", "ünïcode", None, True]},
    "notes": "line one\nline two\u2028\u202eevil\x1b[2K",
}


def configured_workspace(folder):
    write_jsonl(folder / "gold.jsonl", [{"id": "q1", "query": "q", "relevant_ids": ["d#1"]}])
    for run in ("a", "b"):
        rows = [{"id": "q1", "retrieved": [{"chunk_id": "d#1", "rank": 1, "score": 0.5}]}]
        write_jsonl(folder / "runs" / f"{run}.jsonl", rows)
    (folder / "runs" / "a.config.json").write_text(json.dumps(CONFIG))
    return folder


def test_printable_json_is_the_config_indented_with_nothing_unprintable():
    text = printable_json(CONFIG)
    assert json.loads(text) == CONFIG  # JSON still: the exact values
    assert text.splitlines()[:3] == [
        "{",
        '  "name": "<script>alert(1)</script> [x](javascript:alert(1)) :red[y] $z$",',
        '  "model": {',
    ]
    assert '"ünïcode"' in text  # other scripts read as written
    notes = '  "notes": "line one\\nline two\\u2028\\u202eevil\\u001b[2K"'
    assert notes in text.splitlines()  # a separator or bidi control as its JSON escape
    assert text.replace("\n", "").isprintable()


def test_each_run_config_is_plain_text_in_its_tab(tmp_path, monkeypatch):
    at = app(configured_workspace(tmp_path), monkeypatch)
    no_exception(at)
    assert not at.tabs, "sent only once its box is opened"
    assert printable_json(CONFIG) not in [t.value for t in at.text]
    at.session_state[CONFIGS_OPEN] = True
    at.run()
    no_exception(at)
    assert not at.json, "no JSON viewer on the first page"
    (tab_a, tab_b) = at.tabs
    assert [t.value for t in tab_a.text] == [printable_json(CONFIG)]
    assert [t.value for t in tab_b.text] == ["No config sidecar for this run."]
