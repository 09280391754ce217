"""Runs whose scores are distances (lower is better) in the no-answer analysis.

Differential: run ``dist`` is run ``dense`` of tests/test_no_answer.py with every score
negated, so its scores rise with rank. Read as distances, its false-confidence and coverage
curves are ``dense``'s point for point and its picked threshold is ``dense``'s negated; read
as today (higher = more confident) they were inverted. A run whose scores both rise and fall
down its lists keeps today's reading, with a note.
"""

from __future__ import annotations

import json

import pytest
from fixtures_regressions import write_jsonl
from test_no_answer import DENSE, GOLD

from ragrecall_core import Workspace
from ragrecall_core.analysis.no_answer import no_answer_report
from ragrecall_core.analysis.score_direction import HIGHER, LOWER, NOT_ORDERED
from ragrecall_core.cli import main
from ragrecall_core.views import no_answer_view as nav


def negated(lines):
    return [
        {**q, "retrieved": [{**c, "score": -c["score"]} for c in q["retrieved"]]} for q in lines
    ]


def mixed(lines):
    """``lines`` with the first query's scores made to rise: some fall, one rises."""
    first, *rest = lines
    rising = [{**c, "score": 0.01 * c["rank"]} for c in first["retrieved"]]
    return [{**first, "retrieved": rising}, *rest]


DIST = negated(DENSE)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("direction")
    return {
        "gold": write_jsonl(root / "gold.jsonl", GOLD),
        "dense": write_jsonl(root / "dense.jsonl", DENSE),
        "dist": write_jsonl(root / "dist.jsonl", DIST),
        "mixed": write_jsonl(root / "mixed.jsonl", mixed(DENSE)),
    }


@pytest.fixture(scope="module")
def report(files):
    ws = Workspace.from_files(files["gold"], [files["dense"], files["dist"], files["mixed"]])
    return no_answer_report(ws, k=3)


def curve(report, run):
    """The (false confidence, coverage) points in the sweep's order, with each threshold."""
    rows = report.sweep[report.sweep.run == run]
    return list(rows.false_confidence), list(rows.answerable_coverage), list(rows.threshold)


def test_each_run_has_its_direction(report):
    assert report.directions == {"dense": HIGHER, "dist": LOWER, "mixed": NOT_ORDERED}


def test_a_distance_run_has_the_curves_of_its_negation_point_for_point(report):
    fc_a, cov_a, t_a = curve(report, "dense")
    fc_b, cov_b, t_b = curve(report, "dist")
    assert fc_b == pytest.approx(fc_a) and cov_b == pytest.approx(cov_a)
    assert t_b == pytest.approx([-t for t in t_a])  # thresholds in the run's own units


@pytest.mark.parametrize("max_fc", [0.1, 0.5, 0.7, 1.0])
def test_a_distance_run_picks_the_negated_threshold(report, max_fc):
    picked = report.pick(max_fc).set_index("run")
    a, b = picked.loc["dense"], picked.loc["dist"]
    assert b.threshold == pytest.approx(-a.threshold)
    assert (b.false_confidence, b.answerable_coverage) == pytest.approx(
        (a.false_confidence, a.answerable_coverage)
    )


def test_json_says_each_runs_direction_and_the_thresholds_sign(report):
    data = report.to_dict(0.5)
    json.dumps(data)
    runs = data["runs"]
    assert {r: runs[r]["score_direction"] for r in runs} == {
        "dense": HIGHER,
        "dist": LOWER,
        "mixed": NOT_ORDERED,
    }
    assert runs["dist"]["threshold"]["threshold"] == pytest.approx(-0.8)
    assert runs["dist"]["threshold"]["confident_when"] == "top_score <= threshold"
    assert runs["dense"]["threshold"]["confident_when"] == "top_score >= threshold"
    for key in ("false_confidence", "answerable_coverage"):
        assert runs["dist"]["threshold"][key] == pytest.approx(runs["dense"]["threshold"][key])
    assert "not ordered with rank" in runs["mixed"]["note"]
    assert runs["dense"]["note"] is None and runs["dist"]["note"] is None


def test_cli_json_and_text_read_a_distance_run_as_one(files, capsys):
    argv = ["no-answer", str(files["gold"]), str(files["dense"]), str(files["dist"]), "-k", "3"]
    assert main([*argv, "--max-false-confidence", "0.5", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"]["dist"]["score_direction"] == LOWER
    assert data["runs"]["dist"]["threshold"]["threshold"] == pytest.approx(-0.8)
    assert data["runs"]["dense"]["threshold"]["threshold"] == pytest.approx(0.8)
    assert main([*argv, "--max-false-confidence", "0.5"]) == 0
    out = capsys.readouterr().out
    dense, dist = out.split("\ndist: ")
    assert "higher is better" in dense and "lower is better" in dist
    assert "threshold -0.8000 (confident when top score <= it): false confidence 33.3%" in dist
    assert "threshold 0.8000: false confidence 33.3%" in dense


def test_cli_text_notes_a_run_not_ordered_with_rank(files, capsys):
    assert main(["no-answer", str(files["gold"]), str(files["mixed"]), "-k", "3"]) == 0
    out = capsys.readouterr().out
    assert "not ordered with rank" in out and "read as higher is better" in out


def test_the_failures_list_says_closer_than_the_threshold_for_a_distance_run(files, report):
    ws = Workspace.from_files(files["gold"], [files["dense"], files["dist"]])
    picked = nav.thresholds(report, 0.5)
    tops = nav.no_answer_tops(ws, report, {r: picked[r] for r in ("dense", "dist")})
    said = tops.set_index(["run", "query_id"])["confident"]
    for q in ("n1", "n2", "n3"):  # the same verdict, in the run's own words
        dense, dist = said[("dense", q)], said[("dist", q)]
        assert dense.startswith("⚠") == dist.startswith("⚠"), q
    assert said[("dist", "n1")] == "⚠ closer than threshold"
    assert said[("dense", "n1")] == "⚠ above threshold"


def test_the_picked_table_shows_each_runs_sign(report):
    table = nav.picked_table(report, ["dense", "dist", "mixed"], 0.5).set_index("run")
    assert table.at["dense", "confident when"] == "top-1 score ≥ threshold"
    assert table.at["dist", "confident when"] == "top-1 score ≤ threshold (distances)"
    assert table.at["dist", "threshold"] == pytest.approx(-0.8)
    assert "not ordered with rank" in table.at["mixed", "note"]


def test_the_page_reads_a_distance_run_as_one_and_notes_the_unordered_run(tmp_path, monkeypatch):
    from test_app_no_answer import open_page, picked, tops

    folder = tmp_path / "ws"
    write_jsonl(folder / "gold.jsonl", GOLD)
    for name, lines in (("dense", DENSE), ("dist", DIST), ("mixed", mixed(DENSE))):
        write_jsonl(folder / "runs" / f"{name}.jsonl", lines)
    at = open_page(monkeypatch, folder, {"k": "3"})
    assert not at.exception, [e.value for e in at.exception]
    infos = " ".join(i.value for i in at.info)
    warnings = " ".join(w.value for w in at.warning)
    assert "Scores rise with rank in dist" in infos and "dense" not in infos
    assert "not ordered with rank in mixed" in warnings
    shown = picked(at).set_index("run")
    assert float(shown.at["dist", "threshold"]) == pytest.approx(
        -float(shown.at["dense", "threshold"])
    )
    assert shown.at["dist", "confident when"] == "top-1 score ≤ threshold (distances)"
    assert shown.at["dense", "confident when"] == "top-1 score ≥ threshold"
    assert shown.at["dist", "false confidence"] == shown.at["dense", "false confidence"]
    assert "not ordered with rank" in shown.at["mixed", "note"]
    said = tops(at).set_index(["run", "query_id"])["confident"]
    assert {said[("dist", q)].startswith("⚠") for q in ("n1", "n2", "n3")} == {
        said[("dense", q)].startswith("⚠") for q in ("n1", "n2", "n3")
    }
    assert said[("dist", "n1")] in ("⚠ closer than threshold", "farther than threshold")


def test_a_query_filter_does_not_change_a_runs_direction(files):
    """Only a1 rises in ``mixed``: a view of n1 alone still reads it as not ordered."""
    ws = Workspace.from_files(files["gold"], [files["mixed"]])
    report = no_answer_report(ws, k=3, query_ids=["n1"])
    assert report.directions == {"mixed": NOT_ORDERED}
