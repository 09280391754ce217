"""check, compare and the report say what evaluate warns of (stop 51).

A user gating a release with ``ragrecall check`` (or choosing a run with ``compare``) on a
rankless run of distances (FAISS L2, Chroma: best first, scores rising) read it backwards
without a word: only ``evaluate`` and ``no-answer`` said so. Now check and compare print
evaluate's warnings of the runs they read (its text, from its function: one line each on
stderr, or JSON's ``warnings`` key), never changing an exit code, and the report repeats
the distance warning beside its no-answer numbers, where a backwards top score misleads.
"""

from __future__ import annotations

import html
import json

import pytest

from ragrecall_core.scoring import evaluate as evaluate_module
from tests.distance_runs import ANSWERED_GOLD, NO_ANSWER_DISTANCES, SAID, WHAT_TO_DO, csv_text
from tests.distance_runs import DISTANCES as ANSWERED
from tests.helpers import gold_row, run_cli, write_jsonl, write_text

GOLD = {**ANSWERED_GOLD, "q3": []}  # q3: a no-answer query
DISTANCES = [*ANSWERED, *NO_ANSWER_DISTANCES]
SIMILARITIES = [(q, c, round(1 - s, 2)) for q, c, s in DISTANCES]  # best first, falling
DEPTH_SAID = "goes past every list of the run"  # evaluate's depth warning
SECRET = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a token-shaped folder name


@pytest.fixture
def files(tmp_path):
    """The gold set, a distance run (``faiss``), a similarity run (``good``) and the
    distances with their ranks (``ranked``: read by rank, nothing backwards)."""
    ranks = [1, 2, 3, 1, 2, 1, 2]
    return {
        "gold": write_jsonl(tmp_path / "gold.jsonl", [gold_row(q, r) for q, r in GOLD.items()]),
        "faiss": write_text(tmp_path / "faiss.csv", csv_text(DISTANCES)),
        "good": write_text(tmp_path / "good.csv", csv_text(SIMILARITIES)),
        "ranked": write_text(
            tmp_path / "ranked.csv",
            csv_text(
                [(*row, r) for row, r in zip(DISTANCES, ranks, strict=True)],
                "query_id,chunk_id,score,rank",
            ),
        ),
    }


def evaluate_warnings(capsys, gold, run, k: int) -> list[str]:
    """What ``evaluate --format json`` warns of ``run`` at ``k``."""
    code, out, _ = run_cli(capsys, ["evaluate", gold, run, "-k", k, "--format", "json"])
    assert code == 0
    (entry,) = json.loads(out)["runs"]
    return entry["warnings"]


# --- check ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("require", "code"), [("Recall@3>=0.5", 0), ("Recall@1>=0.5", 1)])
def test_check_says_a_distance_run_reads_backwards_on_stderr(capsys, files, require, code):
    """The gate passes or fails as before (a warning never changes the exit code); the
    warning is evaluate's line, on stderr, so the gate's own output is as it was."""
    said, stdout, err = run_cli(
        capsys, ["check", files["gold"], files["faiss"], "--require", require]
    )
    assert said == code, err
    (warning,) = evaluate_warnings(capsys, files["gold"], files["faiss"], 3)
    assert SAID in warning and WHAT_TO_DO in warning
    assert f"warning: faiss: {warning}" in err.splitlines()
    assert SAID not in stdout


def test_check_json_carries_evaluates_warnings_under_its_key(capsys, files):
    code, out, err = run_cli(
        capsys,
        ["check", files["gold"], files["faiss"], "--require", "Recall@1>=0.5", "--format", "json"],
    )
    assert code == 1 and SAID not in err
    data = json.loads(out)
    assert data["passed"] is False
    assert data["warnings"] == {
        "faiss": evaluate_warnings(capsys, files["gold"], files["faiss"], 1)
    }


def test_check_names_the_baselines_warnings_too(capsys, files):
    """The distance run as --baseline: its regressions are counted against a list read
    backwards, so it is warned of as the candidate would be."""
    argv = ["check", files["gold"], files["good"], "--baseline", files["faiss"], "-k", "2"]
    code, out, _ = run_cli(capsys, [*argv, "--max-regressions", "5", "--format", "json"])
    assert code == 0
    warnings = json.loads(out)["warnings"]
    assert warnings["good"] == [] and any(SAID in w for w in warnings["faiss"])


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_check_of_a_run_read_as_given_says_no_warning(capsys, files, fmt):
    argv = ["check", files["gold"], files["ranked"], "--require", "Recall@3>=0.5"]
    code, out, err = run_cli(capsys, [*argv, "--format", fmt])
    assert code == 0
    assert "warning:" not in err and SAID not in out
    if fmt == "json":
        assert json.loads(out)["warnings"] == {"ranked": []}


def test_check_says_a_depth_once_in_its_own_note(capsys, files):
    """A requirement past every list is the gate's own note (stdout); evaluate's warning of
    the same depth is not said a second time on stderr."""
    code, out, err = run_cli(
        capsys, ["check", files["gold"], files["ranked"], "--require", "Recall@10>=0"]
    )
    assert code == 0
    assert "Recall@10 goes past every list of ranked" in out
    assert DEPTH_SAID not in err


# --- compare -------------------------------------------------------------------------------


def test_compare_says_a_distance_run_reads_backwards(capsys, files):
    argv = ["compare", files["gold"], files["good"], files["faiss"], "-k", "2"]
    code, out, err = run_cli(capsys, argv)
    assert code == 0
    (warning,) = evaluate_warnings(capsys, files["gold"], files["faiss"], 2)
    assert err.splitlines().count(f"warning: faiss: {warning}") == 1
    assert SAID not in out
    code, out, err = run_cli(capsys, [*argv, "--format", "json"])
    assert code == 0 and SAID not in err
    assert json.loads(out)["warnings"] == {"good": [], "faiss": [warning]}


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_compare_of_runs_read_as_given_says_no_warning(capsys, files, fmt):
    argv = ["compare", files["gold"], files["good"], files["ranked"], "-k", "2"]
    code, out, err = run_cli(capsys, [*argv, "--format", fmt])
    assert code == 0
    assert "warning:" not in err and SAID not in out
    if fmt == "json":
        assert json.loads(out)["warnings"] == {"good": [], "ranked": []}


def test_compare_says_a_depth_its_note_does_not(capsys, files):
    """compare notes lists shorter than its k (2 here: none is); a measure asked at 5 goes
    past every list, which only evaluate's warning says."""
    argv = ["compare", files["gold"], files["good"], files["ranked"], "-k", "2"]
    code, out, err = run_cli(capsys, [*argv, "-m", "Recall@5", "--format", "json"])
    assert code == 0
    warnings = json.loads(out)["warnings"]
    assert [DEPTH_SAID in w for w in warnings["ranked"]] == [True]
    assert "@5" in warnings["ranked"][0]


# --- computed once, from evaluate's function, only where shown -----------------------------


@pytest.fixture
def computed(monkeypatch):
    """How often evaluate's warnings and its no-answer summary were computed."""
    counts = {"warnings": 0, "no_answer": 0}
    for name, attribute in (("warnings", "collect_warnings"), ("no_answer", "no_answer_summary")):
        original = getattr(evaluate_module, attribute)

        def counted(*args, _name=name, _original=original, **kwargs):
            counts[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(evaluate_module, attribute, counted)
    return counts


@pytest.mark.parametrize("fmt", ["table", "json"])
@pytest.mark.parametrize("command", ["check", "compare"])
def test_the_warnings_are_computed_once_and_no_more_is(capsys, files, computed, command, fmt):
    """One call of evaluate's own function per command; the no-answer summary, which
    neither shows, is never computed."""
    argv = {
        "check": ["check", files["gold"], files["faiss"], "--require", "Recall@3>=0.5"],
        "compare": ["compare", files["gold"], files["good"], files["faiss"]],
    }[command]
    code, _, _ = run_cli(capsys, [*argv, "--format", fmt])
    assert code == 0
    assert computed == {"warnings": 1, "no_answer": 0}


# --- the report ----------------------------------------------------------------------------


def report_text(capsys, tmp_path, runs: dict[str, list], suffix: str) -> str:
    folder = tmp_path / "ws"
    write_jsonl(folder / "gold.jsonl", [gold_row(q, r) for q, r in GOLD.items()])
    for name, rows in runs.items():
        write_text(folder / "runs" / f"{name}.csv", csv_text(rows))
    target = tmp_path / f"report{suffix}"
    code, _, err = run_cli(capsys, ["report", folder, "-o", target, "-k", "2"])
    assert code == 0, err
    text = target.read_text("utf-8")
    return html.unescape(text) if suffix == ".html" else text


def no_answer_section(text: str, suffix: str) -> str:
    """The report's no-answer section: the lines from its heading to the next one."""
    if suffix == ".csv":
        # a comment line is one CSV cell: quoted when it holds a comma
        lines = text.splitlines()
        return "\n".join(line for line in lines if line.lstrip('"').startswith("# no-answer"))
    heading = {".md": "## No-answer queries", ".html": "<h2>No-answer queries</h2>"}[suffix]
    after = text.split(heading, 1)[1]
    return after.split("<h2>" if suffix == ".html" else "\n## ", 1)[0]


@pytest.mark.parametrize("suffix", [".md", ".html", ".csv"])
def test_the_report_says_it_beside_its_no_answer_numbers(capsys, tmp_path, suffix):
    text = report_text(capsys, tmp_path, {"faiss": DISTANCES, "good": SIMILARITIES}, suffix)
    section = no_answer_section(text, suffix)
    assert "1 no-answer query outside the means, 1 still got results" in section
    assert section.count(SAID) == 1 and WHAT_TO_DO in section
    assert "faiss.csv" in section


@pytest.mark.parametrize("suffix", [".md", ".html", ".csv"])
def test_a_report_of_runs_read_as_given_has_no_distance_warning(capsys, tmp_path, suffix):
    text = report_text(capsys, tmp_path, {"good": SIMILARITIES}, suffix)
    assert "1 no-answer query outside the means" in no_answer_section(text, suffix)
    assert SAID not in text


# --- secrets -------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_a_run_in_a_secret_folder_is_warned_of_without_it(capsys, tmp_path, files, fmt):
    run = write_text(tmp_path / SECRET / "faiss.csv", csv_text(DISTANCES))
    for argv in (
        ["check", files["gold"], run, "--require", "Recall@3>=0.5"],
        ["compare", files["gold"], files["good"], run],
    ):
        code, out, err = run_cli(capsys, [*argv, "--format", fmt])
        assert code == 0, err
        assert SAID in out + err and "[redacted]" in out + err
        assert SECRET not in out + err
