"""AppTest (issue 32): the sidebar's "Judge grades: show / count" policy control.

The workspace of tests/test_assist_counting.py: four queries, A relevant to each in the gold
set, one run listing A B C; anna judged q1 (B 0, C 0) and q2 (B 2, C 0); the judge
(``judge:always``, a grades file) grades every B and C 2. Shown (the default), P@3 is 5/12
as without the judge; counted, q3 and q4 reach 1: (1/3 + 2/3 + 1 + 1) / 4 = 3/4.
"""

from __future__ import annotations

import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.judge_counting import count_judge
from ragrecall_core.views.dashboard_state import ViewState, from_params, to_params
from tests.dashboard_support import app, no_exception, table, unescaped_text
from tests.test_assist_counting import counting_folder

JUDGE = "judge:always"
OVERVIEW = "pages/overview.py"


def without_judge(folder):
    (folder / "grades" / "judge.jsonl").unlink()
    return folder


def headline(at) -> dict[str, dict]:
    return {row["run"]: row for row in table(at).to_dict("records")}


def scope_lines(at) -> list[str]:
    return [unescaped_text(i.value) for i in at.info if i.value.startswith("Scope")]


def test_shown_by_default_the_numbers_are_the_ones_without_the_judge(tmp_path, monkeypatch):
    with_judge = app(counting_folder(tmp_path / "a", judge_in_file=True), monkeypatch)
    no_exception(with_judge)
    assert with_judge.selectbox(key="side_judge").value == ""  # show, not count
    plain = app(without_judge(counting_folder(tmp_path / "b", judge_in_file=True)), monkeypatch)
    no_exception(plain)
    assert table(with_judge).equals(table(plain))
    assert headline(with_judge)["r"]["P@3"].startswith("0.417")  # 5/12
    assert not scope_lines(with_judge)
    for page in ("pages/queries.py", "pages/compare.py", "pages/failures.py"):
        shown, bare = with_judge.switch_page(page).run(), plain.switch_page(page).run()
        no_exception(shown)
        frames = [d.value for d in shown.dataframe]
        assert len(frames) == len(bare.dataframe)
        for mine, theirs in zip(frames, (d.value for d in bare.dataframe), strict=True):
            assert mine.equals(theirs), page


def test_counted_every_mean_follows_the_counting_policy_and_says_so(tmp_path, monkeypatch):
    folder = counting_folder(tmp_path / "ws", judge_in_file=True)
    at = app(folder, monkeypatch)
    at.selectbox(key="side_judge").select(JUDGE).run()
    no_exception(at)
    assert at.query_params["judge"] == JUDGE  # the URL carries it
    assert headline(at)["r"]["P@3"].startswith("0.750")  # 3/4
    assert any("judge grades counted (judge:always)" in line for line in scope_lines(at))
    # the prediction-powered interval beside each mean: the core's figures
    ws = Workspace.open(folder)
    expected = count_judge(ws, ["P@3"], JUDGE).intervals.iloc[0]
    ppi = table(at, 1).set_index("run")
    low, high = f"{expected.ppi_low:.2f}", f"{expected.ppi_high:.2f}"
    assert ppi.at["r", "P@3"] == f"{expected.ppi_mean:.3f} [{low}–{high}]"
    assert expected.human_judged_queries == 2
    # the scope line on a page of measures elsewhere too
    at.switch_page("pages/queries.py").run()
    no_exception(at)
    assert any("judge grades counted (judge:always)" in line for line in scope_lines(at))


def test_a_link_opens_the_judge_counted_and_an_unknown_judge_is_shown_only(tmp_path, monkeypatch):
    folder = counting_folder(tmp_path / "ws", judge_in_file=True)
    at = app(folder, monkeypatch, params={"judge": JUDGE})
    no_exception(at)
    assert headline(at)["r"]["P@3"].startswith("0.750")
    other = app(folder, monkeypatch, params={"judge": "judge:nobody"})
    no_exception(other)
    assert headline(other)["r"]["P@3"].startswith("0.417")
    assert other.selectbox(key="side_judge").value == ""


def test_the_view_state_keeps_the_counted_judge_in_its_policy_and_url():
    state = from_params({"judge": [JUDGE]})
    assert state.judge_grades == JUDGE and state.policy().judge == JUDGE
    assert to_params(state) == {"judge": JUDGE}
    assert ViewState().policy().judge is None
    assert to_params(ViewState()) == {}


@pytest.mark.parametrize("judges", [(), ("judge:other",)])
def test_a_judge_the_workspace_lacks_is_dropped_from_the_state(judges):
    from ragrecall_core.views.dashboard_state import ViewOptions

    fitted = ViewState(judge_grades=JUDGE).fit(ViewOptions(runs=("r",), judges=judges))
    assert fitted.judge_grades == "" and fitted.policy().judge is None


def test_the_interval_table_lists_the_runs_shown_in_their_order():
    import pandas as pd

    from ragrecall_core.views.judge_marks import ppi_table

    intervals = pd.DataFrame(
        [
            {"run": r, "measure": "P@3", "ppi_mean": m, "ppi_low": m - 0.1, "ppi_high": m + 0.1}
            | {"human_judged_queries": n}
            for r, m, n in (("a", 0.5, 2), ("b", 0.25, 2), ("c", 0.75, 1))
        ]
    )
    shown = ppi_table(intervals, ["P@3", "RR@3"], ["c", "a"])
    assert shown["run"].tolist() == ["c", "a"]
    assert shown["P@3"].tolist() == ["0.750 [0.65–0.85]", "0.500 [0.40–0.60]"]
    assert shown["MRR@3"].tolist() == ["—", "—"]  # not computed: no interval shown
    assert shown["human-judged queries"].tolist() == ["1 query", "2 queries"]
