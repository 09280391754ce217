"""AppTest (issue 32): the Agreement page's "Model judges vs humans" section shows each judge
against each annotator and the humans' resolved grades, with the figures of
:func:`ragrecall_core.views.judge_calibration_view.calibration_view` (hand-checked in
tests/test_assist_calibration.py: judge:j against anna, kappa 1/4 on 6 shared chunks)."""

from __future__ import annotations

import pandas as pd
import pytest

from ragrecall_core import Workspace
from ragrecall_core.inputs import store
from ragrecall_core.views.agreement_view import JUDGE_HEADERS, JUDGE_LEGEND
from ragrecall_core.views.judge_calibration_view import NO_JUDGE, calibration_view
from tests.dashboard_support import app, no_exception, tables, unescaped_text
from tests.helpers import write_jsonl
from tests.test_assist_calibration import ANNA, BORIS, JUDGE, rows
from tests.test_assist_judge import assist_workspace

AGREEMENT = "pages/agreement.py"
SECTION = "Model judges vs humans"


def judged_folder(folder):
    """anna, boris and judge:j's grades in files; carla settles anna and boris on (q1, E)."""
    folder = assist_workspace(folder, human=rows(ANNA, "anna"))
    write_jsonl(folder / "grades" / "boris.jsonl", rows(BORIS, "boris"))
    write_jsonl(folder / "grades" / "judge.jsonl", rows(JUDGE, "judge:j"))
    ws = Workspace.open(folder)
    store.resolve(ws, "q1", "E", 1, "carla")
    ws.con.close()
    return folder


def judge_table(at):
    """The judges' static table as the reader sees it (found by its columns), its headers
    named in full again."""
    full = {short: name for name, short in JUDGE_HEADERS.items()}
    return next(t for t in tables(at) if "Kendall's tau" in t.columns).rename(columns=full)


def confusion_tables(at) -> list:
    return [t.set_index("") for t in tables(at) if "judge 0" in t.columns]


def captions(at) -> str:
    return "\n".join(c.value for c in at.caption)


def texts(at) -> str:
    parts = [*at.subheader, *at.caption, *at.warning, *at.info, *at.markdown]
    return "\n".join(unescaped_text(str(e.value)) for e in parts)


def test_the_section_shows_the_calibration_views_figures(tmp_path, monkeypatch):
    folder = judged_folder(tmp_path / "ws")
    at = app(folder, monkeypatch).switch_page(AGREEMENT).run()
    no_exception(at)
    assert SECTION in [h.value for h in at.subheader]
    shown = judge_table(at)
    ws = Workspace.open(folder)
    store.open_store(ws)
    expected = calibration_view(ws)
    assert not at.dataframe  # a static table, not a canvas grid (issue 30)
    assert list(shown.columns) == list(expected.table.columns)
    # to the four places a static table shows
    pd.testing.assert_frame_equal(
        shown, expected.table.reset_index(drop=True), check_dtype=False, atol=5e-5
    )
    assert JUDGE_LEGEND in captions(at)
    anna = shown.set_index("against").loc["anna"]
    assert anna["Cohen's kappa"] == pytest.approx(0.25) and anna["shared chunks"] == 6
    assert set(shown["against"]) == {"anna", "boris", "humans (resolved)"}
    # a 3x3 confusion table per judge and reference, titled, sent while their box is open
    assert confusion_tables(at) == []
    at.session_state["agreement_confusions_open"] = True
    at.run()
    no_exception(at)
    confusions = confusion_tables(at)
    assert len(confusions) == 3 and all(c.shape == (3, 3) for c in confusions)
    assert confusions[0].loc["grade 1", "judge 2"] == 1  # anna 1, the judge 2: once
    # rows anna's grade, columns the judge's (tests/test_assist_calibration.py, by hand)
    assert confusions[0].to_numpy().tolist() == [[1, 1, 0], [1, 0, 1], [0, 0, 2]]
    said = texts(at)
    assert "judge:j against anna" in said
    assert "only 6 shared chunks" in said  # the small-sample warning


def test_the_section_says_how_to_measure_a_judge_when_there_is_none(tmp_path, monkeypatch):
    plain = assist_workspace(tmp_path / "plain")
    at = app(plain, monkeypatch).switch_page(AGREEMENT).run()
    no_exception(at)
    assert SECTION in [h.value for h in at.subheader]
    assert NO_JUDGE in texts(at)
