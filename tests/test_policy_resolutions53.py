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
from ragrecall_core.inputs.store import open_store
from ragrecall_core.scoring.policy import RESOLUTIONS_ONLY, Policy
from tests.helpers import build_report
from tests.test_report_view import tiny

NONE = "reviewers' grades = used (none loaded)"
RESOLVED = "reviewers' grades = used (resolutions only)"


def opened(folder) -> Workspace:
    ws = Workspace.open(folder)
    open_store(ws)
    return ws


def test_nothing_loaded_still_says_none_loaded(tmp_path):
    line = evaluate(opened(tiny(tmp_path / "ws")), ["Recall@3"]).policy_line
    assert line.endswith(NONE), line


def test_the_report_header_says_none_loaded_as_evaluate_does(tmp_path):
    """It said a bare "used" whatever was loaded."""
    ws = opened(tiny(tmp_path / "ws"))
    assert build_report(ws, 3).header()["policy"].endswith(NONE)


def test_the_short_line_says_it_in_the_same_words():
    assert Policy().summary(RESOLUTIONS_ONLY).endswith("reviewers' grades used (resolutions only)")
    # the policy ignores reviewers: resolutions go with their grades
    assert Policy(manual_grades=False).describe(RESOLUTIONS_ONLY).endswith("ignored (gold only)")
