"""A Parquet grades or corpus file whose id column is of a type that is not text or integers
(a DOUBLE, a BOOLEAN, a TIMESTAMP, bytes) is refused, as a gold or run file is: cast to text,
the id 1.0 would be "1.0", and would silently stop meeting the gold's "1"."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragrecall_core import Workspace
from ragrecall_core.errors import InputError

GOLD = '{"id": "q1", "query": "x", "relevant_ids": ["1"]}\n'
RUN = '{"id": "q1", "retrieved": [{"chunk_id": "1", "rank": 1}]}\n'
BAD_IDS = {
    "double": pa.array([1.0], pa.float64()),
    "bool": pa.array([True]),
    "timestamp": pa.array([0], pa.timestamp("s")),
    "binary": pa.array([b"1"], pa.binary()),
}


def files(tmp_path):
    gold, run = tmp_path / "gold.jsonl", tmp_path / "run.jsonl"
    gold.write_text(GOLD, encoding="utf-8")
    run.write_text(RUN, encoding="utf-8")
    return gold, run


@pytest.mark.parametrize("kind", BAD_IDS)
def test_a_grades_file_with_typed_ids_is_refused(tmp_path, kind):
    gold, run = files(tmp_path)
    grades = tmp_path / "anna.parquet"
    table = {"query_id": pa.array(["q1"]), "chunk_id": BAD_IDS[kind], "grade": pa.array([2])}
    pq.write_table(pa.table(table), grades)
    with pytest.raises(InputError) as refused:
        Workspace.from_files(gold, [run], grades=[grades])
    (problem,) = refused.value.problems
    assert problem.file == str(grades) and "chunk_id" in problem.value
    assert "text or integer" in problem.expected


@pytest.mark.parametrize("kind", BAD_IDS)
def test_a_corpus_with_typed_ids_is_refused(tmp_path, kind):
    gold, run = files(tmp_path)
    corpus = tmp_path / "corpus.parquet"
    pq.write_table(pa.table({"chunk_id": BAD_IDS[kind], "text": pa.array(["t"])}), corpus)
    with pytest.raises(InputError) as refused:
        Workspace.from_files(gold, [run], corpus=corpus)
    (problem,) = refused.value.problems
    assert problem.file == str(corpus) and "chunk_id" in problem.value


def test_integer_and_text_ids_still_load(tmp_path):
    gold, run = files(tmp_path)
    grades, corpus = tmp_path / "anna.parquet", tmp_path / "corpus.parquet"
    pq.write_table(pa.table({"query_id": ["q1"], "chunk_id": [1], "grade": [2]}), grades)
    pq.write_table(pa.table({"chunk_id": pa.array([1], pa.int64()), "text": ["t"]}), corpus)
    ws = Workspace.from_files(gold, [run], grades=[grades], corpus=corpus)
    assert ws.con.execute("SELECT chunk_id, grade FROM grades").fetchall() == [("1", 2)]
    assert ws.con.execute("SELECT chunk_id FROM corpus").fetchall() == [("1",)]
