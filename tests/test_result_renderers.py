"""Every result object renders itself: ``to_dict`` (JSON-ready), ``to_frame`` and text."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ragrecall_core import Workspace, evaluate
from ragrecall_core.analysis.agreement import agreement
from ragrecall_core.analysis.compare import compare
from ragrecall_core.analysis.gate import check_gate
from ragrecall_core.analysis.no_answer import no_answer_report
from ragrecall_core.output.text import json_text
from tests.samples import shared_samples

SAMPLES = shared_samples()


@pytest.fixture(scope="module")
def ws():
    return Workspace.open(SAMPLES)


def results(ws):
    return {
        "evaluation": evaluate(ws, ["Recall@5", "MRR@5"]),
        "comparison": compare(ws, "bm25", "dense-minilm", k=5),
        "gate": check_gate(
            ws, "dense-minilm", ["Recall@5>=0.5"], baseline="bm25", max_regressions=100
        ),
        "no-answer": no_answer_report(ws, k=5),
        "agreement": agreement(ws),
    }


def test_every_result_renders_as_dict_frame_and_text(ws):
    for name, result in results(ws).items():
        data = json.loads(json_text(result.to_dict()))
        assert isinstance(data, dict) and data, name
        frame = result.to_frame()
        assert isinstance(frame, pd.DataFrame) and not frame.empty, name
        text = result.to_text()
        assert isinstance(text, str) and text.strip(), name


def test_the_gate_frame_lists_requirements_then_regressions(ws):
    gate = results(ws)["gate"]
    frame = gate.to_frame()
    assert frame["requirement"].iloc[0] == "Recall@5>=0.5"
    assert list(frame.loc[frame.requirement == "no regression", "value"]) == gate.regressions
