"""No internals reach a reader: no None, nan, NaN, <NA>, "Empty DataFrame", True or False
as words in any report format, nor on any dashboard page (every element's text, and every
cell a table displays: Streamlit shows a missing cell as "None").
"""

from __future__ import annotations

import html
import re

import pandas as pd
import pytest

from ragrecall_core.inputs.workspace import Workspace
from tests.dashboard_support import app, no_exception
from tests.helpers import build_report, write_jsonl
from tests.samples import shared_samples

TOKENS = re.compile(r"(?<![\w<])(None|nan|NaN|<NA>|NaT|True|False)(?![\w>])|Empty DataFrame")
PAGES = {
    "pages/overview.py": {},
    "pages/queries.py": {"q": "q010"},
    "pages/failures.py": {},
    "pages/ranks.py": {"bin": "not retrieved"},
    "pages/compare.py": {"cq": "q010"},
    "pages/no_answer.py": {},
    "pages/judge.py": {},
    "pages/agreement.py": {},
}
# boxes whose content is sent only while open: opened, so their tables are read too
OPEN = {
    "pages/compare.py": ("compare_scatter_open", "compare_by_group_open"),
    "pages/no_answer.py": (
        *("noans_sweep_chart_open", "noans_scores_open", "noans_sweep_open", "noans_tops_open"),
    ),
    "pages/agreement.py": (
        *("agreement_confusions_open", "agreement_import_open", "agreement_review_open"),
    ),
}
TEXT_ATTRIBUTES = ("value", "body", "label", "help", "placeholder", "caption")


def tokens_in(text: str) -> list[str]:
    return [m.group(0) for m in TOKENS.finditer(text)]


def displayed_cells(frame: pd.DataFrame) -> list[str]:
    """What a reader sees in each cell (a missing value shows as "None")."""
    cells = [str(c) for c in frame.columns]
    for column in frame.columns:
        values = frame[column]
        if values.dtype == bool:
            continue  # shown as a check box
        cells += ["None" if pd.isna(v) is True else str(v) for v in values.tolist()]
    return cells


def page_texts(node) -> list[str]:
    """Every string an element of the page shows, tables cell by cell."""
    texts = []
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            texts += page_texts(child)
    if node.type in ("arrow_data_frame", "dataframe", "table"):
        return texts + displayed_cells(node.value)
    for attribute in TEXT_ATTRIBUTES:
        try:
            value = getattr(node, attribute, None)
        except Exception:  # noqa: BLE001 - some elements compute value from state lazily
            continue
        if isinstance(value, str):
            texts.append(value)
    for option in getattr(node, "options", None) or []:
        texts.append(str(option))
    return texts


@pytest.mark.parametrize("page", list(PAGES))
def test_no_internal_token_on_a_page(page, monkeypatch):
    at = app(monkeypatch=monkeypatch, params=PAGES[page])
    for key in OPEN.get(page, ()):
        at.session_state[key] = True
    at = at.switch_page(page).run()
    no_exception(at)
    assert len(at.expander) >= len(OPEN.get(page, ()))
    texts = page_texts(at.main) + page_texts(at.sidebar)
    assert len(texts) > 20
    found = {t: tokens_in(t) for t in texts if tokens_in(t)}
    assert not found, found


def sparse_workspace(folder):
    """Runs without scores, no corpus, no grades, a no-answer query: every cell can be empty."""
    write_jsonl(
        folder / "gold.jsonl",
        [
            {"id": "q1", "query": "a", "relevant_ids": ["d#1"]},
            {"id": "q2", "query": "b", "relevant_ids": []},
        ],
    )
    retrieved = [
        {"id": "q1", "retrieved": [{"chunk_id": "d#2", "rank": 1}, {"chunk_id": "d#1", "rank": 2}]},
        {"id": "q2", "retrieved": [{"chunk_id": "d#3", "rank": 1}]},
    ]
    for stem in ("a", "b"):
        write_jsonl(folder / "runs" / f"{stem}.jsonl", retrieved)
    return folder


SPARSE_PARAMS = {"pages/queries.py": {"q": "q1"}, "pages/compare.py": {"cq": "q1"}}


@pytest.mark.parametrize("page", list(PAGES))
def test_no_internal_token_on_a_page_of_a_sparse_workspace(page, tmp_path, monkeypatch):
    workspace = sparse_workspace(tmp_path / "ws")
    at = app(workspace, monkeypatch, SPARSE_PARAMS.get(page)).switch_page(page).run()
    no_exception(at)
    texts = page_texts(at.main) + page_texts(at.sidebar)
    found = {t: tokens_in(t) for t in texts if tokens_in(t)}
    assert not found, found


@pytest.fixture(scope="module")
def report():
    return build_report(Workspace.open(shared_samples()), k=5)


@pytest.mark.parametrize("fmt", ["to_html", "to_markdown", "to_csv"])
def test_no_internal_token_in_a_report(report, fmt):
    text = getattr(report, fmt)()
    if fmt == "to_html":
        text = re.sub(r"<script.*?</script>", "", text, flags=re.S)  # plotly's own code
        text = html.unescape(re.sub(r"<[^>]+>", " ", text))  # what a browser shows
    found = tokens_in(text)
    assert not found, found


def test_the_scan_sees_tokens():
    frame = pd.DataFrame({"a": [1, None], "b": ["x", "True"]}).astype({"a": "Int64"})
    assert tokens_in(" ".join(displayed_cells(frame))) == ["None", "True"]
    assert tokens_in("<NA> nan Empty DataFrame") == ["<NA>", "nan", "Empty DataFrame"]
    assert tokens_in("Nonetheless, a Falsehood") == []


def test_report_tables_have_no_empty_header_cell(report):
    headers = re.findall(r"<th[^>]*>(.*?)</th>", report.to_html(), flags=re.S)
    assert headers and all(h.strip() for h in headers), headers
