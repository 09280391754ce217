"""Issue 29's wording: counts on integer ticks, plurals, a neutral empty Agreement, the
`ui --help` text, and tables sized to their rows."""

import pandas as pd
import pytest

from ragrecall_core.views import charts


def groups(failing: list[int]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "run": "bm25",
            "group": [f"g{i}" for i in range(len(failing))],
            "failing": failing,
            "queries": [10] * len(failing),
            "rate": [f / 10 for f in failing],
        }
    )


def ticks(axis) -> list[float]:
    """The tick values plotly draws on a linear axis of ``range`` with ``tick0`` / ``dtick``."""
    low, high = axis.range
    step = axis.dtick
    return [axis.tick0 + i * step for i in range(int((high - axis.tick0) // step) + 1)]


@pytest.mark.parametrize("most", [1, 2, 3, 7, 40, 129, 4000])
def test_a_count_axis_ticks_whole_numbers(most):
    fig = charts.failure_bars(groups([most, 1]), {}, "failure class", 5)
    shown = ticks(fig.layout.xaxis)
    assert all(float(t).is_integer() for t in shown) and 2 <= len(shown) <= 11


def test_the_rank_histogram_counts_on_whole_numbers():
    hist = pd.DataFrame({"run": "bm25", "bin": ["1", "2"], "queries": [2, 1], "share": [0.6, 0.3]})
    axis = charts.first_rank_histogram(hist, {}).layout.yaxis
    assert axis.dtick == 1 and axis.tickformat == "d"


def test_ui_help_says_run_goes_with_gold_or_a_beir_folder(capsys):
    from ragrecall_core.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["ui", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "--run FILE with --gold or a BEIR folder" in shown


def captions(at) -> str:
    return " ".join(c.value.replace("\\", "") for c in at.caption)


def test_one_query_shown_is_singular(monkeypatch):
    from tests.dashboard_support import app, no_exception

    params = {"section": "facilities", "fclass": "never retrieved", "from": "failure_class"}
    at = app(monkeypatch=monkeypatch, params=params).switch_page("pages/queries.py").run()
    no_exception(at)
    assert len(at.dataframe(key="queries_table").value) == 1
    assert "1 query shown" in captions(at) and "1 queries" not in captions(at)


def test_agreement_without_two_annotators_is_neutral(tmp_path, monkeypatch):
    """No chunk graded twice: no green "No disagreement", a neutral line instead."""
    from tests.dashboard_support import app, no_exception, trec_workspace

    at = app(trec_workspace(tmp_path), monkeypatch).switch_page("pages/agreement.py").run()
    no_exception(at)
    assert not any("No disagreement" in s.value for s in at.success)
    assert any("nothing graded" in i.value.lower() for i in (*at.info, *at.caption))


def test_agreement_counts_chunks_in_words(tmp_path, monkeypatch):
    from tests.dashboard_support import app, no_exception
    from tests.test_view_state import two_disagreements

    at = app(two_disagreements(tmp_path / "ws"), monkeypatch)
    at.switch_page("pages/agreement.py").run()
    no_exception(at)
    assert "2 chunks graded differently" in captions(at)
    assert "(s)" not in captions(at)
