"""Every output of evaluate's warnings redacts them, as the gate's CI files do.

A warning is prose for people, and it quotes ids from files: "3 run queries not in the gold
set were ignored (e.g. ghp_…)". Since stop 52 the gate's summary and JUnit XML redacted such
a warning, but evaluate, check and compare printed the same one in full on stderr, in their
table and under JSON's ``warnings``. One rule now: a warning's text is redacted wherever it
is said; the warning itself stays, readable. The per-query id fields of JSON and CSV are
data and stay as the file writes them (not tested here).
"""

from __future__ import annotations

import json

import pytest

from ragrecall_core.inputs.secrets import REDACTED, redact_warnings
from ragrecall_core.scoring.evaluate import RunWarning
from tests.helpers import run_cli, write_jsonl, write_text

GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" + "K1l2M3n4O5p6Q7r8"  # a GitHub token's shape
AWS_ID = "AKIA" + "QX7RZ2M4VB6NLKEY"  # an AWS access key id's shape
SECRETS = (GITHUB, AWS_ID)
IGNORED = "run queries not in the gold set were ignored"
TIES = "tied scores at ranks 1 and 2: @1 depends on tie order"


def leaked(text: str) -> list[str]:
    """Every 8-character piece of a secret that ``text`` holds."""
    return [s[i : i + 8] for s in SECRETS for i in range(len(s) - 7) if s[i : i + 8] in text]


@pytest.fixture
def files(tmp_path):
    """Two runs whose q1 ties at ranks 1 and 2 and which list queries the gold set lacks,
    their ids shaped like secrets (evaluate's "ignored" warning quotes them)."""
    rows = ["q1,a,1,0.9", "q1,b,2,0.9", "q2,c,1,0.8", "plain,a,1,0.5"]
    rows += [f"{q},a,1,0.5" for q in SECRETS]
    text = "query_id,chunk_id,rank,score\n" + "\n".join(rows) + "\n"
    return {
        "gold": write_jsonl(
            tmp_path / "gold.jsonl",
            [{"id": "q1", "query": "one", "relevant_ids": ["a"]}]
            + [{"id": "q2", "query": "two", "relevant_ids": ["c"]}],
        ),
        "base": write_text(tmp_path / "runs" / "base.csv", text),
        "cand": write_text(tmp_path / "runs" / "cand.csv", text),
        "workspace": tmp_path,
    }


COMMANDS = {
    "evaluate": lambda f: ["evaluate", f["gold"], f["base"], "-m", "Recall@1"],
    "check": lambda f: ["check", f["gold"], f["base"], "--require", "Recall@1>=0.5"],
    "compare": lambda f: ["compare", f["gold"], f["base"], f["cand"], "-k", "1"],
}


def said_warnings(fmt: str, out: str, err: str) -> list[str]:
    """Every warning a command said: JSON's ``warnings`` (evaluate's per run, the others'
    run -> texts), or its ``warning:`` lines on stdout and stderr."""
    if fmt != "json":
        return [line for line in (out + err).splitlines() if line.startswith("warning: ")]
    data = json.loads(out)
    if "warnings" in data:
        return [text for texts in data["warnings"].values() for text in texts]
    return [text for run in data["runs"] for text in run["warnings"]]


@pytest.mark.parametrize("fmt", ["table", "json"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_warning_quoting_a_secret_shaped_id_is_said_redacted(capsys, files, command, fmt):
    code, out, err = run_cli(capsys, [*COMMANDS[command](files), "--format", fmt])
    assert code in (0, 1), err
    assert leaked(out + err) == [], (out, err)
    said = said_warnings(fmt, out, err)
    ignored = [text for text in said if IGNORED in text]
    assert len(ignored) == (2 if command == "compare" else 1), said  # one per run read
    for text in ignored:  # the warning stays, readable: its count, the plain id, the marker
        assert "3 " + IGNORED in text and "plain" in text, text
        assert text.count(REDACTED) == 2, text
    assert any(TIES in text for text in said), said


def test_a_report_says_the_warning_redacted(capsys, files, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.md"
    code, _, err = run_cli(capsys, ["report", files["workspace"], "-k", "1", "-o", out])
    assert code == 0, err
    text = out.read_text("utf-8")
    assert leaked(text) == []
    lines = [line for line in text.splitlines() if IGNORED in line]
    assert len(lines) == 2, text  # one per run
    for line in lines:  # Markdown escapes the marker's brackets
        assert line.count("redacted") == 2 and "plain" in line, line


def test_the_python_api_and_the_dashboard_say_the_warning_redacted(files, monkeypatch):
    """Redacted where evaluate makes its warnings: the API's ``warnings`` and the
    Overview's "Validation warnings" read the same texts as every command."""
    from ragrecall_core import Workspace, evaluate
    from tests.dashboard_support import app, no_exception

    warnings = evaluate(Workspace.from_files(files["gold"], [files["base"]]), ["Recall@1"])
    (texts,) = warnings.warnings.values()
    assert leaked(" ".join(texts)) == [] and any(IGNORED in text for text in texts), texts
    at = app(files["workspace"], monkeypatch)
    no_exception(at)
    shown = [w.value for w in at.warning]
    assert leaked(" ".join(shown)) == [], shown
    assert sum(IGNORED in text for text in shown) == 2, shown  # one per run


def test_redacting_keeps_a_warnings_kind_and_cutoff():
    """A view at another k reads a warning's cutoff, the report its class: both survive."""
    tie = RunWarning.at_cutoff(f"q {GITHUB} tied at ranks 5 and 6", 5)
    plain = f"1 run query not in the gold set was ignored ({AWS_ID})"
    said = redact_warnings({"run": [tie, plain, "nothing to hide"], "quiet": []})
    assert list(said) == ["run", "quiet"] and said["quiet"] == []
    redacted_tie, redacted_plain, kept = said["run"]
    assert type(redacted_tie) is RunWarning and redacted_tie.cutoff == 5
    assert redacted_tie == f"q {REDACTED} tied at ranks 5 and 6"
    assert redacted_plain == f"1 run query not in the gold set was ignored ({REDACTED})"
    assert kept == "nothing to hide"


def test_a_run_name_is_kept_as_the_file_writes_it():
    """Run names key the warnings (a reader looks its run up): an id from a file, shown as
    written, as in every table; only the prose is redacted."""
    assert redact_warnings({"token": ["2 queries have tied scores"]}) == {
        "token": ["2 queries have tied scores"]
    }


# --- a run read backwards: its warning quotes a query id, and no-answer says it too --------


@pytest.fixture
def distances(tmp_path):
    """A rankless run whose scores rise as given (distances), the query they rise in shaped
    like a token: evaluate's warning quotes that query's id, and so does no-answer's."""
    gold = [{"id": GITHUB, "query": "one", "relevant_ids": ["a"]}]
    gold += [{"id": "na", "query": "none", "relevant_ids": []}]
    rows = [f"{GITHUB},a,0.1", f"{GITHUB},b,0.5", "na,c,0.2", "na,d,0.3"]
    return {
        "gold": write_jsonl(tmp_path / "gold.jsonl", gold),
        "run": write_text(tmp_path / "faiss.csv", "query_id,chunk_id,score\n" + "\n".join(rows)),
    }


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_no_answer_says_a_run_read_backwards_without_the_id(capsys, distances, fmt):
    argv = ["no-answer", distances["gold"], distances["run"], "--format", fmt]
    code, out, err = run_cli(capsys, argv)
    assert code == 0, err
    assert leaked(out + err) == [], out
    assert "as distances do" in out and f"({REDACTED!r}: 0.1, 0.5)" in out, out
