"""Agreement between annotators (seed 000): identical share and Cohen's kappa, unweighted
and with linear weights on the 0 / 1 / 2 scale. Every expected kappa is worked by hand:

    kappa = 1 - sum(cost * observed) / sum(cost * expected)
    unweighted cost 1 off the diagonal; linear cost |i - j| / 2
    expected[i][j] = (row share i) * (column share j)
"""

from __future__ import annotations

import json
import math

import duckdb
import numpy as np
import pytest
from fixtures_regressions import write_jsonl

from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis.agreement import agreement, agreement_of_files, cohen_kappa
from ragrecall_core.cli import main
from ragrecall_core.inputs.store import attach_store, resolve, submit


@pytest.mark.parametrize(
    "a, b, weights, expected",
    [
        # A = [0,1,2,2], B = [0,1,2,1]. Observed agreement 3/4.
        # Shares A: 0 1/4, 1 1/4, 2 2/4; B: 0 1/4, 1 2/4, 2 1/4.
        # Chance agreement 1/16 + 2/16 + 2/16 = 5/16; kappa = (12/16 - 5/16) / (11/16) = 7/11
        ([0, 1, 2, 2], [0, 1, 2, 1], None, 7 / 11),  # 0.6364
        # linear: observed cost 1/4 * 1/2 = 1/8. Expected cost:
        #   A=0 (1/4): B=1 1/2*1/2, B=2 1/4*1   -> 1/4 * (1/4 + 1/4)  = 1/8
        #   A=1 (1/4): B=0 1/4*1/2, B=2 1/4*1/2 -> 1/4 * (1/8 + 1/8)  = 1/16
        #   A=2 (2/4): B=0 1/4*1,   B=1 1/2*1/2 -> 1/2 * (1/4 + 1/4)  = 1/4
        # total 7/16; kappa = 1 - (1/8) / (7/16) = 1 - 2/7 = 5/7
        ([0, 1, 2, 2], [0, 1, 2, 1], "linear", 5 / 7),  # 0.7143
        # perfect agreement over every grade
        ([0, 1, 2, 0, 1, 2], [0, 1, 2, 0, 1, 2], None, 1.0),
        ([0, 1, 2, 0, 1, 2], [0, 1, 2, 0, 1, 2], "linear", 1.0),
        # chance level: A = [0,0,2,2], B = [0,2,0,2]: observed 1/2, chance 1/4 + 1/4 = 1/2
        ([0, 0, 2, 2], [0, 2, 0, 2], None, 0.0),
        ([0, 0, 2, 2], [0, 2, 0, 2], "linear", 0.0),
        # systematic disagreement: A = [0,2], B = [2,0]: observed 0, chance 1/2 -> -1
        ([0, 2], [2, 0], None, -1.0),
        # A = [2,2,1,0], B = [2,1,1,0]: shares A 0 1/4, 1 1/4, 2 2/4; B 0 1/4, 1 2/4, 2 1/4
        # (the same margins as the first case, transposed) -> 7/11 again
        ([2, 2, 1, 0], [2, 1, 1, 0], None, 7 / 11),
    ],
)
def test_cohen_kappa_hand_checked(a, b, weights, expected):
    assert cohen_kappa(np.array(a), np.array(b), weights) == pytest.approx(expected)


def test_cohen_kappa_rounded_as_in_the_docstring():
    a, b = np.array([0, 1, 2, 2]), np.array([0, 1, 2, 1])
    assert round(cohen_kappa(a, b), 4) == 0.6364
    assert round(cohen_kappa(a, b, "linear"), 4) == 0.7143


def test_linear_weights_count_a_two_step_disagreement_double():
    # A = [0,0,2,2] vs B1 = [0,1,2,2] (one 0-vs-1) and B2 = [0,2,2,2] (one 0-vs-2):
    # unweighted, both are one disagreement; linear kappa is lower for B2
    a = np.array([0, 0, 2, 2])
    one, two = np.array([0, 1, 2, 2]), np.array([0, 2, 2, 2])
    assert cohen_kappa(a, one, "linear") > cohen_kappa(a, two, "linear")


def test_cohen_kappa_is_undefined_when_both_use_one_grade_only():
    assert math.isnan(cohen_kappa(np.array([2, 2, 2]), np.array([2, 2, 2])))


def grade(qid, chunk, g, harmful=False, reason=""):
    return {"query_id": qid, "chunk_id": chunk, "grade": g, "harmful": harmful, "reason": reason}


# anna and boris share four items (q1 A/B/C, q2 D); anna alone graded q2 E.
#   A 2/2 same; B 0/1 differs; C 1/1 same; D 2/2 same grade, harmful differs
# identical share 3/4. Kappa on anna [2,0,1,2] vs boris [2,1,1,2]:
#   shares anna 0 1/4, 1 1/4, 2 2/4; boris 0 0, 1 2/4, 2 2/4; chance 0 + 1/8 + 2/8 = 3/8
#   kappa = (3/4 - 3/8) / (5/8) = 3/5
#   linear: observed 1/4 * 1/2 = 1/8; expected: anna 0 (1/4) x boris 1 (1/2) x 1/2 = 1/16,
#   anna 0 x boris 2 (1/2) x 1 = 1/8, anna 1 (1/4) x boris 2 x 1/2 = 1/16,
#   anna 2 (1/2) x boris 1 x 1/2 = 1/8 -> 3/8; kappa = 1 - (1/8) / (3/8) = 2/3
ANNA = [
    grade("q1", "A", 2),
    grade("q1", "B", 0, reason="other product, same operation"),
    grade("q1", "C", 1),
    grade("q2", "D", 2),
    grade("q2", "E", 0),
]
BORIS = [
    grade("q1", "A", 2),
    grade("q1", "B", 1, reason="answer cut by the chunk boundary"),
    grade("q1", "C", 1),
    grade("q2", "D", 2, harmful=True, reason="outdated"),
]


@pytest.fixture
def files(tmp_path):
    # no annotator field: each file's stem names its annotator
    return write_jsonl(tmp_path / "anna.jsonl", ANNA), write_jsonl(tmp_path / "boris.jsonl", BORIS)


def test_agreement_of_files(files):
    result = agreement_of_files(files)
    assert len(result.pairs) == 1
    pair = result.pairs.iloc[0]
    assert (pair.annotator_a, pair.annotator_b, pair["items"]) == ("anna", "boris", 4)
    assert pair.identical == pytest.approx(3 / 4)
    assert pair.kappa == pytest.approx(3 / 5)
    assert pair.kappa_linear == pytest.approx(2 / 3)


def test_disagreements_list_grade_and_harmful_differences(files):
    d = agreement_of_files(files).disagreements
    assert d[["query_id", "chunk_id", "grade_a", "grade_b", "harmful_a", "harmful_b"]].to_dict(
        "records"
    ) == [
        {
            "query_id": "q1",
            "chunk_id": "B",
            "grade_a": 0,
            "grade_b": 1,
            "harmful_a": False,
            "harmful_b": False,
        },
        {
            "query_id": "q2",
            "chunk_id": "D",
            "grade_a": 2,
            "grade_b": 2,
            "harmful_a": False,
            "harmful_b": True,
        },
    ]
    assert list(d.reason_b) == ["answer cut by the chunk boundary", "outdated"]
    assert d.resolved_grade.isna().all()  # nobody resolved them yet


def test_three_annotators_give_three_pairs(files, tmp_path):
    cleo = write_jsonl(tmp_path / "cleo.jsonl", [grade("q1", "A", 0), grade("q1", "B", 0)])
    pairs = agreement_of_files([*files, cleo]).pairs
    assert pairs[["annotator_a", "annotator_b", "items"]].values.tolist() == [
        ["anna", "boris", 4],
        ["anna", "cleo", 2],  # A 2/0, B 0/0 -> identical 1/2
        ["boris", "cleo", 2],  # A 2/0, B 1/0 -> identical 0
    ]
    assert list(pairs.identical) == pytest.approx([3 / 4, 1 / 2, 0.0])


def test_a_bad_grades_file_is_invalid_input_naming_it(files, tmp_path):
    bad = write_jsonl(tmp_path / "bad.jsonl", [grade("q1", "A", 5)])
    with pytest.raises(InputError) as error:
        agreement_of_files([*files, bad])
    assert "bad.jsonl:1" in str(error.value)


def test_a_resolution_shows_beside_its_disagreement(tmp_path):
    (tmp_path / "grades").mkdir()
    write_jsonl(tmp_path / "grades" / "anna.jsonl", ANNA)
    write_jsonl(tmp_path / "grades" / "boris.jsonl", BORIS)
    write_jsonl(
        tmp_path / "gold.jsonl",
        [{"id": q, "query": q, "relevant_ids": ["A"]} for q in ("q1", "q2")],
    )
    write_jsonl(
        tmp_path / "runs" / "r.jsonl",
        [{"id": "q1", "retrieved": [{"chunk_id": "A", "rank": 1, "score": 1.0}]}],
    )
    ws = Workspace.open(tmp_path)
    attach_store(ws)
    resolve(ws, "q1", "B", 1, "chair")
    submit(ws, "q2", "E", 2, "boris")  # a stored judgment adds a shared item
    result = agreement(ws)
    assert int(result.pairs.iloc[0]["items"]) == 5
    d = result.disagreements.set_index("chunk_id")
    assert d.loc["B", "resolved_grade"] == 1 and d.loc["B", "resolver"] == "chair"
    assert (d.loc["E", "grade_a"], d.loc["E", "grade_b"]) == (0, 2)
    ws.con.close()


def test_cli_agreement_json(files, capsys):
    code = main(["agreement", *map(str, files), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["pairs"][0]["items"] == 4
    assert data["pairs"][0]["kappa"] == pytest.approx(0.6)
    assert [(d["query_id"], d["chunk_id"]) for d in data["disagreements"]] == [
        ("q1", "B"),
        ("q2", "D"),
    ]
    assert data["disagreements"][0]["resolved_grade"] is None


def test_cli_agreement_table(files, capsys):
    code = main(["agreement", *map(str, files)])
    out = capsys.readouterr().out
    assert code == 0
    assert "2 disagreements:" in out
    assert "False" not in out and "NaN" not in out  # words and dashes, not pandas' tokens
    header, row = out.splitlines()[:2]
    assert header.split() == [
        "annotator_a",
        "annotator_b",
        "items",
        "identical",
        "kappa",
        "kappa_linear",
    ]
    assert row.split() == ["anna", "boris", "4", "0.750", "0.600", "0.667"]


def test_cli_agreement_bad_file_exits_2(tmp_path, capsys):
    missing = tmp_path / "nobody.jsonl"
    assert main(["agreement", str(missing)]) == 2
    assert "nobody.jsonl" in capsys.readouterr().err


def test_grades_for_queries_the_gold_no_longer_has_do_not_count(tmp_path):
    """Grades stay when an edited gold drops a query (nothing is lost), but kappa and the
    disagreements cover the gold's queries only: q9's 2-vs-0 must not lower the kappa."""
    kept = [grade("q9", "Z", 2)]
    write_jsonl(tmp_path / "grades" / "anna.jsonl", ANNA + kept)
    write_jsonl(tmp_path / "grades" / "boris.jsonl", BORIS + [grade("q9", "Z", 0)])
    write_jsonl(
        tmp_path / "gold.jsonl",
        [{"id": q, "query": q, "relevant_ids": ["A"]} for q in ("q1", "q2")],
    )
    write_jsonl(tmp_path / "runs" / "r.jsonl", [{"id": "q1", "retrieved": []}])
    ws = Workspace.open(tmp_path)
    result = agreement(ws)
    pair = result.pairs.iloc[0]
    assert (pair["items"], pair.kappa) == (4, pytest.approx(3 / 5))
    assert "q9" not in set(result.disagreements.query_id)
    kept_grades = "SELECT count(*) FROM all_grades WHERE query_id = 'q9'"
    assert ws.cursor().execute(kept_grades).fetchone()[0] == 2
    ws.con.close()


def test_grades_files_are_read_by_a_confined_connection(files, tmp_path, monkeypatch):
    """The connection that reads the grades files can read nothing else (defence in depth)."""
    from ragrecall_core.inputs import grades as module  # agreement_of_files reads through it

    other = tmp_path / "other.txt"
    other.write_text("not for reading")
    refused = []

    def load_checking_confinement(con, path):
        try:
            con.execute("SELECT * FROM read_text($p)", {"p": str(other)}).fetchall()
        except duckdb.Error:
            refused.append(path)
        return real_load(con, path)

    real_load = module.load_grades
    monkeypatch.setattr(module, "load_grades", load_checking_confinement)
    assert agreement_of_files(files).pairs.iloc[0]["items"] == 4
    assert refused == list(files)
