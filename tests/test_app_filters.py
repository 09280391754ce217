"""AppTest: every page follows the sidebar's section / type / split filters or says which
of its parts do not (issue #12). Expected numbers are read off the sample files directly."""

import json

from ragrecall_app import chart_code
from ragrecall_app.render import PAGE_CSS, PRESENTATION_CSS, escape_markdown
from tests.dashboard_support import app, no_exception, tables
from tests.samples import shared_samples

SAMPLES = shared_samples()
SECTION = "hr"


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _section_of():
    return {g["id"]: g.get("section", "") for g in _jsonl(SAMPLES / "gold.jsonl")}


def _shared_items(section: str | None) -> int:
    """(query, chunk) pairs both sample annotators graded, in ``section`` (None: all)."""
    sections = _section_of()
    graded = [
        {(r["query_id"], r["chunk_id"]) for r in _jsonl(SAMPLES / "grades" / f"{who}.jsonl")}
        for who in ("anna", "boris")
    ]
    shared = graded[0] & graded[1]
    return sum(1 for q, _ in shared if section is None or sections.get(q) == section)


def _no_answer_in(section: str) -> int:
    gold = _jsonl(SAMPLES / "gold.jsonl")
    return sum(1 for g in gold if not g["relevant_ids"] and g.get("section") == section)


def _frame(at, column: str):
    """The first table with ``column`` (a dataframe's key is not in AppTest's tree)."""
    frames = tables(at) + [f.value for f in at.dataframe]
    return next(f for f in frames if column in f.columns)


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_agreement_follows_the_section_filter(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"section": SECTION})
    at.switch_page("pages/agreement.py").run()
    no_exception(at)
    pairs = _frame(at, "shared chunks")
    assert _shared_items(SECTION) < _shared_items(None)
    assert int(pairs["shared chunks"].iloc[0]) == _shared_items(SECTION)
    sections = _section_of()
    items = _frame(at, "status")
    assert {sections[q] for q in items["query_id"]} == {SECTION}
    # what still covers every query says so in one line
    assert "do not follow the sidebar's filters" in _captions(at)


def test_agreement_unfiltered_covers_every_shared_chunk(monkeypatch):
    at = app(monkeypatch=monkeypatch).switch_page("pages/agreement.py").run()
    no_exception(at)
    pairs = _frame(at, "shared chunks")
    assert int(pairs["shared chunks"].iloc[0]) == _shared_items(None)


def test_overview_no_answer_row_counts_only_the_queries_in_view(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"section": SECTION})
    no_exception(at)
    table = _frame(at, "still returned results")
    expected = _no_answer_in(SECTION)
    assert expected < sum(1 for g in _jsonl(SAMPLES / "gold.jsonl") if not g["relevant_ids"])
    assert set(table["no-answer queries"]) == {expected}
    assert (table["still returned results"] <= expected).all()


def test_overview_says_its_validation_warnings_ignore_the_filters(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"section": SECTION})
    no_exception(at)
    assert any("tied scores" in w.value for w in at.warning)
    assert "Validation warnings cover every query" in _captions(at)


def _styles(at) -> list:
    """The run's HTML elements but the charts' code a session's first run sends (chart_code)."""
    code = chart_code.script()
    return [h for h in at.get("html") if h.proto.body != code]


def test_presentation_mode_is_kept_in_the_url_and_adds_one_constant_stylesheet(monkeypatch):
    plain = app(monkeypatch=monkeypatch)
    tables_and_json = {PAGE_CSS.strip()}  # the page's own, constant
    assert [h.proto.body for h in _styles(plain)] == [PAGE_CSS.strip()]  # once
    at = app(monkeypatch=monkeypatch, params={"present": "1"})
    no_exception(at)
    assert at.session_state["side_present"] is True
    styles = [h.proto.body for h in _styles(at) if h.proto.body not in tables_and_json]
    assert styles == [PRESENTATION_CSS.strip()]
    at.toggle(key="side_present").set_value(False).run()
    assert at.query_params.get("present") in (None, "0", ["0"])
    assert {h.proto.body for h in _styles(at)} == tables_and_json


def test_the_tables_style_is_drawn_once_per_run_and_on_every_rerun(monkeypatch):
    at = app(monkeypatch=monkeypatch)  # the Overview: five tables and a JSON block per run
    for k in (10, 5):
        assert [h.proto.body for h in _styles(at)] == [PAGE_CSS.strip()]
        at.pills(key="side_k").select(k).run()
        no_exception(at)
    assert [h.proto.body for h in _styles(at)] == [PAGE_CSS.strip()]


def test_the_policy_is_one_short_line_with_the_sentence_on_hover(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"rel": "2", "manual": "0"})
    at.switch_page("pages/ranks.py").run()
    no_exception(at)
    (line,) = [c for c in at.caption if c.value.startswith("Policy")]
    said = "Policy: grade >= 2 · chunk · reviewers' grades ignored (gold only)"
    assert line.value == escape_markdown(said)
    assert "reviewer partial \\(1\\)" in line.proto.help


def _answerable_in(section: str) -> int:
    gold = _jsonl(SAMPLES / "gold.jsonl")
    return sum(1 for g in gold if g["relevant_ids"] and g.get("section") == section)


def test_ranks_follow_the_section_filter(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"section": SECTION, "run": "bm25"})
    at.switch_page("pages/ranks.py").run()
    no_exception(at)
    # answerable = listed relevant in the gold (reviewers' grades may add more, never fewer)
    counts = [c.value for c in at.caption if "n \\=" in c.value]
    (line,) = counts
    n = int(line.split("n \\= ")[1].split(" ")[0])
    assert _answerable_in(SECTION) <= n < _answerable_in(SECTION) + _no_answer_in(SECTION) + 1


def test_no_answer_page_follows_the_section_filter(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"section": SECTION})
    at.switch_page("pages/no_answer.py").run()
    no_exception(at)
    line = next(c.value for c in at.caption if "no-answer queries (no relevant" in c.value)
    assert line.startswith(f"{_no_answer_in(SECTION)} no-answer queries")
    at.session_state["noans_tops_open"] = True  # its table is sent only while open
    at.run()
    listed = _frame(at, "top chunk")
    sections = _section_of()
    assert {sections[q] for q in listed["query_id"]} == {SECTION}
