"""Under trec_eval's averaging a query the run lists with an empty list counts 0, as
pytrec_eval and ranx count it (``{"q2": {}}``: the run names the query and retrieves
nothing); a query the run does not name at all stays out, as in trec_eval. Hand values."""

import pytest

import ragrecall

GOLD = {"q1": ["a"], "q2": ["b"], "q3": ["c"]}
RUN = {"q1": {"a": 1.0}, "q2": {}}  # q3 not named


@pytest.fixture
def compat():
    return ragrecall.Policy(compat="trec_eval")


def test_an_empty_list_counts_zero(compat):
    ev = ragrecall.evaluate(GOLD, ["Recall@5", "P@5"], runs={"r": RUN}, policy=compat)
    assert ev.value("r", "Recall@5") == pytest.approx(0.5)  # (1 + 0) / 2, q3 left out
    assert ev.value("r", "P@5") == pytest.approx(0.1)  # (0.2 + 0) / 2


def test_a_jsonl_empty_list_counts_zero_too(tmp_path, compat):
    run = tmp_path / "r.jsonl"
    run.write_text(
        '{"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 1}]}\n'
        '{"id": "q2", "retrieved": []}\n',
        encoding="utf-8",
    )
    ev = ragrecall.evaluate(GOLD, ["Recall@5"], runs={"r": str(run)}, policy=compat)
    assert ev.value("r", "Recall@5") == pytest.approx(0.5)


def test_with_c_every_gold_query_counts(compat):
    complete = ragrecall.Policy(compat="trec_eval", complete=True)
    ev = ragrecall.evaluate(GOLD, ["Recall@5"], runs={"r": RUN}, policy=complete)
    assert ev.value("r", "Recall@5") == pytest.approx(1 / 3)
