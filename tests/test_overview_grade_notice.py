"""The Overview says when reviewers' grades moved its numbers during the session (issue 29):
how many grades were stored, which runs' headline numbers moved (old → new), with links to
the grades; nothing when no grade was stored.

The fixture is the one of tests/test_report_view.py (one run, four queries, one relevant
chunk each). Its headline numbers, by hand, over every query:

    before: Recall@5 = (1 + 0 + 1 + 1) / 4 = 0.750   MRR@5 = (1 + 0 + 1/2 + 1) / 4 = 0.625
A reviewer grades q2's chunk x (rank 1 of q2's list) 2: q2 has two relevant chunks, b1
(not retrieved) and x (rank 1), so its Recall@5 = 1/2 and its RR = 1:
    after:  Recall@5 = (1 + 1/2 + 1 + 1) / 4 = 0.875  MRR@5 = (1 + 1 + 1/2 + 1) / 4 = 0.875
"""

from __future__ import annotations

from ragrecall_app.context import CTX
from ragrecall_core.inputs.store import submit
from ragrecall_core.views.overview import GradeChange, Numbers, grade_change
from tests.dashboard_support import app, no_exception, unescaped_text
from tests.test_report_view import tiny

NOTICE = "overview_grade_notice"


def notice(at) -> str:
    texts = [unescaped_text(m.value) for m in at.markdown]
    return " ".join(t for t in texts if "Reviewers' grades changed" in t)


def test_a_stored_grade_is_named_with_the_run_and_its_numbers(tmp_path, monkeypatch):
    at = app(tiny(tmp_path / "ws"), monkeypatch)
    no_exception(at)
    assert notice(at) == ""  # nothing stored yet: no notice
    at.run()
    assert notice(at) == ""  # a rerun without grades: still none
    submit(at.session_state[CTX].ws, "q2", "x", 2, "rita")  # through the core store
    at.run()
    no_exception(at)
    text = notice(at)
    assert "1 grade stored" in text
    assert "bm25 Recall@5 0.750 → 0.875" in text
    assert "MRR@5 0.625 → 0.875" in text
    links = [link.proto.page for link in at.get("page_link")]
    assert links == ["grades-review", "blind-judging"]  # the Agreement and Judge pages
    at.button(key="overview_grades_seen").click().run()
    assert notice(at) == ""  # taken as seen: the notice goes until the next grade


def test_grade_change_names_only_moves_the_table_shows():
    before = Numbers(3, (("a", "Recall@5", 0.7951), ("b", "Recall@5", 0.5)))
    assert grade_change(before, before) is None  # nothing stored: no change
    after = Numbers(5, (("a", "Recall@5", 0.7912), ("b", "Recall@5", 0.50004)))
    change = grade_change(before, after)
    assert change == GradeChange(2, (("a", "Recall@5", 0.7951, 0.7912),))
    assert change.line() == (
        "Reviewers' grades changed since this session opened: 2 grades stored; "
        "a Recall@5 0.795 → 0.791."
    )
    quiet = grade_change(before, Numbers(4, before.means))
    assert quiet.line().endswith("1 grade stored; no headline number moved (at 3 decimals).")
