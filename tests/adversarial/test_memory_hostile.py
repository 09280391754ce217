"""Attack: gold and runs handed over in memory (issue 26 item 3, issue 28 "Peers' code").

A value in memory is what the object holds, or it is refused with an ``InputError`` naming
``gold`` / ``run 'NAME'``, the query and the value: never converted to text behind the
caller's back (a float id 1.0 read as "1.0"), never a traceback from the loader, whatever
the object (a corpus of hostile objects at the end). The peers' shapes (ranx, ir_measures:
frames under their column names, a list of ranx ``Run`` objects, negative TREC grades in a
qrels object) load as the same data from a file does.
"""

from __future__ import annotations

import math
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ragrecall
from ragrecall_core import InputError, Workspace
from tests.peer_shapes import Qrel, Qrels, Run, ScoredDoc

GOLD = {"q1": ["a", "b"], "q2": ["c"]}
RUN = {"q1": ["a", "x"], "q2": ["c"]}


def problems_of(gold, runs, **kwargs) -> list:
    with pytest.raises(InputError) as caught:
        Workspace.from_memory(gold, runs, **kwargs)
    return caught.value.problems


def shown(problems) -> list[tuple]:
    return [(p.file, p.value, p.expected) for p in problems]


def objects(values) -> pd.Series:
    return pd.Series(values, dtype=object)


def frame_run(chunk_ids, **columns) -> pd.DataFrame:
    n = len(chunk_ids)
    return pd.DataFrame(
        {"query_id": ["q1"] * n, "chunk_id": chunk_ids, "rank": range(1, n + 1), **columns}
    )


# ------------------------------------------------------------------ ids are str, never cast
@pytest.mark.parametrize(
    ("ids", "shown_value"),
    [
        ([1.0], "1.0"),
        ([True], "True"),
        ([pd.Timestamp("2024-01-05")], "Timestamp('2024-01-05 00:00:00')"),
        (objects(["a", 1]), "1"),
        (objects([b"a"]), "b'a'"),
        (np.array([7], dtype=np.int64), "7"),
    ],
)
def test_a_frame_id_that_is_not_a_str_is_refused_naming_run_query_and_value(ids, shown_value):
    """The float id 1.0 was read as "1.0" (Recall 0 against gold "1"); bool, timestamp and
    mixed-object ids were cast to text."""
    problems = problems_of({"q1": ["1"]}, frame_run(ids), name="r")
    assert problems, "refused"
    assert all(p.file == "run 'r'" and p.line is None for p in problems)
    assert any("query 'q1'" in p.value and shown_value in p.value for p in problems), shown(
        problems
    )
    assert any("str" in p.expected for p in problems)


def test_a_gold_frame_id_that_is_not_a_str_is_refused():
    gold = pd.DataFrame({"query_id": ["q1", "q2"], "chunk_id": [1.0, 2.0]})
    problems = problems_of(gold, RUN, name="r")
    assert [(p.file, p.value) for p in problems] == [
        ("gold", "query 'q1': chunk_id 1.0 (float)"),
        ("gold", "query 'q2': chunk_id 2.0 (float)"),
    ]


def test_a_frame_with_query_id_and_QUERY_ID_is_refused():
    gold = pd.DataFrame({"query_id": ["q1"], "QUERY_ID": ["q2"], "chunk_id": ["a"]})
    problems = problems_of(gold, RUN, name="r")
    assert shown(problems) == [
        ("gold", "QUERY_ID", "each column named once (column 1 has this name)")
    ]


def test_an_ir_measures_qrel_with_relevance_none_is_refused():
    """It counted as relevant (a missing grade in a frame is 1)."""
    qrels = [Qrel("q1", "a", 1, "0"), Qrel("q1", "b", None, "0")]
    problems = problems_of(qrels, RUN, name="r")
    assert [(p.file, p.value) for p in problems] == [("gold", "query 'q1': 'b': None")]


@pytest.mark.parametrize("grade", [True, 1.5, "1", Decimal(1), math.nan])
def test_a_qrels_grade_must_be_a_whole_number(grade):
    problems = problems_of({"q1": {"a": 1, "b": grade}}, RUN, name="r")
    assert [p.file for p in problems] == ["gold"]
    assert "query 'q1'" in problems[0].value and "'b'" in problems[0].value


# ------------------------------------------------------------------ no traceback
def test_a_tuple_key_in_grades_is_an_input_error():
    """It ended in json's TypeError."""
    problems = problems_of({"q1": {("a",): 1}}, RUN, name="r")
    assert shown(problems) == [("gold", "query 'q1': key ('a',)", "chunk ids that are strings")]


def test_a_tuple_key_in_a_records_map_is_an_input_error():
    records = [{"id": "q1", "query": "x", "relevant_ids": ["a"], "grades": {("a",): 1}}]
    problems = problems_of(records, RUN, name="r")
    assert [(p.file, p.value) for p in problems] == [("gold", "query 'q1': key ('a',)")]


@pytest.mark.parametrize(
    "where",
    ["gold dict", "gold graded", "gold records", "gold frame", "run dict", "run scored", "frame"],
)
def test_a_lone_surrogate_in_an_id_is_an_input_error(where):
    """DuckDB's ConversionException / InvalidInputException reached the caller."""
    bad = "a\ud800"
    gold, run = dict(GOLD), dict(RUN)
    if where == "gold dict":
        gold["q1"] = [bad]
    elif where == "gold graded":
        gold = {"q1": {bad: 1}}
    elif where == "gold records":
        gold = [{"id": "q1", "query": "x", "relevant_ids": [bad]}]
    elif where == "gold frame":
        gold = pd.DataFrame({"query_id": objects(["q1"]), "chunk_id": objects([bad])})
    elif where == "run dict":
        run["q1"] = [bad]
    elif where == "run scored":
        run = {"q1": {bad: 1.0}}
    else:
        run = frame_run(objects([bad]))
    problems = problems_of(gold, run, name="r")
    assert len(problems) == 1
    assert "query 'q1'" in problems[0].value and "\\ud800" in problems[0].value
    assert "surrogate" in problems[0].expected


def deep_list(depth: int) -> list:
    top = inner = []
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return top


@pytest.mark.parametrize("where", ["gold dict", "run dict", "run records"])
def test_nesting_ten_to_the_fifth_deep_is_an_input_error(where):
    """RecursionError reached the caller."""
    deep = deep_list(100_000)
    gold, run = dict(GOLD), dict(RUN)
    if where == "gold dict":
        gold["q1"] = deep
    elif where == "run dict":
        run["q1"] = deep
    else:
        run = [{"id": "q1", "retrieved": deep}]
    problems = problems_of(gold, run, name="r")
    assert any("query 'q1'" in p.value or '"q1" retrieved[1]' in p.value for p in problems)


def test_deep_metadata_in_a_seed_record_loads_as_the_same_line_in_a_file(tmp_path):
    """A JSON line nested 10^5 deep in a field ragrecall does not read loads from a file;
    the same record in memory loads too."""
    record = {"id": "q1", "query": "x", "relevant_ids": ["a"], "meta": deep_list(100_000)}
    workspace = Workspace.from_memory([record], {"r": RUN})
    assert workspace.con.execute("SELECT query_id FROM queries").fetchall() == [("q1",)]


def test_a_dict_inside_a_scored_doc_list_is_an_input_error():
    """AttributeError: 'dict' object has no attribute 'query_id'."""
    run = [ScoredDoc("q1", "a", 1.0), {"query_id": "q1", "doc_id": "b", "score": 0.5}]
    problems = problems_of(GOLD, run, name="r")
    assert [p.file for p in problems] == ["run 'r'"]
    assert "item 2" in problems[0].value


# ------------------------------------------------------------------ peers' shapes
RANKED = {"q1": [("x", 3.0), ("b", 2.0), ("a", 2.0)], "q2": [("c", 1.0)]}


def peer_frame(names: tuple[str, str, str]) -> pd.DataFrame:
    rows = [(q, c, s) for q, ranked in RANKED.items() for c, s in ranked]
    return pd.DataFrame(rows, columns=list(names))


def loaded_run(workspace) -> list[tuple]:
    return workspace.con.execute(
        "SELECT query_id, chunk_id, rank, score FROM runs ORDER BY query_id, rank"
    ).fetchall()


TREC_ORDER = [("q1", "x", 1, 3.0), ("q1", "b", 2, 2.0), ("q1", "a", 3, 2.0), ("q2", "c", 1, 1.0)]


@pytest.mark.parametrize("names", [("q_id", "doc_id", "score"), ("query_id", "doc_id", "score")])
def test_a_run_frame_under_a_peers_column_names_ranks_by_score_as_trec_eval(names):
    """ranx's and ir_measures' run frames have no rank: score descending, ties by id
    descending (b before a), as a TREC run file and a {qid: {id: score}} dict."""
    workspace = Workspace.from_memory(GOLD, peer_frame(names), name="r")
    assert loaded_run(workspace) == TREC_ORDER
    as_dict = {q: dict(ranked) for q, ranked in RANKED.items()}
    assert loaded_run(Workspace.from_memory(GOLD, as_dict, name="r")) == TREC_ORDER


def test_a_rankless_frame_without_a_score_is_refused():
    frame = pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "score": [math.nan]})
    problems = problems_of(GOLD, frame, name="r")
    assert [p.file for p in problems] == ["run 'r'"] and "query 'q1'" in problems[0].value


def test_a_gold_frame_under_ir_measures_names_keeps_its_relevance(tmp_path):
    """``query_id, doc_id, relevance``: relevance 0 is judged not relevant, as in a file."""
    frame = pd.DataFrame(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [2, 0, 1]}
    )
    workspace = Workspace.from_memory(frame, RUN, name="r")
    assert workspace.con.execute(
        "SELECT * EXCLUDE (rationale) FROM qrels ORDER BY ALL"
    ).fetchall() == [
        ("q1", "a", 2),
        ("q1", "b", 0),
        ("q2", "c", 1),
    ]


def test_a_list_of_ranx_runs_is_named_by_each_runs_name():
    """``ranx.compare(qrels, runs=[run_a, run_b])`` style; it was one run named 'run'."""
    runs = [Run({"q1": {"a": 1.0}}, "bm25"), Run({"q1": {"x": 1.0}}, "dense")]
    evaluation = ragrecall.evaluate(GOLD, ["Recall@1"], runs=runs)
    assert evaluation.runs == ["bm25", "dense"]
    assert evaluation.value("bm25", "Recall@1") == 0.25  # q1 half, q2 missing


def test_a_list_of_ranx_runs_with_a_repeated_or_missing_name_is_refused():
    runs = [Run({"q1": {"a": 1.0}}, "bm25"), Run({"q1": {"x": 1.0}}, "bm25"), Run({}, None)]
    problems = problems_of(GOLD, runs)
    assert [p.value for p in problems] == ["run 2 of 3: 'bm25'", "run 3 of 3: None"]


def trec_qrels(path: Path, rows) -> Path:
    path.write_text("".join(f"{q} 0 {c} {g}\n" for q, c, g in rows))
    return path


NEGATIVE = [("q1", "a", 2), ("q1", "b", -1), ("q2", "c", 1), ("q2", "d", -2)]


def loaded_gold(workspace) -> tuple[list, list]:
    cursor = workspace.con
    queries = cursor.execute("SELECT query_id FROM queries ORDER BY line").fetchall()
    qrels = cursor.execute("SELECT query_id, chunk_id, grade FROM qrels ORDER BY ALL").fetchall()
    return queries, qrels


@pytest.mark.parametrize("shape", ["dict", "ranx", "ir_measures"])
def test_negative_grades_in_a_qrels_object_load_as_from_a_trec_qrels_file(tmp_path, shape):
    """ranx and ir_measures read them from TREC qrels files the CLI accepts (judged, not
    relevant); in memory they were refused."""
    by_query: dict = {}
    for q, c, g in NEGATIVE:
        by_query.setdefault(q, {})[c] = g
    qrels = {
        "dict": by_query,
        "ranx": Qrels(by_query),
        "ir_measures": [Qrel(q, c, g, "0") for q, c, g in NEGATIVE],
    }[shape]
    from_file = Workspace.from_files(trec_qrels(tmp_path / "qrels.txt", NEGATIVE), [])
    assert loaded_gold(Workspace.from_memory(qrels, RUN, name="r")) == loaded_gold(from_file)
