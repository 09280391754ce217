"""The Agreement page's static tables are escaped Markdown tables (issue 30, stop 50), not
canvas grids: an annotator's name, a chunk id, a reason or a resolver that is markup reads
as written in every one of them (annotator pairs, model judges, disagreements, a
disagreement's grades and resolutions, gold gap candidates) and is never a link, an image
or HTML. Only a list too long to send as one table (more than
:data:`ragrecall_core.views.agreement_view.LONG_LIST` rows) is still a grid.

Workspace (seed 002's shape, tests/adversarial/test_stores.py): the annotator HOSTILE and
boris disagree on the chunk CHUNK of q1 (2 against 0) and agree on A and B; a judge grades
the same three chunks; HOSTILE resolves the disagreement. CHUNK is graded relevant by
HOSTILE and missing from the gold set: a gold gap candidate.
"""

from __future__ import annotations

from pathlib import Path

from ragrecall_core import Workspace
from ragrecall_core.inputs import store
from ragrecall_core.output.literal import NO_LINK
from ragrecall_core.views.agreement_view import LONG_LIST
from tests.adversarial.test_stores import (
    HOSTILE,
    LINK,
    markdown_hazards,
    rendered_markdown,
    seed002,
)
from tests.dashboard_support import app, no_exception, tables
from tests.helpers import write_jsonl

AGREEMENT = "pages/agreement.py"
CHUNK = f"Z|{LINK}<b>z</b>"
OPEN = ("agreement_review_open", "agreement_confusions_open")


def grade(chunk: str, value: int, annotator: str) -> dict:
    return {
        "query_id": "q1",
        "chunk_id": chunk,
        "grade": value,
        "annotator": annotator,
        "reason": HOSTILE,
    }


def hostile_workspace(folder: Path) -> Path:
    seed002(folder)
    said = {HOSTILE: (2, 1, 0), "boris": (0, 1, 0), "judge:j": (2, 1, 1)}
    for i, (name, grades) in enumerate(said.items()):
        rows = [grade(c, g, name) for c, g in zip((CHUNK, "A", "B"), grades, strict=True)]
        write_jsonl(folder / "grades" / f"g{i}.jsonl", rows)
    ws = Workspace.open(folder)
    store.resolve(ws, "q1", CHUNK, 2, HOSTILE, False, HOSTILE)
    ws.con.close()
    return folder


def opened(folder: Path, monkeypatch):
    at = app(folder, monkeypatch).switch_page(AGREEMENT)
    for key in OPEN:
        at.session_state[key] = True
    return at.run()


def shown(at, column: str):
    """The page's static table with ``column``, as the reader sees it (the word joiner that
    keeps a URL from being linked is not seen)."""
    found = [t for t in tables(at) if column in t.columns]
    assert len(found) == 1, [list(t.columns) for t in tables(at)]
    return found[0].map(lambda v: v.replace(NO_LINK, "") if isinstance(v, str) else v)


def test_every_table_of_the_agreement_page_shows_markup_as_written(tmp_path, monkeypatch):
    at = opened(hostile_workspace(tmp_path / "ws"), monkeypatch)
    no_exception(at)
    assert not at.dataframe  # no canvas grid: every table is an escaped one
    assert set(shown(at, "annotator A")["annotator A"]) | set(
        shown(at, "annotator B")["annotator B"]
    ) == {HOSTILE, "boris"}
    assert HOSTILE in set(shown(at, "against")["against"])
    items = shown(at, "status")
    assert items["chunk_id"].tolist() == [CHUNK]
    assert items["status"].tolist() == [f"resolved: 2 by {HOSTILE}"]
    grades = shown(at, "source")
    assert HOSTILE in set(grades["annotator"]) and set(grades["reason"]) == {HOSTILE}
    history = shown(at, "resolver")
    assert history[["resolver", "reason"]].values.tolist() == [[HOSTILE, HOSTILE]]
    gaps = shown(at, "kind")
    assert CHUNK in set(gaps["chunk_id"]) and HOSTILE in set(gaps["annotators"])
    hazards = {t: markdown_hazards(t) for t in rendered_markdown(at) if markdown_hazards(t)}
    assert not hazards, hazards


def test_no_flag_reads_true_or_false(tmp_path, monkeypatch):
    """A harmful flag is a word in a static table (a grid drew it as a check box)."""
    at = opened(hostile_workspace(tmp_path / "ws"), monkeypatch)
    no_exception(at)
    assert set(shown(at, "source")["harmful"]) == {"no"}
    assert shown(at, "resolver")["harmful"].tolist() == ["no"]


def many_disagreements(folder: Path, count: int) -> Path:
    seed002(folder)
    for name, value in (("anna", 2), ("boris", 0)):
        rows = [grade(f"c{i:04d}", value, name) for i in range(count)]
        write_jsonl(folder / "grades" / f"{name}.jsonl", rows)
    return folder


def test_a_list_too_long_for_one_table_stays_a_grid(tmp_path, monkeypatch):
    """LONG_LIST disagreements are one escaped table; one more is a grid (scrolled, sorted,
    drawn only as far as it is seen: thousands of rows as Markdown would be slower)."""
    at = app(many_disagreements(tmp_path / "short", LONG_LIST), monkeypatch)
    at.switch_page(AGREEMENT).run()
    no_exception(at)
    assert len(shown(at, "status")) == LONG_LIST
    assert not [d for d in at.dataframe if "status" in d.value.columns]

    at = app(many_disagreements(tmp_path / "long", LONG_LIST + 1), monkeypatch)
    at.switch_page(AGREEMENT).run()
    no_exception(at)
    assert not [t for t in tables(at) if "status" in t.columns]
    grids = [d.value for d in at.dataframe if "status" in d.value.columns]  # keys not kept
    assert [len(g) for g in grids] == [LONG_LIST + 1]
