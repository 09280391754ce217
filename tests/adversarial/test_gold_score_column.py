"""A ranx-style gold frame (``q_id, doc_id, score``, what ``Qrels.from_df`` reads by
default) reads ``score`` as the grade, as ranx does, in memory and as a CSV / Parquet file
alike: before, the column was ignored and a chunk scored 0 counted as relevant."""

import pandas as pd
import pytest

import ragrecall
from ragrecall_core import InputError

RUN = {"q1": ["d1"], "q2": ["d2"]}
RANX = {"q_id": ["q1", "q2", "q2"], "doc_id": ["d1", "d2", "d3"], "score": [1, 0, 2]}


def per_query(gold) -> pd.Series:
    frame = ragrecall.evaluate(gold, ["Recall@5", "nDCG@5"], runs={"run": RUN}).to_frame()
    return frame.set_index(["query_id", "measure"])["value"]


def test_a_ranx_score_column_is_the_grade_in_memory():
    values = per_query(pd.DataFrame(RANX))
    assert values["q2", "Recall@5"] == 0.0  # d2 is judged not relevant; d3 is not retrieved
    assert values["q1", "Recall@5"] == 1.0


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_file_and_the_frame_agree(tmp_path, suffix):
    path = tmp_path / f"gold{suffix}"
    frame = pd.DataFrame(RANX)
    frame.to_csv(path, index=False) if suffix == ".csv" else frame.to_parquet(path)
    pd.testing.assert_series_equal(per_query(str(path)), per_query(frame))
    assert per_query(str(path))["q2", "Recall@5"] == 0.0


def test_a_grade_and_a_score_column_are_refused_alike(tmp_path):
    """Two candidates for the grade: which one is meant is not guessed, on either path."""
    rows = {**RANX, "grade": [1, 1, 1]}
    path = tmp_path / "gold.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    refusals = []
    for gold in (str(path), pd.DataFrame(rows)):
        with pytest.raises(InputError) as caught:
            per_query(gold)
        refusals.append([(p.value, p.expected) for p in caught.value.problems])
    assert refusals[0] == refusals[1]
    assert "score" in refusals[0][0][0] and "grade" in refusals[0][0][0]
