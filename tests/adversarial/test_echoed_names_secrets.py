"""A secret given as a name is never echoed back whole or in part (stop 51).

A problem quotes what the user gave: an unknown measure (``-m``), a cutoff, a split, a
requirement, a retriever, a share, a memory size; the dashboard quotes a link's run,
section or data key. A user who pastes a token in the wrong place (``-m $GITHUB_TOKEN``,
``?section=AKIA…``) got it printed back whole, or cut to a piece no rule recognises
(``Problem`` cuts a value to 80 characters, a link's value was cut to 80 before anything
looked at it). Each echo now redacts the whole text, then cuts it.

A CSV header list said in a problem (``columns [...]``) is cut the same way: a header
that holds a token across the cut kept a piece of it.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.errors import MAX_VALUE_CHARS
from tests import fixtures_regressions as fx
from tests.helpers import run_cli, write_text

GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" + "K1l2M3n4O5p6Q7r8"  # a GitHub token's shape
AWS_ID = "AKIA" + "QX7RZ2M4VB6NLKEY"  # an AWS access key id's shape
SECRETS = (GITHUB, AWS_ID)


def pieces(secret: str, size: int = 8) -> list[str]:
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


def leaked(text: str) -> list[str]:
    """Every 8-character piece of a secret that ``text`` holds."""
    return [p for secret in SECRETS for p in pieces(secret) if p in text]


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> dict[str, Path]:
    return fx.paths(fx.write_workspace(tmp_path_factory.mktemp("good")))


def refused(capsys, argv) -> str:
    """The command's stdout and stderr; it must be refused (exit 2), without a traceback
    (argparse's own refusal, a bad choice or an unknown option, exits from ``main``)."""
    try:
        code, out, err = run_cli(capsys, argv)
    except SystemExit as exit_:
        code, (out, err) = exit_.code, capsys.readouterr()
    assert code == 2, out + err
    assert "Traceback" not in err and err.strip(), err
    return out + err


# argv after the command, with S where the secret goes; g: the good files
COMMANDS = {
    "unknown measure": lambda g: ["evaluate", g["gold"], g["baseline"], "-m", "S"],
    "measure's cutoff": lambda g: ["evaluate", g["gold"], g["baseline"], "-m", "Recall@S"],
    "measure's name at k": lambda g: ["evaluate", g["gold"], g["baseline"], "-m", "S@5"],
    "relevance level": lambda g: ["evaluate", g["gold"], g["baseline"], "-m", "P(rel=S)@3"],
    "trec_eval level": lambda g: ["evaluate", g["gold"], g["baseline"], "-m", "P@5-lS"],
    "compare's measure": lambda g: ["compare", g["gold"], g["baseline"], g["candidate"], "-m", "S"],
    "-k": lambda g: ["evaluate", g["gold"], g["baseline"], "-k", "S"],
    "--split": lambda g: ["evaluate", g["gold"], g["baseline"], "--split", "S"],
    "--memory-limit": lambda g: ["evaluate", g["gold"], g["baseline"], "--memory-limit", "S"],
    "--rel-level": lambda g: ["evaluate", g["gold"], g["baseline"], "--rel-level", "S"],
    "--unit (a choice)": lambda g: ["evaluate", g["gold"], g["baseline"], "--unit", "S"],
    "an unknown option": lambda g: ["evaluate", g["gold"], g["baseline"], "--bogus", "S"],
    "--require's measure": lambda g: ["check", g["gold"], g["baseline"], "--require", "S>=0.5"],
    "--require's value": lambda g: ["check", g["gold"], g["baseline"], "--require", "Recall@5>=S"],
    "--require's shape": lambda g: ["check", g["gold"], g["baseline"], "--require", "S"],
    "--max-regressions": lambda g: [
        *("check", g["gold"], g["candidate"], "--baseline", g["baseline"]),
        *("--max-regressions", "S"),
    ],
    "--pass-rule": lambda g: [
        *("check", g["gold"], g["baseline"], "--require", "Recall@5>=0.1", "--pass-rule", "S")
    ],
    "--max-false-confidence": lambda g: [
        *("no-answer", g["gold"], g["baseline"], "--max-false-confidence", "S")
    ],
    "pool --depth": lambda g: [
        *("pool", g["gold"], g["baseline"], "-o", g["gold"].parent / "p.jsonl", "--depth", "S")
    ],
    "report --split": lambda g: [
        *("report", g["gold"].parent, "-o", g["gold"].parent / "r.md", "--split", "S")
    ],
    "judge --judge": lambda g: ["judge", g["gold"].parent, "--judge", "S"],
    "judge --judge module:S": lambda g: ["judge", g["gold"].parent, "--judge", "json:S"],
    "judge --judge no module": lambda g: ["judge", g["gold"].parent, "--judge", "S:x"],
    "capture --retriever": lambda g: ["capture", g["gold"], "-o", "c.jsonl", "--retriever", "S"],
    "capture --retriever module:S": lambda g: [
        *("capture", g["gold"], "-o", "c.jsonl", "--retriever", "json:S")
    ],
    "capture --retriever no module": lambda g: [
        *("capture", g["gold"], "-o", "c.jsonl", "--retriever", "S:x")
    ],
    "capture --timeout": lambda g: [
        *("capture", g["gold"], "-o", "c.jsonl", "--retriever", "json:dumps", "--timeout", "S")
    ],
    "capture --allow-errors": lambda g: [
        *("capture", g["gold"], "-o", "c.jsonl", "--retriever", "json:dumps"),
        *("--allow-errors", "S"),
    ],
    "capture --concurrency": lambda g: [
        *("capture", g["gold"], "-o", "c.jsonl", "--retriever", "json:dumps"),
        *("--concurrency", "S"),
    ],
    "ui --port": lambda g: ["ui", "--port", "S"],
}


@pytest.mark.parametrize("secret", SECRETS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_secret_given_as_an_option_value_is_not_echoed(capsys, good, command, secret):
    argv = [secret if a == "S" else str(a).replace("S", secret) for a in COMMANDS[command](good)]
    assert secret in " ".join(argv)
    assert leaked(refused(capsys, argv)) == []


@pytest.mark.parametrize("secret", SECRETS)
def test_a_long_measure_name_holding_a_secret_shows_no_piece_of_it(capsys, good, secret):
    """A measure name longer than a problem's value: the secret across its cut."""
    for before in (MAX_VALUE_CHARS // 2 - 10, MAX_VALUE_CHARS // 2 - 3, 30):
        name = "x" * before + "-" + secret + "-" + "y" * 60
        argv = ["evaluate", good["gold"], good["baseline"], "-m", name]
        assert leaked(refused(capsys, argv)) == []


def problem_texts(error: InputError) -> str:
    """Every field of every problem, as the API gives them and as JSON."""
    return "\n".join(
        [str(error)]
        + [f"{p.file}\n{p.value}\n{p.expected}" for p in error.problems]
        + [json.dumps([asdict(p) for p in error.problems], ensure_ascii=False)]
    )


def test_the_api_does_not_echo_a_secret_measure_or_run(good):
    from ragrecall_core import compare, evaluate

    workspace = Workspace.from_files(good["gold"], [good["baseline"], good["candidate"]])
    for call in (
        lambda: evaluate(workspace, measures=[GITHUB]),
        lambda: compare(workspace, AWS_ID, "baseline"),
        lambda: compare(workspace, "baseline", "candidate", k=GITHUB),
    ):
        with pytest.raises(InputError) as raised:
            call()
        assert leaked(problem_texts(raised.value)) == []


# --- a CSV header list, cut -----------------------------------------------------------------


# characters of the header names before and after the secret's: it is across the cut of
# the value's head, across the cut of its end, or whole in a list too short to be cut
AROUND = {"head's cut": (2, 40), "head's cut, late": (10, 40), "end's cut": (60, 10)}
AROUND |= {"end's cut, early": (60, 20), "not cut": (3, 3)}


@pytest.mark.parametrize("around", AROUND)
@pytest.mark.parametrize("secret", SECRETS)
def test_a_csv_header_said_in_a_problem_shows_no_piece_of_a_secret(
    capsys, tmp_path, good, around, secret
):
    """A run CSV lacking a column its role needs is refused with its header list: a header
    holding a token where the list is cut (its head, its end) or whole shows none of it."""
    before, after = AROUND[around]
    header = ["c" * before, secret, "d" * after]
    run = write_text(tmp_path / "run.csv", ",".join(header) + "\nt01,x,y\n")
    text = refused(capsys, ["evaluate", good["gold"], run])
    assert "columns" in text and leaked(text) == []
    grades = write_text(tmp_path / "grades.csv", ",".join(header) + "\nt01,x,y\n")
    text = refused(capsys, ["evaluate", good["gold"], good["baseline"], "--grades", grades])
    assert leaked(text) == []


def test_a_repeated_or_typed_header_shows_no_secret(capsys, tmp_path, good):
    """A header named twice, and a typed column, quote the column's name."""
    name = "x" * 70 + GITHUB
    twice = write_text(tmp_path / "twice.csv", f"query_id,{name},{name}\nt01,a,b\n")
    assert leaked(refused(capsys, ["evaluate", good["gold"], twice])) == []
    roles = write_text(tmp_path / "roles.csv", f"qid,query_id,{GITHUB}\nt01,t01,a\n")
    assert leaked(refused(capsys, ["evaluate", good["gold"], roles])) == []


def test_a_data_frame_whose_columns_hold_a_secret_is_refused_without_it():
    """A run given in memory names its columns as a CSV header does."""
    import pandas as pd

    from ragrecall_core import evaluate

    gold = [{"id": "t01", "query": "q", "relevant_ids": ["a"]}]
    for columns in (["query_id", GITHUB, GITHUB], ["query_id", "chunk_id", b"x" + GITHUB.encode()]):
        run = pd.DataFrame([["t01", "a", 1]], columns=columns)
        with pytest.raises(InputError) as raised:
            evaluate(gold, runs={"r": run})
        assert leaked(problem_texts(raised.value)) == []


# --- the dashboard: a link's values ---------------------------------------------------------


def test_a_link_naming_a_secret_is_refused_without_it():
    """A link's section, run or measure that is no value of the view is said in one line."""
    from ragrecall_core.views.dashboard_state import ViewOptions, read_params, unfitted

    lines = []
    for secret in SECRETS:
        long = "z" * 70 + secret + "z" * 30  # across the cut of a shown value
        for value in (secret, long):
            params = {"section": value, "k": value, "runs": [value], "baseline": value}
            asked, refused_lines = read_params(params)
            lines += refused_lines + unfitted(asked, ViewOptions(runs=("bm25",)))
    assert lines and leaked("\n".join(lines)) == []


@pytest.mark.parametrize("param", ["data", "section", "split"])
def test_a_dashboard_link_holding_a_secret_shows_none_of_it(tmp_path, monkeypatch, param):
    from tests.dashboard_support import app

    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    at = app(monkeypatch=monkeypatch, params={param: GITHUB})
    assert not at.exception
    shown = "\n".join(
        str(e.value) for kind in (at.error, at.warning, at.code, at.markdown) for e in kind
    )
    assert "URL parameter" in shown or "not among" in shown, shown
    assert leaked(shown) == []
