"""Shared helpers for the dashboard tests (AppTest and browser)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

from ragrecall_app import chart
from ragrecall_core.views.dashboard_state import PAGE_FIELDS
from tests.samples import ROOT, samples_copy, shared_samples

# every page script of the dashboard: the pages whose own URL state dashboard_state lists
EVERY_PAGE = tuple(f"pages/{stem}.py" for stem in PAGE_FIELDS)
APP = str(ROOT / "app.py")
TREC = ROOT / "tests" / "data" / "trec_eval"
XSS_TEXTS = ("<script>alert(1)</script>", "[click](javascript:alert(1))")


def samples_workspace(tmp_path: Path, monkeypatch) -> Path:
    """A copy of data_samples (:func:`samples_copy`), the dashboard's workspace for the test:
    its own content key, so no earlier test's cache answers."""
    folder = samples_copy(tmp_path / "ws")
    monkeypatch.setenv("RAGRECALL_WORKSPACE", str(folder))
    return folder


def trec_workspace(folder: Path) -> Path:
    """The TREC RAG 2024 sample as a workspace folder: qrels as gold, one run, no corpus."""
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    shutil.copy(TREC / "qrels.comment.test", folder / "qrels.txt")
    shutil.copy(TREC / "results.comment.test", folder / "runs" / "results.comment.test")
    return folder


def hostile_workspace(folder: Path) -> Path:
    """A tiny workspace whose query and chunk text try to inject HTML and a markdown link."""
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    gold = [
        {
            "id": "q1",
            "query": "<b>bold?</b> [click](javascript:alert(1))",
            "relevant_ids": ["doc-a#chunk-01"],
            "query_type": "exact_term",
            "section": "sec",
        },
        {
            "id": "q2",
            "query": "plain question",
            "relevant_ids": ["doc-b#chunk-01"],
            "query_type": "paraphrase",
            "section": "sec",
        },
    ]
    corpus = [
        {"chunk_id": "doc-a#chunk-01", "doc_id": "doc-a", "section": "sec", "text": XSS_TEXTS[0]},
        {"chunk_id": "doc-x#chunk-01", "doc_id": "doc-x", "section": "sec", "text": XSS_TEXTS[1]},
        {"chunk_id": "doc-b#chunk-01", "doc_id": "doc-b", "section": "sec", "text": "fine"},
    ]
    run = [
        {
            "id": "q1",
            "retrieved": [
                {"chunk_id": "doc-x#chunk-01", "rank": 1, "score": 0.9},
                {"chunk_id": "doc-a#chunk-01", "rank": 2, "score": 0.8},
            ],
        },
        {"id": "q2", "retrieved": [{"chunk_id": "doc-b#chunk-01", "rank": 1, "score": 0.7}]},
    ]
    for name, rows in (("gold.jsonl", gold), ("corpus.jsonl", corpus), ("runs/r.jsonl", run)):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def app(workspace: Path | None = None, monkeypatch=None, params: dict | None = None) -> AppTest:
    """An AppTest of app.py (on ``workspace`` through RAGRECALL_WORKSPACE), run once.

    Without ``workspace`` it opens :func:`~tests.samples.shared_samples`, not app.py's own
    default (the checkout's data_samples, whose judgment store a user may have left)."""
    if monkeypatch is not None:
        monkeypatch.setenv("RAGRECALL_WORKSPACE", str(workspace or shared_samples()))
    # without one, app.py would open what the environment names, or its own default
    assert os.environ.get("RAGRECALL_WORKSPACE"), "app() needs monkeypatch, or a workspace set"
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    return at.run()


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def unescaped_text(value):
    """Text as Markdown shows it: its backslash escapes of ASCII punctuation undone."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", value) if isinstance(value, str) else value


def table_cells(line: str) -> list[str]:
    """The cells of one row of a GitHub-flavoured Markdown table, split as GFM splits them:
    a backslash and the character after it are one pair (``\\|`` is text, ``\\\\|`` a
    backslash then the cell's end), every other ``|`` ends a cell; each cell's spaces and
    tabs at either end trimmed."""
    body = line.strip()
    assert body.startswith("|") and body.endswith("|"), line
    cells, cell, i = [], "", 1
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            cell, i = cell + body[i : i + 2], i + 2
            continue
        if body[i] == "|":
            cells.append(cell.strip(" \t"))
            cell = ""
        else:
            cell += body[i]
        i += 1
    return cells


def markdown_frame(text: str) -> pd.DataFrame | None:
    """A Markdown table (``st.markdown``) as the reader sees it: escapes undone, every
    right-aligned column as numbers (an empty cell missing); None when ``text`` is not one."""
    lines = text.split("\n")
    if len(lines) < 2 or not re.fullmatch(r"\|( -{3,}:? \|)+", lines[1]):
        return None
    header, align, *rows = (table_cells(line) for line in lines)
    columns = [unescaped_text(h) for h in header]
    frame = pd.DataFrame([[unescaped_text(c) for c in row] for row in rows], dtype=object)
    frame = frame.reindex(columns=range(len(columns)))
    for i, how in enumerate(align):
        if how.endswith(":"):
            frame[i] = pd.to_numeric(frame[i].replace("", None))
    frame.columns = columns
    return frame


def tables(at: AppTest) -> list[pd.DataFrame]:
    """Every static table of the page (Markdown tables), as the reader sees it."""
    found = (markdown_frame(m.value) for m in at.markdown)
    return [f for f in found if f is not None]


def table(at: AppTest, index: int = 0) -> pd.DataFrame:
    """The ``index``-th static table of the page, as the reader sees it."""
    return tables(at)[index]


def charts(at: AppTest) -> list:
    """The charts of the run (ragrecall_app.chart's component), in page order."""
    return [e for e in at.get("bidi_component") if e.proto.component_name == chart.NAME]


def figure_of(element) -> dict:
    """The plotly figure (as JSON) a chart element sends to the browser."""
    return json.loads(element.proto.json)["figure"]


def figures(at: AppTest) -> list[dict]:
    """The figures of the run's charts, in page order."""
    return [figure_of(e) for e in charts(at)]


def titles(at: AppTest) -> list[str]:
    return [t.value for t in at.title]


def count_calls(monkeypatch, module, name: str, calls) -> None:
    """Replace ``module.name`` (for this test) with a wrapper that counts each call in
    ``calls[name]`` (a Counter) and then calls the original."""
    original = getattr(module, name)

    def counted(*args, **kwargs):
        calls[name] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
