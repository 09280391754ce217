"""AppTest: each page's URL carries only its own state and the shared view (issue 29): a
copied link holds nothing of another page."""

import pytest

from ragrecall_core.views.dashboard_state import FIELDS, PAGE_FIELDS, ViewState, to_params
from tests.dashboard_support import app, no_exception
from tests.test_view_state import two_disagreements

OTHER_PAGES_STATE = {"pick": "q1 · Z", "fclass": "partial", "q": "q1", "cq": "q1", "fc": "50"}


def params_of(at) -> set[str]:
    return set(at.query_params)


@pytest.mark.parametrize(
    ("page", "own"),
    [
        ("pages/ranks.py", set()),
        ("pages/no_answer.py", {"fc"}),
        ("pages/failures.py", set()),
        ("pages/overview.py", set()),
        ("pages/compare.py", {"cq"}),
        ("pages/queries.py", {"fclass", "q"}),
        ("pages/agreement.py", {"pick"}),
    ],
)
def test_a_page_url_leaves_out_other_pages_state(tmp_path, monkeypatch, page, own):
    folder = two_disagreements(tmp_path / "ws")
    params = {**OTHER_PAGES_STATE, "section": "", "k": "2"}
    at = app(folder, monkeypatch, params=params).switch_page(page).run()
    no_exception(at)
    shown = params_of(at)
    assert "k" in shown  # the shared view stays
    assert shown & set(OTHER_PAGES_STATE) == own


def test_agreement_pick_does_not_follow_to_ranks(tmp_path, monkeypatch):
    """The issue's case: a pick made on Agreement, then Ranks and No-answer."""
    folder = two_disagreements(tmp_path / "ws")
    at = app(folder, monkeypatch).switch_page("pages/agreement.py").run()
    at.selectbox(key="agreement_pick").select("q1 · Z").run()
    assert "pick" in params_of(at)
    for page in ("pages/ranks.py", "pages/no_answer.py"):
        at.switch_page(page).run()
        no_exception(at)
        assert "pick" not in params_of(at)
    at.switch_page("pages/agreement.py").run()  # the page's own state is kept for it
    assert at.query_params["pick"] in ("q1 · Z", ["q1 · Z"])


def test_every_field_is_shared_or_one_pages():
    owned = [name for names in PAGE_FIELDS.values() for name in names]
    assert len(owned) == len(set(owned))
    shared = {f.name for f in FIELDS if f.key.startswith("side_")}
    assert shared | set(owned) == {f.name for f in FIELDS} and not shared & set(owned)
    state = ViewState(query_id="q1", disagreement="a", k=10)
    assert to_params(state, page="ranks") == {"k": "10"}
    assert to_params(state, page="queries") == {"k": "10", "q": "q1"}
    assert set(to_params(state)) == {"k", "q", "pick"}  # no page: every field
