"""A long-form gold file whose grade column has another tool's name (ir_measures'
``relevance``) is read with that column as the grade, as an in-memory frame is: before,
the column was ignored and a row graded 0 counted as relevant."""

import pandas as pd

import ragrecall

RUN = {"q1": ["d1"], "q2": ["d2"]}


def test_a_relevance_column_is_the_grade(tmp_path, capsys):
    gold = tmp_path / "gold.csv"
    gold.write_text("query_id,chunk_id,relevance\nq1,d1,1\nq2,d2,0\nq2,d3,1\n", encoding="utf-8")
    ev = ragrecall.evaluate(str(gold), ["Recall@5"], runs={"run": RUN})
    per_query = ev.to_frame().set_index("query_id")["value"]
    assert per_query["q2"] == 0.0  # d2 is judged not relevant; d3 is not retrieved
    assert per_query["q1"] == 1.0


def test_the_file_and_the_frame_load_the_same(tmp_path):
    rows = {"query_id": ["q1", "q2", "q2"], "chunk_id": ["d1", "d2", "d3"], "relevance": [1, 0, 2]}
    gold = tmp_path / "gold.csv"
    pd.DataFrame(rows).to_csv(gold, index=False)
    from_file = ragrecall.evaluate(str(gold), ["nDCG@5"], runs={"run": RUN}).to_frame()
    from_frame = ragrecall.evaluate(pd.DataFrame(rows), ["nDCG@5"], runs={"run": RUN}).to_frame()
    pd.testing.assert_frame_equal(from_file, from_frame)
