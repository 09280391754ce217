"""``ragrecall judge`` (issue 32): a model judge grades the blind pool, stored as
``judge:NAME`` beside the humans' grades, never among them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.judging_assist import grade_pool, read_verdict
from ragrecall_core.analysis.pooling import build_pool
from ragrecall_core.errors import InputError
from ragrecall_core.inputs import store
from ragrecall_core.scoring.evaluate import evaluate
from tests.helpers import write_jsonl, write_text
from tests.test_capture import run_cli_in

CHUNKS = "ABCDE"


def assist_workspace(folder: Path, human: list[dict] | None = None) -> Path:
    """Two queries, two runs of 3 over chunks A-E; A relevant to q1 in the gold set; anna
    graded (q1, B) by hand."""
    write_jsonl(
        folder / "gold.jsonl",
        [
            {"id": "q1", "query": "what is alpha", "relevant_ids": ["A"]},
            {"id": "q2", "query": "what is beta", "relevant_ids": ["C"]},
        ],
    )
    for name, order in {"old": "ABC", "new": "DBE"}.items():
        rows = [
            {"id": q, "retrieved": [{"chunk_id": c, "rank": i + 1} for i, c in enumerate(order)]}
            for q in ("q1", "q2")
        ]
        write_jsonl(folder / "runs" / f"{name}.jsonl", rows)
    write_jsonl(folder / "corpus.jsonl", [{"chunk_id": c, "text": f"text {c}"} for c in CHUNKS])
    human = (
        human
        if human is not None
        else [{"query_id": "q1", "chunk_id": "B", "grade": 0, "annotator": "anna"}]
    )
    write_jsonl(folder / "grades" / "anna.jsonl", human)
    return folder


def by_letter(query: str, chunk: str) -> dict:
    """A judge: D and E relevant (2), the rest not; a reason naming the chunk."""
    return {"grade": 2 if chunk[-1] in "DE" else 0, "reason": f"saw {chunk}"}


def test_the_judge_grades_the_unjudged_pool_and_its_grades_stay_apart(tmp_path):
    folder = assist_workspace(tmp_path)
    ws = Workspace.open(folder)
    before = evaluate(ws, ["P@3", "Judged@3"]).aggregate.copy()
    result = grade_pool(ws, by_letter, name="letters")
    # the pool: 5 chunks x 2 queries, minus gold (q1 A, q2 C) and anna's (q1 B) = 7
    assert (result.pool, result.graded, result.errors) == (7, 7, {})
    grades = store.judge_grades(ws)
    assert set(grades.annotator) == {"judge:letters"}
    assert len(grades) == 7 and ("q1", "B") not in set(
        zip(grades.query_id, grades.chunk_id, strict=True)
    )
    assert grades.set_index(["query_id", "chunk_id"]).grade[("q2", "D")] == 2
    # not one of the humans' grades: evaluation, the humans' pool and export are unchanged
    ws = Workspace.open(folder)
    after = evaluate(ws, ["P@3", "Judged@3"]).aggregate
    assert after.value.tolist() == before.value.tolist()
    assert len(build_pool(ws, depth=10)) == 7
    assert set(store.export_grades(ws).annotator) == {"anna"}


def test_a_second_grading_resumes_and_include_judged_grades_the_whole_pool(tmp_path):
    ws = Workspace.open(assist_workspace(tmp_path))
    calls: list[tuple[str, str]] = []

    def counting(query, chunk):
        calls.append((query, chunk))
        return 1

    grade_pool(ws, counting, name="c")
    assert len(calls) == 7
    again = grade_pool(ws, counting, name="c")
    assert (again.graded_before, again.graded, len(calls)) == (7, 0, 7)
    whole = grade_pool(ws, counting, name="c", include_judged=True)
    assert (whole.pool, whole.graded) == (10, 3)  # the gold and anna's pairs now
    assert len(store.judge_grades(ws, "judge:c")) == 10


def test_the_config_and_version_are_stored_redacted(tmp_path):
    ws = Workspace.open(assist_workspace(tmp_path))
    secret = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    grade_pool(ws, by_letter, name="cfg", config={"api_key": secret, "model": "m1"})
    runs = store.judge_runs(ws)
    assert runs.annotator.tolist() == ["judge:cfg"]
    config = json.loads(runs.config.iloc[0])
    assert config["model"] == "m1" and config["depth"] == 10
    assert secret not in runs.config.iloc[0]
    # each grade points at the run that made it
    rows = store.stored_judgments(ws, "judge:cfg")
    assert set(rows.judge_run) == {runs.id.iloc[0]}


@pytest.mark.parametrize("name", ["judge:anna", " judge:x", "judge:"])
def test_a_human_name_never_starts_with_judge(tmp_path, name):
    ws = Workspace.open(assist_workspace(tmp_path))
    with pytest.raises(InputError) as error:
        store.submit(ws, "q1", "D", 2, name)
    assert "kept for model judges" in str(error.value)
    with pytest.raises(InputError):
        store.resolve(ws, "q1", "D", 2, name)


def test_a_judge_name_must_carry_the_prefix(tmp_path):
    ws = Workspace.open(assist_workspace(tmp_path))
    with pytest.raises(InputError):
        store.submit_judge_grade(ws, "q1", "D", 2, "anna", judge_run=1)


@pytest.mark.parametrize(
    ("answer", "grade", "harmful", "reason"),
    [
        (2, 2, False, ""),
        ({"grade": 1, "harmful": True, "reason": "old\npolicy"}, 1, True, "old policy"),
        ((0, False, "no"), 0, False, "no"),
        ([1], 1, False, ""),
    ],
)
def test_the_shapes_a_judge_may_return(answer, grade, harmful, reason):
    verdict = read_verdict(answer)
    assert (verdict.grade, verdict.harmful, verdict.reason) == (grade, harmful, reason)


def test_the_command_grades_and_prints_a_summary(tmp_path):
    folder = assist_workspace(tmp_path / "ws")
    write_text(
        tmp_path / "ws_judge.py",
        "def grade(query, chunk):\n    return 2 if chunk.endswith('D') else 0\n",
    )
    code, out, err = run_cli_in(tmp_path, ["judge", folder, "--judge", "ws_judge:grade"])
    assert (code, err) == (0, ""), err
    assert "judge:ws_judge:grade graded 7 pairs" in out
    assert "not counted" in out
    code, out, err = run_cli_in(
        tmp_path,
        ["judge", folder, "--judge", "ws_judge:grade", "--name", "j2", "--format", "json"],
    )
    assert code == 0 and json.loads(out)["graded"] == 7


def test_every_bad_option_is_reported_at_once(tmp_path):
    folder = assist_workspace(tmp_path / "ws")
    argv = ["judge", folder, "--judge", "nocolon", "--depth", "0", "--concurrency", "x"]
    argv += ["--timeout", "-1", "--allow-errors", "lots", "--name", "a\nb"]
    code, out, err = run_cli_in(tmp_path, argv)
    assert code == 2 and out == ""
    for option in ("--judge", "--depth", "--concurrency", "--timeout", "--allow-errors", "--name"):
        assert option in err


def test_a_workspace_without_corpus_is_refused(tmp_path):
    folder = assist_workspace(tmp_path)
    (folder / "corpus.jsonl").unlink()
    with pytest.raises(InputError) as error:
        grade_pool(Workspace.open(folder), by_letter)
    assert "corpus" in str(error.value)


def test_an_unknown_run_is_refused(tmp_path):
    with pytest.raises(InputError) as error:
        grade_pool(Workspace.open(assist_workspace(tmp_path)), by_letter, runs=["nope"])
    assert "nope" in str(error.value)


def test_a_judge_that_never_answers_cannot_hang_the_command():
    from ragrecall_core.analysis.capture_defaults import TIMEOUT
    from ragrecall_core.cli import build_parser

    args = build_parser().parse_args(["judge", "ws", "--judge", "m:f"])
    assert float(args.timeout) == TIMEOUT
