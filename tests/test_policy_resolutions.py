"""The policy line says what reviewers put into the numbers (stop 53).

When the grades behind a resolution are undone, the judgment store holds a resolution whose
grades are gone: the sidebar counts 0 manual grades (``all_grades``, a6ff170), and the
resolution still judges its chunk (the numbers move with it). The policy line said a bare
"used", as if grades went in; it now says "used (resolutions only)", so the line, the count
and the numbers agree. Without a grade or a resolution it says "used (none loaded)",
the report's header too.

The workspace is tests/test_report_view.py's ``tiny`` (no grades file): q2 retrieved x, y
and z, its relevant chunk b1 not among them, so a reviewer's "y is relevant" moves its
Recall@3.
"""

from __future__ import annotations

from ragrecall_core import Workspace, evaluate
from ragrecall_core.inputs.store import open_store, resolve, submit, undo_last
from ragrecall_core.inputs.workspace import workspace_facts
from ragrecall_core.scoring.policy import RESOLUTIONS_ONLY, Policy
from tests.dashboard_support import app, no_exception, unescaped_text
from tests.helpers import build_report
from tests.test_report_view import tiny

QUERIES = "pages/queries.py"
NONE = "reviewers' grades = used (none loaded)"
RESOLVED = "reviewers' grades = used (resolutions only)"


def opened(folder) -> Workspace:
    ws = Workspace.open(folder)
    open_store(ws)
    return ws


def resolved_then_undone(folder) -> None:
    """rita and sam disagree on q2's y, the lead resolves it relevant, both undo."""
    ws = Workspace.open(folder)
    submit(ws, "q2", "y", 2, "rita")
    submit(ws, "q2", "y", 0, "sam")
    resolve(ws, "q2", "y", 2, "lee")
    assert undo_last(ws, "rita") == ("q2", "y") and undo_last(ws, "sam") == ("q2", "y")


def recall(ws: Workspace) -> float:
    return evaluate(ws, ["Recall@3"]).value("bm25", "Recall@3")


def test_a_resolution_whose_grades_were_undone_is_named_in_the_policy_line(tmp_path):
    untouched = recall(opened(tiny(tmp_path / "plain")))
    folder = tiny(tmp_path / "ws")
    resolved_then_undone(folder)
    ws = opened(folder)
    assert workspace_facts(ws).grades == 0  # the sidebar's count
    assert recall(ws) > untouched  # the resolution still judges y
    line = evaluate(ws, ["Recall@3"]).policy_line
    assert line.endswith(RESOLVED), line


def test_nothing_loaded_still_says_none_loaded(tmp_path):
    line = evaluate(opened(tiny(tmp_path / "ws")), ["Recall@3"]).policy_line
    assert line.endswith(NONE), line


def test_the_report_header_says_none_loaded_as_evaluate_does(tmp_path):
    """It said a bare "used" whatever was loaded."""
    ws = opened(tiny(tmp_path / "ws"))
    assert build_report(ws, 3).header()["policy"].endswith(NONE)


def test_the_report_header_says_resolutions_only_as_evaluate_does(tmp_path):
    folder = tiny(tmp_path / "ws")
    resolved_then_undone(folder)
    assert build_report(opened(folder), 3).header()["policy"].endswith(RESOLVED)


def test_the_short_line_says_it_in_the_same_words():
    assert Policy().summary(RESOLUTIONS_ONLY).endswith("reviewers' grades used (resolutions only)")
    # the policy ignores reviewers: resolutions go with their grades
    assert Policy(manual_grades=False).describe(RESOLUTIONS_ONLY).endswith("ignored (gold only)")


def test_the_dashboard_says_resolutions_only_beside_a_count_of_0(tmp_path, monkeypatch):
    folder = tiny(tmp_path / "ws")
    resolved_then_undone(folder)
    at = app(folder, monkeypatch).switch_page(QUERIES).run()
    no_exception(at)
    (counts,) = [c.value for c in at.sidebar.caption if "manual grade" in c.value]
    assert "0 manual grades" in counts, counts
    (line,) = [unescaped_text(c.value) for c in at.caption if c.value.startswith("Policy")]
    assert "reviewers' grades used (resolutions only)" in line, line
