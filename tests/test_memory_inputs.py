"""Gold and runs in memory score exactly as the same data in files, and are checked alike."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ragrecall_core import InputError, Workspace, evaluate
from ragrecall_core.analysis.compare import compare
from ragrecall_core.analysis.gate import check_gate
from ragrecall_core.inputs.memory import ID_TYPE
from tests.peer_shapes import Qrel, Qrels, Run, ScoredDoc

MEASURES = ["Recall@2", "MRR@5", "nDCG@3", "P@2", "Hit@1"]

GOLD = {"q1": ["a", "b"], "q2": ["c"], "q3": ["d"], "q4": []}
GRADED = {"q1": {"a": 2, "b": 1}, "q2": {"c": 2, "z": 0}, "q3": {"d": 1}}
SCORES = {
    "q1": {"x": 3.0, "a": 2.5, "b": 0.1},
    "q2": {"c": 1.0, "y": 1.0},  # a tie: by id descending, as trec_eval, so y first
    "q3": {"e": 0.2},
}
LISTS = {"q1": ["b", "x"], "q2": ["c"], "q3": []}


def seed_gold(path: Path, gold: dict) -> Path:
    """``gold`` as seed JSON lines (graded maps as ``grades``)."""
    lines = []
    for qid, labels in gold.items():
        record = {"id": qid, "query": f"text of {qid}", "relevant_ids": []}
        if isinstance(labels, dict):
            record["relevant_ids"] = [c for c, g in labels.items() if g > 0]
            record["grades"] = labels
        else:
            record["relevant_ids"] = labels
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    return path


def trec_run(path: Path, scores: dict) -> Path:
    lines = [
        f"{qid} Q0 {cid} 1 {score} tag"
        for qid, ranked in scores.items()
        for cid, score in ranked.items()
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def seed_run(path: Path, lists: dict) -> Path:
    records = [
        {"id": q, "retrieved": [{"chunk_id": c, "rank": i} for i, c in enumerate(ids, 1)]}
        for q, ids in lists.items()
    ]
    path.write_text("\n".join(map(json.dumps, records)) + "\n")
    return path


def per_query(evaluation) -> list[tuple]:
    frame = evaluation.to_frame().fillna(-1.0)
    return sorted(frame.itertuples(index=False, name=None))


def test_dicts_score_as_the_same_data_in_files(tmp_path):
    """{qid: [ids]} gold, {qid: {id: score}} (trec_eval order) and {qid: [ids]} runs."""
    files = Workspace.from_files(
        seed_gold(tmp_path / "gold.jsonl", GOLD),
        [trec_run(tmp_path / "scored.trec", SCORES), seed_run(tmp_path / "listed.jsonl", LISTS)],
    )
    memory = evaluate(GOLD, MEASURES, runs={"scored": SCORES, "listed": LISTS})
    assert per_query(memory) == per_query(evaluate(files, MEASURES))
    assert memory.value("scored", "Hit@1") == 0.0  # x, then y before c in the tie
    assert memory.value("listed", "Hit@1") == pytest.approx(2 / 3)


def test_graded_dict_gold_keeps_grades_and_judged_zero(tmp_path):
    files = Workspace.from_files(
        seed_gold(tmp_path / "gold.jsonl", GRADED), [trec_run(tmp_path / "scored.trec", SCORES)]
    )
    memory = evaluate(GRADED, MEASURES + ["Judged@2"], runs=SCORES, name="scored")
    assert per_query(memory) == per_query(evaluate(files, MEASURES + ["Judged@2"]))
    assert memory.value("scored", "Judged@2") == pytest.approx((0.5 + 0.5 + 0) / 3)  # x a, y c, e


def test_frames_and_records_score_as_files(tmp_path):
    gold_path = seed_gold(tmp_path / "gold.jsonl", GOLD)
    run_path = seed_run(tmp_path / "listed.jsonl", LISTS)
    gold_frame = pd.DataFrame(
        [(q, c) for q, ids in GOLD.items() for c in ids or [""]], columns=["query_id", "chunk_id"]
    )
    run_frame = pd.DataFrame(
        [(q, c, i) for q, ids in LISTS.items() for i, c in enumerate(ids, 1)],
        columns=["query_id", "chunk_id", "rank"],
    )
    records = [json.loads(line) for line in gold_path.read_text().splitlines()]
    run_records = [json.loads(line) for line in run_path.read_text().splitlines()]
    expected = per_query(evaluate(Workspace.from_files(gold_path, [run_path]), MEASURES))
    assert per_query(evaluate(gold_frame, MEASURES, runs={"listed": run_frame})) == expected
    assert per_query(evaluate(records, MEASURES, runs={"listed": run_records})) == expected
    mixed = evaluate(str(gold_path), MEASURES, runs={"listed": run_frame})  # a file and a frame
    assert per_query(mixed) == expected


def test_ranx_and_ir_measures_shapes_are_recognised(tmp_path):
    expected = per_query(evaluate(GRADED, MEASURES, runs={"bm25": SCORES}))
    ranx = evaluate(Qrels(GRADED), MEASURES, runs=Run(SCORES, "bm25"))
    assert ranx.runs == ["bm25"]
    assert per_query(ranx) == expected
    qrels = [Qrel(q, c, g, "0") for q, labels in GRADED.items() for c, g in labels.items()]
    run = [ScoredDoc(q, c, s) for q, ranked in SCORES.items() for c, s in ranked.items()]
    assert per_query(evaluate(iter(qrels), MEASURES, runs=iter(run), name="bm25")) == expected


def problems_of(gold, runs, **kwargs) -> list:
    with pytest.raises(InputError) as caught:
        Workspace.from_memory(gold, runs, **kwargs)
    return caught.value.problems


def test_bad_values_are_refused_all_at_once_naming_run_and_query():
    problems = problems_of(
        {"q1": ["a", 5], "q2": {7: 1}},
        {
            "bm25": {"q1": {"a": float("nan"), "b": "0.5"}},
            "dense": {"q1": ["a", "a"], 3: ["b"]},
        },
    )
    shown = [(p.file, p.line, p.value, p.expected) for p in problems]
    assert all(line is None for _, line, _, _ in shown)
    assert ("gold", None, "query 'q2': key 7", "chunk ids that are strings") in shown
    assert ("gold", None, "query 'q1': 5", ID_TYPE) in shown  # never read as "5"
    bm25 = [v for f, _, v, e in shown if f == "run 'bm25'" and "finite" in e]
    assert bm25 == ['"q1" retrieved[1]: "score": "nan"', '"q1" retrieved[2]: "score": "0.5"']
    dense = {(v, e) for f, _, v, e in shown if f == "run 'dense'"}
    assert ("""query '3': "id": 3""", '"id" to be a string') in dense
    assert any('"q1" retrieved[2]' in v and "earlier position" in e for v, e in dense)


def test_frame_problems_name_the_query_not_a_row():
    frame = pd.DataFrame(
        {"query_id": ["q1", "q1", "q2"], "chunk_id": ["a", "a", "c"], "rank": [1, 2, 1.5]}
    )
    problems = problems_of(GOLD, frame, name="frame")
    assert [(p.file, p.line) for p in problems] == [("run 'frame'", None)] * 2
    assert "query 'q2': rank 1.5" in [p.value for p in problems]
    missing = problems_of(pd.DataFrame({"query_id": ["q1"]}), {"r": LISTS})
    assert [p.expected for p in missing] == [
        "a column named 'chunk_id' (or docid, docno, doc_id, pid; names read ignoring ASCII case)"
    ]


def test_what_is_no_gold_or_run_at_all_is_refused_by_name():
    problems = problems_of(42, {"r": "not a file.jsonl"})
    assert problems[0].file == "gold" and problems[0].value == "int"
    assert problems[1].file == "not a file.jsonl"


def test_repr_html_is_a_table_with_run_names_escaped():
    evaluation = evaluate(GOLD, ["Recall@2"], runs={"<script>alert(1)</script>": LISTS})
    html = evaluation._repr_html_()
    assert "<table" in html and "<script>" not in html
    assert "&lt;script&gt;" in html and "Recall@2" in html
    assert list(evaluation.table().columns) == ["Recall@2"]


def test_compare_and_gate_work_on_an_in_memory_workspace():
    workspace = Workspace.from_memory(GOLD, {"old": LISTS, "new": SCORES})
    comparison = compare(workspace, "old", "new", k=1)
    regressed = list(comparison.regressions.query_id)
    assert "q2" in regressed  # old: c first; new: y before c (the tie, by id descending)
    gate = check_gate(workspace, "new", ["Recall@1>=0.9"], baseline="old", k=1)
    assert not gate.passed and gate.regressions == regressed
    assert [role for role, _ in workspace.input_files()] == []


def test_a_run_name_must_be_a_non_empty_string():
    """An integer name would be stored as its digits; an empty one names nothing."""
    problems = problems_of(GOLD, {5: LISTS, " ": LISTS, "ok": LISTS})
    assert [(p.file, p.value) for p in problems] == [("run 5", "5"), ("run ' '", "' '")]


def test_a_seed_record_map_keyed_by_a_non_string_is_refused():
    """JSON would turn the key 5 into "5" silently."""
    records = [{"id": "q1", "query": "x", "relevant_ids": ["a"], "grades": {"a": 2, 5: 0}}]
    problems = problems_of(records, {"r": LISTS})
    assert [(p.file, p.value) for p in problems] == [("gold", "query 'q1': key 5")]


def test_a_repeated_rank_in_records_is_refused_like_in_a_file():
    """The typed path of seed-style records catches a repeated rank in its own sort."""
    run = [
        {
            "query_id": "q1",
            "retrieved": [
                {"chunk_id": "a", "rank": 1, "score": 2.0},
                {"chunk_id": "b", "rank": 1, "score": 1.0},
            ],
        }
    ]
    shown = [(p.file, p.value, p.expected) for p in problems_of({"q1": ["a"]}, {"r": run})]
    assert any(f == "run 'r'" and "rank" in (v + e) for f, v, e in shown), shown
