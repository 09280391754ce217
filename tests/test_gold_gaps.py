"""Gold gap candidates: what reviewers found relevant that the gold set lacks.

gold: q1 relevant [A]; q2 no answer ([]); q3 relevant [C], with X judged 0 in the gold
grades:
  anna  q1 N 2 "covers it"        -> candidate: graded relevant, missing from gold
  boris q1 N 2 (no reason)        -> the same candidate, a second annotator
  anna  q1 A 2                    -> in gold already: not a candidate
  anna  q1 H 2 harmful            -> harmful: not a candidate
  anna  q1 P 1                    -> partial: not a candidate
  anna  q2 M 2 "the FAQ answers"  -> candidate: relevant grade on a no-answer query
  anna  q3 X 2 "gold says 0"      -> candidate: gold judged it 0, a reviewer says 2
  boris q3 Y 2 (no reason)        -> candidate with no reason at all
"""

from __future__ import annotations

import hashlib
import json

import pytest
from fixtures_regressions import write_jsonl

from ragrecall_core import Workspace
from ragrecall_core.analysis.gold_gaps import gold_gaps, write_proposal
from ragrecall_core.inputs.store import attach_store, submit

GOLD = [
    {"id": "q1", "query": "cancel an order", "relevant_ids": ["A"]},
    {"id": "q2", "query": "weather on Mars", "relevant_ids": []},
    {"id": "q3", "query": "refund time", "relevant_ids": ["C"], "grades": {"C": 2, "X": 0}},
]
MISSING = "graded relevant, missing from gold"
NO_ANSWER = "relevant grade on a no-answer query"


def g(qid, chunk, grade, annotator="anna", harmful=False, reason=""):
    return {
        "query_id": qid,
        "chunk_id": chunk,
        "grade": grade,
        "harmful": harmful,
        "reason": reason,
        "annotator": annotator,
    }


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "ws"
    write_jsonl(root / "gold.jsonl", GOLD)
    write_jsonl(
        root / "runs" / "r.jsonl",
        [
            {"id": q, "retrieved": [{"chunk_id": "A", "rank": 1, "score": 1.0}]}
            for q in ("q1", "q2", "q3")
        ],
    )
    write_jsonl(
        root / "grades" / "anna.jsonl",
        [
            g("q1", "N", 2, reason="covers it"),
            g("q1", "A", 2),
            g("q1", "H", 2, harmful=True, reason="outdated"),
            g("q1", "P", 1),
            g("q2", "M", 2, reason="the FAQ answers"),
            g("q3", "X", 2, reason="gold says 0"),
        ],
    )
    write_jsonl(
        root / "grades" / "boris.jsonl", [g("q1", "N", 2, "boris"), g("q3", "Y", 2, "boris")]
    )
    return root


@pytest.fixture
def gaps(folder):
    return gold_gaps(Workspace.open(folder))


def test_candidates_and_their_kinds(gaps):
    assert gaps[["query_id", "chunk_id", "kind"]].values.tolist() == [
        ["q1", "N", MISSING],
        ["q3", "X", MISSING],
        ["q3", "Y", MISSING],
        ["q2", "M", NO_ANSWER],
    ]


def test_harmful_partial_and_gold_chunks_are_not_candidates(gaps):
    assert {"A", "H", "P"}.isdisjoint(set(gaps.chunk_id))


def test_evidence_names_annotators_and_reasons(gaps):
    n = gaps[gaps.chunk_id == "N"].iloc[0]
    assert list(n.annotators) == ["anna", "boris"]
    assert n.reasons == "covers it"
    assert n.query == "cancel an order"


def test_write_proposal_jsonl(gaps, tmp_path):
    out = tmp_path / "proposal.jsonl"
    assert write_proposal(gaps, out) == 3  # one line per query

    def strict(text):  # NaN / Infinity are not JSON
        raise ValueError(f"not JSON: {text}")

    records = [json.loads(line, parse_constant=strict) for line in out.read_text().splitlines()]
    assert records == [
        {
            "id": "q1",
            "add_relevant_ids": ["N"],
            "kind": [MISSING],
            "evidence": {"N": {"annotators": ["anna", "boris"], "reasons": "covers it"}},
        },
        {
            "id": "q2",
            "add_relevant_ids": ["M"],
            "kind": [NO_ANSWER],
            "evidence": {"M": {"annotators": ["anna"], "reasons": "the FAQ answers"}},
        },
        {
            "id": "q3",
            "add_relevant_ids": ["X", "Y"],
            "kind": [MISSING],
            "evidence": {
                "X": {"annotators": ["anna"], "reasons": "gold says 0"},
                "Y": {"annotators": ["boris"], "reasons": ""},
            },
        },
    ]


def test_the_gold_file_is_never_rewritten(folder, tmp_path):
    gold = folder / "gold.jsonl"
    before = hashlib.sha256(gold.read_bytes()).hexdigest()
    ws = Workspace.open(folder)
    write_proposal(gold_gaps(ws), tmp_path / "proposal.jsonl")
    assert hashlib.sha256(gold.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in folder.iterdir()) == ["gold.jsonl", "grades", "runs"]


def test_a_stored_judgment_becomes_a_candidate(folder):
    ws = Workspace.open(folder)
    attach_store(ws)
    submit(ws, "q1", "S", 2, "cleo", reason="judged on the page")
    submit(ws, "q1", "N", 0, "boris")  # boris changes his mind: anna still says 2
    gaps = gold_gaps(ws)
    s = gaps[gaps.chunk_id == "S"].iloc[0]
    assert (s.kind, list(s.annotators), s.reasons) == (MISSING, ["cleo"], "judged on the page")
    assert list(gaps[gaps.chunk_id == "N"].iloc[0].annotators) == ["anna"]
    ws.con.close()


def test_no_grades_no_candidates(tmp_path):
    write_jsonl(tmp_path / "gold.jsonl", GOLD)
    write_jsonl(
        tmp_path / "runs" / "r.jsonl",
        [{"id": "q1", "retrieved": [{"chunk_id": "A", "rank": 1, "score": 1.0}]}],
    )
    gaps = gold_gaps(Workspace.open(tmp_path))
    assert gaps.empty
    out = tmp_path / "proposal.jsonl"
    assert write_proposal(gaps, out) == 0
    assert out.read_text() == ""


def test_a_relevant_grade_keeps_a_no_answer_query_where_the_gold_put_it(folder):
    """anna graded M relevant on the no-answer query q2: q2 stays outside the means and in
    the no-answer lists until the gold changes; the grade is listed as a gold gap."""
    from ragrecall_core import evaluate
    from ragrecall_core.analysis.no_answer import no_answer_report

    ws = Workspace.open(folder)
    ev = evaluate(ws, ["Recall@5", "Harm@5"])
    recall = ev.per_query[ev.per_query.measure == "Recall@5"]
    assert "q2" not in set(recall.query_id)  # outside the Recall mean
    assert ev.no_answer["r"]["queries"] == 1
    report = no_answer_report(ws, k=5)
    kinds = report.top_scores.set_index("query_id")["kind"]
    assert kinds["q2"] == "no answer"
    gaps = gold_gaps(ws)
    assert NO_ANSWER in set(gaps.loc[gaps.query_id == "q2", "kind"])
