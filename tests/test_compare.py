"""Variant comparison (SPEC "What the user does with it", 4; seed 000 and seed 002).

Expected numbers come from the regressions fixture (its docstring has the per-query
table) or from the small hand-built workspaces below, with the arithmetic in comments.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from fixtures_regressions import (
    IMPROVEMENTS,
    REGRESSIONS,
    SECRET_VALUES,
    paths,
    write_jsonl,
    write_workspace,
)

from ragrecall_core import Policy, Workspace, evaluate
from ragrecall_core.analysis.compare import compare
from ragrecall_core.analysis.ranked_lists import new_unjudged, side_by_side
from ragrecall_core.cli import main


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return write_workspace(tmp_path_factory.mktemp("regressions"))


@pytest.fixture(scope="module")
def comparison(folder):
    return compare(Workspace.open(folder), "baseline", "candidate", k=5)


def delta(comparison, measure: str) -> dict:
    rows = comparison.deltas[comparison.deltas.measure == measure]
    assert len(rows) == 1, measure
    return rows.iloc[0].to_dict()


def test_regressions_are_exactly_the_three_queries_that_passed_and_now_fail(comparison):
    assert sorted(comparison.regressions.query_id) == list(REGRESSIONS)
    assert sorted(comparison.improvements.query_id) == sorted(IMPROVEMENTS)
    assert list(comparison.unchanged_failures.query_id) == ["d03"]  # 0.5 -> 0.5
    regressed = comparison.regressions.set_index("query_id")
    assert (regressed.baseline == 1.0).all() and (regressed.candidate == 0.0).all()


def test_a_no_answer_query_is_neither_a_regression_nor_in_the_paired_deltas(comparison):
    assert "t09" not in set(comparison.outcomes.query_id)
    # only Harm@k, declared to cover no-answer queries, pairs it
    rows = comparison.per_query[comparison.per_query.query_id == "t09"]
    assert list(rows.measure) == ["Harm@5"]


def test_mean_delta_of_recall_and_wins_ties_losses(comparison):
    row = delta(comparison, "Recall@5")
    assert row["queries"] == 12  # 13 gold queries minus the no-answer t09
    assert row["baseline"] == pytest.approx(5.5 / 12)  # 5 passes + d03's 0.5
    assert row["candidate"] == pytest.approx(8.5 / 12)  # 8 passes + d03's 0.5
    assert row["delta"] == pytest.approx(0.25) and row["delta"] > 0  # (6 - 3) / 12
    assert (row["wins"], row["ties"], row["losses"]) == (6, 3, 3)


def test_p_value_is_the_exact_paired_randomization_test_and_the_ci_holds_the_mean(comparison):
    row = delta(comparison, "Recall@5")
    # 12 pairs -> 2**12 sign flips < 9999 resamples, so scipy enumerates them all.
    # Nonzero deltas: six +1 and three -1, observed sum +3. A flip gives |sum| >= 3 when
    # 6 or more of the 9 are +1: C(9,6)+C(9,7)+C(9,8)+C(9,9) = 130 of 512, two-sided 260/512.
    assert 0.0 <= row["p_value"] <= 1.0
    assert row["p_value"] == pytest.approx(260 / 512)
    assert row["ci_low"] <= row["delta"] <= row["ci_high"]
    assert row["ci_low"] < row["ci_high"]


def test_identical_runs_have_a_p_value_of_one_and_a_zero_ci(tmp_path):
    gold = [{"id": q, "query": q, "relevant_ids": ["A"]} for q in ("q1", "q2")]
    run = [
        {"id": "q1", "retrieved": [{"chunk_id": "A", "rank": 1, "score": 1.0}]},
        {"id": "q2", "retrieved": [{"chunk_id": "B", "rank": 1, "score": 1.0}]},
    ]
    ws = Workspace.from_files(
        write_jsonl(tmp_path / "gold.jsonl", gold),
        [write_jsonl(tmp_path / "a.jsonl", run), write_jsonl(tmp_path / "b.jsonl", run)],
    )
    row = delta(compare(ws, "a", "b", k=1), "Recall@1")
    assert (row["delta"], row["p_value"], row["ci_low"], row["ci_high"]) == (0.0, 1.0, 0.0, 0.0)
    assert (row["wins"], row["ties"], row["losses"]) == (0, 2, 0)


def test_factor_warning_names_both_changed_factors(comparison):
    assert comparison.factors_changed == ["k", "reranker"]
    assert "(k, reranker)" in comparison.factor_warning
    assert comparison.factor_warning.startswith("2 retrieval factors changed at once")


def test_one_changed_factor_gives_no_warning(tmp_path):
    folder = write_workspace(tmp_path)
    config = json.loads((folder / "runs" / "baseline.config.json").read_text())
    (folder / "runs" / "candidate.config.json").write_text(json.dumps({**config, "top_k": 10}))
    c = compare(Workspace.open(folder), "baseline", "candidate", k=5)
    assert c.factors_changed == ["k"]
    assert c.factor_warning is None


def test_a_run_without_a_config_changes_no_factor_it_is_unknown(tmp_path):
    """A candidate without a .config.json sidecar is not a candidate whose every factor
    changed: which factors differ is unknown, and the comparison says that instead."""
    folder = write_workspace(tmp_path)
    (folder / "runs" / "candidate.config.json").unlink()
    c = compare(Workspace.open(folder), "baseline", "candidate", k=5)
    assert c.factors_changed == [] and c.factor_warning is None
    assert (
        "candidate has no run config (a .config.json beside the run): which retrieval factors "
        "differ between the runs is unknown"
    ) in c.notes
    assert not [n for n in c.notes if "None" in n or "different corpus" in n]


def test_a_corpus_version_stated_by_one_run_only_is_not_called_different(tmp_path):
    folder = write_workspace(tmp_path)
    path = folder / "runs" / "candidate.config.json"
    config = json.loads(path.read_text())
    config.pop("corpus_version", None)
    path.write_text(json.dumps(config))
    base = json.loads((folder / "runs" / "baseline.config.json").read_text())
    c = compare(Workspace.open(folder), "baseline", "candidate", k=5)
    (note,) = [n for n in c.notes if "corpus version" in n]
    assert note == (
        f"only baseline states its corpus version ({base['corpus_version']}): whether both "
        "runs' chunk ids match the gold labels is unknown"
    )


def test_config_diff_lists_every_differing_key_with_its_factor_and_no_secret(comparison):
    diff = comparison.config_diff.set_index("key")
    assert sorted(diff.index) == [
        "api_key",
        "connection_string",
        "dsn",
        "endpoint",
        "password",
        "reranker",
        "token",
        "top_k",
    ]
    assert diff.loc["top_k"].to_dict() == {"factor": "k", "baseline": "5", "candidate": "10"}
    assert diff.loc["reranker"].to_dict() == {
        "factor": "reranker",
        "baseline": "none",
        "candidate": "bge-reranker-base",
    }
    assert diff.loc["endpoint", "candidate"] == "https://[redacted]@search.internal/v1"
    for key in ("api_key", "token", "password", "dsn", "connection_string"):
        assert diff.loc[key, "candidate"] == "[redacted]", key
        assert diff.loc[key, "factor"] == "", key
    text = comparison.config_diff.to_string()
    assert not [s for s in SECRET_VALUES if s in text]


def test_no_notes_when_the_runs_cover_the_same_queries_at_full_depth(comparison):
    assert comparison.notes == []


def test_to_dict_is_plain_json(comparison):
    data = comparison.to_dict()
    text = json.dumps(data)  # no default=str: every value must already be JSON
    back = json.loads(text)
    assert back["regressions"] == list(REGRESSIONS)
    assert back["factors_changed"] == ["k", "reranker"]
    recall = next(d for d in back["deltas"] if d["measure"] == "Recall@5")
    assert recall["queries"] == 12 and recall["wins"] == 6
    assert recall["delta"] == pytest.approx(0.25)
    assert not [s for s in SECRET_VALUES if s in text]


def test_to_text_lists_regressions_and_the_warning(comparison):
    text = comparison.to_text()
    assert "regressions (RecallCap@5 = 1 is a pass): 3: t01, t02, t03" in text
    assert "warning: 2 retrieval factors changed at once (k, reranker)" in text


def test_by_group_means_per_section(comparison):
    groups = comparison.by_group
    billing = groups[
        (groups.by == "section") & (groups.group == "billing") & (groups.measure == "Recall@5")
    ].iloc[0]
    # billing: t04, t05, d02, all improvements 0 -> 1
    assert (billing.queries, billing.baseline, billing.candidate) == (3, 0.0, 1.0)


def test_query_ids_restrict_the_comparison(folder):
    c = compare(Workspace.open(folder), "baseline", "candidate", k=5, query_ids=["d01", "d02"])
    row = delta(c, "Recall@5")
    assert (row["queries"], row["delta"]) == (2, 1.0)
    assert list(c.regressions.query_id) == []


# --- seed 002: new unjudged chunks, and one query side by side -----------------------
# gold q1: A relevant, B judged not relevant (grade 0); a reviewer graded C 2, X 1.
# k = 4
#   baseline  [A, B, C, D, F]    top 4: A B C D
#   candidate [B, A, E, X, C]    top 4: B A E X
# A 1 -> 2 moved down (gold); B 2 -> 1 moved up (not relevant); C 3 -> 5 left top k
# (reviewer 2); D 4 -> - left top k (unjudged); E - -> 3 entered (unjudged);
# X - -> 4 entered (reviewer 1); F 5 -> - in neither top 4: not shown.
# New unjudged in the candidate's top 4: E only (X is judged, B and A were there before).
# q2: identical lists [P, Q] -> both "same". q3: only the baseline has it.


@pytest.fixture
def small(tmp_path):
    gold = [
        {"id": "q1", "query": "one", "relevant_ids": ["A"], "grades": {"A": 1, "B": 0}},
        {"id": "q2", "query": "two", "relevant_ids": ["P"]},
        {"id": "q3", "query": "three", "relevant_ids": ["R"]},
    ]

    def line(qid, chunks):
        return {
            "id": qid,
            "retrieved": [
                {"chunk_id": c, "rank": i + 1, "score": 1 - i / 10} for i, c in enumerate(chunks)
            ],
        }

    base = [line("q1", "ABCDF"), line("q2", "PQ"), line("q3", "RS")]
    cand = [line("q1", "BAEXC"), line("q2", "PQ")]
    grades = [
        {"query_id": "q1", "chunk_id": "C", "grade": 2, "annotator": "anna"},
        {"query_id": "q1", "chunk_id": "X", "grade": 1, "annotator": "anna"},
    ]
    return Workspace.from_files(
        write_jsonl(tmp_path / "gold.jsonl", gold),
        [write_jsonl(tmp_path / "base.jsonl", base), write_jsonl(tmp_path / "cand.jsonl", cand)],
        [write_jsonl(tmp_path / "anna.jsonl", grades)],
    )


def test_side_by_side_marks_movement_and_judgment(small):
    table = side_by_side(small, "base", "cand", "q1", k=4)
    assert list(table.chunk_id) == ["A", "B", "C", "E", "D", "X"]  # by best rank, then id
    rows = table.set_index("chunk_id")
    # under the default policy a reviewer's partial grade (X: 1) is judged, not relevant
    expected = {
        "A": (1, 2, "moved down", "relevant"),
        "B": (2, 1, "moved up", "judged not relevant"),
        "C": (3, 5, "left top k", "relevant"),
        "D": (4, None, "left top k", "unjudged"),
        "E": (None, 3, "entered top k", "unjudged"),
        "X": (None, 4, "entered top k", "judged not relevant"),
    }
    for chunk, (b, c, movement, judgment) in expected.items():
        row = rows.loc[chunk]
        got_b = None if pd.isna(row.baseline_rank) else int(row.baseline_rank)
        got_c = None if pd.isna(row.candidate_rank) else int(row.candidate_rank)
        assert (got_b, got_c, row.movement, row.judgment) == (b, c, movement, judgment), chunk


def test_a_relevant_chunk_below_k_in_both_runs_is_listed_with_its_ranks(small):
    """An open Compare query's "where each relevant chunk moved" must show a relevant chunk
    that both runs rank below k (the failing query's whole story), not only those in a
    top k or retrieved by neither."""
    rows = side_by_side(small, "base", "cand", "q1", k=2).set_index("chunk_id")
    assert "C" in rows.index
    c = rows.loc["C"]
    assert (int(c.baseline_rank), int(c.candidate_rank), c.movement, c.judgment) == (
        3,
        5,
        "moved down",
        "relevant",
    )
    # an irrelevant chunk below k in both stays out: the table is the top k's
    assert "F" not in rows.index
    # one run missing it, the other ranking it below k: it moved, from or to nowhere
    moved = side_by_side(small, "base", "cand", "q1", k=1).set_index("chunk_id")
    assert moved.loc["C", "movement"] == "moved down"  # 3 in base, 5 in cand
    gone = side_by_side(small, "base", "cand", "q3", k=1).set_index("chunk_id")
    assert gone.loc["R", "movement"] == "left top k"  # rank 1, then not retrieved
    # with no top k at all (k = 0), from not retrieved to rank 1 is a move up
    came = side_by_side(small, "cand", "base", "q3", k=0).set_index("chunk_id")
    assert came.loc["R", "movement"] == "moved up"


def test_side_by_side_of_identical_lists_is_all_same(small):
    table = side_by_side(small, "base", "cand", "q2", k=4)
    assert list(table.chunk_id) == ["P", "Q"]
    assert list(table.movement) == ["same", "same"]
    assert list(table.judgment) == ["relevant", "unjudged"]


def test_new_unjudged_lists_only_unjudged_chunks_that_entered_the_top_k(small):
    rows = new_unjudged(small, "base", "cand", k=4)
    assert rows[["query_id", "chunk_id"]].values.tolist() == [["q1", "E"]]
    assert int(rows["rank"].iloc[0]) == 3
    assert len(new_unjudged(small, "base", "cand", k=4, query_id="q2")) == 0
    # k = 5: the candidate's new chunks are E and X (C is in both top 5s); X is judged
    assert new_unjudged(small, "base", "cand", k=5).chunk_id.tolist() == ["E"]


def test_a_note_says_when_the_runs_cover_different_query_sets(small):
    c = compare(small, "base", "cand", k=2)
    assert any("1 query of the compared ones is listed by one run only" in n for n in c.notes)
    # q3 is missing from cand: it scores 0 there and stays paired
    q3 = c.per_query[(c.per_query.query_id == "q3") & (c.per_query.measure == "Recall@2")]
    assert (float(q3.baseline.iloc[0]), float(q3.candidate.iloc[0])) == (1.0, 0.0)
    assert "q3" in set(c.regressions.query_id)


def test_a_note_says_when_a_run_is_shallower_than_k(small):
    c = compare(small, "base", "cand", k=10)  # both lists hold at most 5 results
    assert any("fewer than k = 10 results (base: 5, cand: 5)" in n for n in c.notes)


# --- the command line ----------------------------------------------------------------


def test_cli_compare_json_lists_the_regressions(folder, capsys):
    p = paths(folder)
    code = main(
        ["compare", str(p["gold"]), str(p["baseline"]), str(p["candidate"]), "--format", "json"]
    )
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert data["regressions"] == list(REGRESSIONS)
    assert data["k"] == 5 and data["baseline"] == "baseline" and data["candidate"] == "candidate"
    recall = next(d for d in data["deltas"] if d["measure"] == "Recall@5")
    assert recall["delta"] == pytest.approx(0.25)
    assert recall["queries"] == 12  # a number, not a string
    assert not [s for s in SECRET_VALUES if s in out]


def test_cli_compare_on_the_test_split_and_as_text(folder, capsys):
    p = paths(folder)
    code = main(
        ["compare", str(p["gold"]), str(p["baseline"]), str(p["candidate"]), "--split", "test"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "regressions (RecallCap@5 = 1 is a pass): 3: t01, t02, t03" in out
    # test split: 8 answerable queries, baseline 4/8, candidate 5/8
    recall_line = next(line for line in out.splitlines() if line.strip().startswith("Recall@5"))
    fields = recall_line.split()
    assert fields[1:5] == ["8", "0.5000", "0.6250", "0.1250"]
    assert not [s for s in SECRET_VALUES if s in out]


def test_cli_compare_bad_k_is_invalid_input(folder, capsys):
    p = paths(folder)
    code = main(["compare", str(p["gold"]), str(p["baseline"]), str(p["candidate"]), "-k", "0"])
    assert code == 2
    assert "0" in capsys.readouterr().err


def test_mean_delta_is_finite_for_every_default_measure(comparison):
    assert all(math.isfinite(v) for v in comparison.deltas.delta)


def test_harm_wins_are_decreases():
    from ragrecall_core.analysis.compare import delta_table

    rows = pd.DataFrame(
        {
            "query_id": ["q1", "q2", "q3"] * 2,
            "measure": ["Harm@5"] * 3 + ["Recall@5"] * 3,
            "baseline": [1.0, 1.0, 0.0] * 2,
            "candidate": [0.0, 0.0, 0.0] * 2,
        }
    ).assign(delta=lambda f: f.candidate - f.baseline)
    table = delta_table(rows, ["Harm@5", "Recall@5"]).set_index("measure")
    # two queries lost their harmful chunk: for Harm@5 (lower is better) two wins
    assert tuple(table.loc["Harm@5", ["wins", "ties", "losses"]]) == (2, 1, 0)
    # the same numbers as Recall@5 (higher is better) are two losses
    assert tuple(table.loc["Recall@5", ["wins", "ties", "losses"]]) == (0, 1, 2)


def test_a_measure_without_paired_queries_has_no_delta_and_no_test():
    from ragrecall_core.analysis.compare import delta_table

    rows = pd.DataFrame(
        {"query_id": ["q1"], "measure": ["Harm@5"], "baseline": [1.0], "candidate": [0.0]}
    ).assign(delta=-1.0)
    table = delta_table(rows, ["Harm@5", "Recall@5"]).set_index("measure")
    assert table.loc["Recall@5", "queries"] == 0
    assert table.loc["Recall@5", ["delta", "p_value", "ci_low", "ci_high"]].isna().all()
    # one pair: either sign is as extreme as the observed one; no CI (a bootstrap of one
    # delta is that delta every time: a width of 0 is no 95% interval)
    harm = table.loc["Harm@5"]
    assert harm["p_value"] == 1.0 and harm[["ci_low", "ci_high"]].isna().all()


@pytest.mark.parametrize(
    ("policy", "marks", "unjudged_in_q1"),
    [
        (Policy(), {"C": "relevant", "X": "judged not relevant"}, ["E"]),
        (Policy(partial="relevant"), {"C": "relevant", "X": "relevant"}, ["E"]),
        (Policy(manual_grades=False), {"C": "unjudged", "X": "unjudged"}, ["E", "X"]),
    ],
)
def test_lists_follow_the_policy_like_the_numbers(small, policy, marks, unjudged_in_q1):
    """The marks of the side-by-side lists and the new-unjudged list change with the policy,
    exactly as the measures do (P@4 of the candidate counts what is marked relevant)."""
    rows = side_by_side(small, "base", "cand", "q1", k=4, policy=policy).set_index("chunk_id")
    assert {c: rows.loc[c, "judgment"] for c in marks} == marks
    judged_by = rows.loc["C", "judged_by"]
    assert (judged_by if isinstance(judged_by, str) else None) == (
        "reviewers" if policy.manual_grades else None
    )
    new = new_unjudged(small, "base", "cand", k=4, query_id="q1", policy=policy)
    assert new.chunk_id.tolist() == unjudged_in_q1
    relevant_in_top4 = int(((rows["candidate_rank"] <= 4) & (rows["judgment"] == "relevant")).sum())
    p_at_4 = evaluate(small, ["P@4"], policy, runs=["cand"], query_ids=["q1"]).value("cand", "P@4")
    assert p_at_4 == pytest.approx(relevant_in_top4 / 4)


def test_notes_on_a_split_count_each_runs_queries_in_it(small):
    """Comparing on a subset (a split) says how many of its queries each run lists, and
    warns only when the runs differ within it."""
    c = compare(small, "base", "cand", k=2, query_ids=["q1", "q3"])
    assert "2 gold queries compared: base lists 2 of them, cand 1" in c.notes
    assert any("1 query of the compared ones is listed by one run only" in n for n in c.notes)
    same = compare(small, "base", "cand", k=2, query_ids=["q1", "q2"])
    assert "2 gold queries compared: base lists 2 of them, cand 2" in same.notes
    assert not any("different queries" in n for n in same.notes)
