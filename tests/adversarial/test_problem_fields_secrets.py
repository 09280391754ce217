"""A secret in a path never leaves through a problem's file, value or expected (stop 50).

``Problem`` cuts its ``file`` and ``expected`` to 500 characters (head and end), but only a
caller can redact them (``errors.py`` is above ``inputs/secrets.py``), and no caller did: a
folder or a file named with a token (an upload's name, a workspace folder, a run file, an
``-o`` target, ``$GITHUB_STEP_SUMMARY``) was printed whole in every problem about the file,
and a token across the cut left a piece that redaction no longer knows. Each attack puts
a provider token (a shape ``inputs/secrets.py`` redacts) into a folder of a path long enough
to be cut, at the head's cut, across the end's cut and whole in the head, and reads every
place a problem goes: the command's stderr (exit 2, one line per problem), its stdout, and
``InputError.problems`` as fields and as JSON.

Ids are not paths: a query id, a run name or an annotator shaped like a key is shown as the
file writes it (a pending decision), so no attack here puts a secret in one.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.errors import MAX_FIELD_CHARS
from ragrecall_core.inputs.secrets import redact_path
from tests import fixtures_regressions as fx
from tests.helpers import run_cli, write_jsonl, write_text

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" + "K1l2M3n4O5p6Q7r8"  # a GitHub token's shape
PASSWORD = "Zq81-" + "S3cr3t-Passw0rd"  # in a folder "admin:<password>@db.internal"
HEAD = MAX_FIELD_CHARS // 2  # the characters of a cut field's head (its end: the rest)


def pieces(secret: str, size: int = 8) -> list[str]:
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


def leaked(text: str) -> list[str]:
    """Every 8-character piece of a secret that ``text`` holds."""
    return [p for secret in (TOKEN, PASSWORD) for p in pieces(secret) if p in text]


# where the secret folder starts in the path, and how many characters follow its start
PLACES = {
    "across the head's cut": (HEAD - 10, MAX_FIELD_CHARS),
    "across the end's cut": (HEAD + 60, HEAD + 12),
    "whole in the head": (HEAD - 100, MAX_FIELD_CHARS),
    # a value (a path said as what was got) keeps its last 40 characters: the secret's end
    "across a value's end cut": (MAX_FIELD_CHARS + 100, 50),
}


def secret_folder(tmp_path: Path, place: str, secret: str = TOKEN, name: str = "x.jsonl") -> Path:
    """A folder named ``secret`` under ``tmp_path``, in a path whose file ``name`` puts the
    secret at ``place`` (the file's path is longer than a problem keeps)."""
    start, rest = PLACES[place]
    base = str(tmp_path) + "/"
    pad = start - len(base) - 1
    assert pad > 0, "tmp_path is too long for the placement"
    tail = max(1, rest - len(secret) - len(name) - 2)
    folder = tmp_path.joinpath(*folders("p", pad), secret, *folders("q", tail))
    folder.mkdir(parents=True)
    assert len(str(folder / name)) > MAX_FIELD_CHARS
    return folder


def folders(letter: str, length: int) -> list[str]:
    """Folders of ``letter`` whose path (separators included) is ``length`` characters."""
    names, left = [], length
    while left > 100:
        names.append(letter * 99)
        left -= 100
    return [*names, letter * left]


def refused(capsys, argv) -> str:
    """The command's stdout and stderr; it must be refused with one line per problem."""
    code, out, err = run_cli(capsys, argv)
    assert code == 2, err
    assert err.startswith("ragrecall: invalid input\n")
    assert all(line and ": got " in line for line in err.splitlines()[1:]), err
    return out + err


def problem_texts(error: InputError) -> str:
    """Every field of every problem, as the API gives them and as JSON."""
    return "\n".join(
        [str(error)]
        + [f"{p.file}\n{p.value}\n{p.expected}" for p in error.problems]
        + [json.dumps([asdict(p) for p in error.problems], ensure_ascii=False)]
    )


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> dict[str, Path]:
    return fx.paths(fx.write_workspace(tmp_path_factory.mktemp("good")))


@pytest.fixture
def tmp_path(tmp_path_factory) -> Path:
    """A short folder (the test's name is not in it), so every placement is reachable."""
    return tmp_path_factory.mktemp("s")


# --- the files a command reads -------------------------------------------------------------


@pytest.mark.parametrize("place", PLACES)
def test_a_gold_file_in_a_secret_folder_shows_no_piece_of_it(capsys, tmp_path, good, place):
    gold = write_text(secret_folder(tmp_path, place) / "x.jsonl", '{"id": 1}\n')
    assert leaked(refused(capsys, ["evaluate", gold, good["baseline"]])) == []
    with pytest.raises(InputError) as raised:
        Workspace.from_files(gold, [good["baseline"]])
    assert leaked(problem_texts(raised.value)) == []


@pytest.mark.parametrize("place", PLACES)
def test_a_run_file_in_a_secret_folder_shows_no_piece_of_it(capsys, tmp_path, good, place):
    run = write_text(secret_folder(tmp_path, place) / "x.jsonl", '{"id": "t01"}\n')
    assert leaked(refused(capsys, ["evaluate", good["gold"], run])) == []


@pytest.mark.parametrize("place", PLACES)
def test_a_missing_file_in_a_secret_folder_shows_no_piece_of_it(capsys, tmp_path, good, place):
    missing = secret_folder(tmp_path, place) / "x.jsonl"
    assert leaked(refused(capsys, ["evaluate", good["gold"], missing])) == []
    with pytest.raises(InputError) as raised:
        Workspace.from_files(good["gold"], [missing])
    assert leaked(problem_texts(raised.value)) == []


@pytest.mark.parametrize("place", PLACES)
def test_a_run_config_in_a_secret_folder_shows_no_piece_of_it(capsys, tmp_path, good, place):
    folder = secret_folder(tmp_path, place, name="x.config.json")
    run = write_jsonl(folder / "x.jsonl", [fx.run_line("t01", ["doc-a#c1"])])
    write_text(folder / "x.config.json", '{"a": 1,}')
    assert leaked(refused(capsys, ["evaluate", good["gold"], run])) == []


@pytest.mark.parametrize("place", PLACES)
def test_a_password_folder_in_a_path_shows_no_piece_of_it(capsys, tmp_path, good, place):
    folder = secret_folder(tmp_path, place, secret=f"admin:{PASSWORD}@db.internal")
    run = write_text(folder / "x.jsonl", '{"id": "t01"}\n')
    assert leaked(refused(capsys, ["evaluate", good["gold"], run])) == []


@pytest.mark.parametrize("place", PLACES)
def test_two_runs_of_one_name_name_no_piece_of_a_secret_folder(capsys, tmp_path, good, place):
    first = secret_folder(tmp_path, place)
    second = first.parent / "other"
    for folder in (first, second):
        write_jsonl(folder / "x.jsonl", [fx.run_line("t01", ["doc-a#c1"])])
        write_text(folder / "x.config.json", '{"name": "same"}')
    assert (
        leaked(refused(capsys, ["evaluate", good["gold"], first / "x.jsonl", second / "x.jsonl"]))
        == []
    )


@pytest.mark.parametrize("place", PLACES)
def test_grades_files_in_a_secret_folder_name_no_piece_of_it(capsys, tmp_path, good, place):
    folder = secret_folder(tmp_path, place)
    row = {"query_id": "t01", "chunk_id": "doc-a#c1", "grade": 2, "annotator": "anna"}
    one = write_jsonl(folder / "x.jsonl", [row])  # one grade in two files: refused
    two = write_jsonl(folder.parent / "y.jsonl", [row])
    argv = ["evaluate", good["gold"], good["baseline"], "--grades", one, "--grades", two]
    assert leaked(refused(capsys, argv)) == []


# --- a workspace folder ---------------------------------------------------------------------


@pytest.mark.parametrize("place", PLACES)
def test_a_workspace_in_a_secret_folder_shows_no_piece_of_it(capsys, tmp_path, place):
    folder = secret_folder(tmp_path, place, name="runs")
    assert leaked(refused(capsys, ["verdicts", folder])) == []  # no gold file
    write_jsonl(folder / "gold.jsonl", [{"id": "t01", "query": "q", "relevant_ids": ["a"]}])
    assert leaked(refused(capsys, ["verdicts", folder])) == []  # no run files
    (folder / "runs").mkdir()
    os.symlink(tmp_path, folder / "runs" / "out.jsonl")
    assert leaked(refused(capsys, ["verdicts", folder])) == []  # a link out of it
    with pytest.raises(InputError) as raised:
        Workspace.open(folder)
    assert leaked(problem_texts(raised.value)) == []


def test_a_missing_workspace_in_a_secret_folder_shows_no_piece_of_it(capsys, tmp_path):
    missing = secret_folder(tmp_path, "across the head's cut", name="ws") / "ws"
    assert leaked(refused(capsys, ["verdicts", missing])) == []


# --- files a command writes, and options ----------------------------------------------------


@pytest.mark.parametrize("place", PLACES)
def test_an_output_in_a_secret_folder_shows_no_piece_of_it(capsys, tmp_path, good, place):
    folder = secret_folder(tmp_path, place)
    argv = ["pool", good["gold"], good["baseline"], "-o", folder / "missing" / "x.jsonl"]
    assert leaked(refused(capsys, argv)) == []
    argv = ["pool", good["gold"], good["baseline"], "-o", folder]
    assert leaked(refused(capsys, argv)) == []


def test_a_step_summary_in_a_secret_folder_shows_no_piece_of_it(
    capsys, tmp_path, good, monkeypatch
):
    folder = secret_folder(tmp_path, "across a value's end cut", name="missing/summary.md")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(folder / "missing" / "summary.md"))
    argv = ["check", good["gold"], good["baseline"], "--require", "Recall@5>=0.1"]
    assert leaked(refused(capsys, argv)) == []


def test_a_key_given_as_the_key_variable_is_not_shown(capsys, tmp_path, good):
    """``--api-key-env`` names a variable; a user who passes the key itself is told it is
    not set, without the key."""
    workspace = Path(good["gold"]).parent
    argv = ["judge", workspace, "--judge", "openai", "--base-url", "http://127.0.0.1:9/v1"]
    text = refused(capsys, [*argv, "--model", "m", "--api-key-env", TOKEN])
    assert "--api-key-env" in text and leaked(text) == []


# --- the one helper -----------------------------------------------------------------------


HASH = "3f9a0c1e" * 4  # a folder named by a hash: a name, shown (stop 51)


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (f"/data/{TOKEN}/gold.jsonl", "/data/[redacted]/gold.jsonl"),
        (f"/data/admin:{PASSWORD}@db.internal/x", "/data/[redacted]@db.internal/x"),
        (f"C:\\data\\{TOKEN}\\gold.jsonl", "C:\\data\\[redacted]\\gold.jsonl"),
        # a random folder costs that folder alone, not the folders around it
        (
            f"/home/u/.ragrecall/{TOKEN}x/uploads/gold.jsonl",
            "/home/u/.ragrecall/[redacted]/uploads/gold.jsonl",
        ),
        (f"/home/u/.ragrecall/uploads/{HASH}/gold.jsonl", None),
        ("/tmp/pytest-of-root/pytest-7/test_name0/runs/bm25-v2.jsonl", None),
        ("runs/e5-large-v2_top-k=10.config.json", None),
    ],
)
def test_a_path_is_redacted_part_by_part(path, shown):
    assert redact_path(path) == (path if shown is None else shown)
    assert redact_path(Path(path)) == redact_path(str(Path(path)))


# --- warnings and the report: the same paths, said beside a result ------------------------


@pytest.mark.parametrize("place", PLACES)
def test_a_file_read_under_other_names_is_said_without_its_secret_folder(
    capsys, tmp_path, good, place
):
    """evaluate says (stderr, or JSON's column_mapping) which columns of a file it read
    under other tools' names, naming the file."""
    run = secret_folder(tmp_path, place, name="x.csv") / "x.csv"
    write_text(run, "qid,docno,rank,score\nt01,doc-a#c1,1,0.9\n")
    for fmt in ("table", "json"):
        code, out, err = run_cli(capsys, ["evaluate", good["gold"], run, "--format", fmt])
        assert code == 0, err
        assert leaked(out + err) == []


@pytest.mark.parametrize("place", PLACES)
def test_a_run_warned_of_is_named_without_its_secret_folder(capsys, tmp_path, good, place):
    """evaluate (and the report) warn of a run whose ranks skip places, naming its file:
    the warning cut the path as a problem does, and redacted nothing."""
    run = secret_folder(tmp_path, place) / "x.jsonl"
    items = [{"chunk_id": chunk, "rank": rank} for chunk, rank in (("a", 2), ("b", 5))]
    write_jsonl(run, [{"id": "t01", "retrieved": items}])
    code, out, err = run_cli(capsys, ["evaluate", good["gold"], run])
    assert code == 0 and "skip places" in out + err, out + err
    assert leaked(out + err) == []


def test_a_cache_folder_in_a_secret_folder_is_warned_of_without_it(
    capsys, tmp_path, good, monkeypatch
):
    home = secret_folder(tmp_path, "across the end's cut", name="cache")
    write_text(home / "cache", "not a folder")
    monkeypatch.setenv("RAGRECALL_HOME", str(home))
    code, out, err = run_cli(capsys, ["evaluate", good["gold"], good["baseline"], "--cache"])
    assert code == 0 and "load cache" in err, err
    assert leaked(out + err) == []


@pytest.mark.parametrize("suffix", [".md", ".html", ".csv"])
def test_a_report_of_a_workspace_in_a_secret_folder_holds_none_of_it(capsys, tmp_path, suffix):
    """The report lists every input file with its sha256, by path."""
    folder = fx.write_workspace(secret_folder(tmp_path, "whole in the head", name="ws") / "ws")
    report = tmp_path / f"report{suffix}"
    code, out, err = run_cli(capsys, ["report", folder, "-o", report])
    assert code == 0, err
    assert leaked(out + err + report.read_text("utf-8")) == []


def test_a_grades_sheet_in_a_secret_folder_is_refused_without_it(tmp_path):
    """A sheet whose annotator only differs in case from one already there (``Anna`` beside
    the grades file's ``anna``) is refused, naming the sheet."""
    from ragrecall_core.analysis.judge_session import import_grades

    workspace = Workspace.open(fx.write_workspace(tmp_path / "ws"))
    sheet = secret_folder(tmp_path, "across the head's cut") / "x.jsonl"
    row = {"query_id": "t01", "chunk_id": "doc-a#c1", "grade": 2, "annotator": "Anna"}
    write_jsonl(sheet, [row])
    with pytest.raises(InputError) as raised:
        import_grades(workspace, sheet)
    assert leaked(problem_texts(raised.value)) == []


# --- the dashboard's sentences naming the judgment store ------------------------------------


def test_where_grades_are_stored_is_said_without_a_secret_folder(tmp_path):
    from ragrecall_core.inputs.store import StoreStatus, store_path
    from ragrecall_core.views.judge_text import store_place

    folder = fx.write_workspace(secret_folder(tmp_path, "whole in the head", name="ws") / "ws")
    workspace = Workspace.open(folder)
    read_only = StoreStatus(store_path(workspace), attached=True, writable=False)
    assert "read-only" in read_only.note
    assert leaked(store_place(workspace) + "\n" + read_only.note) == []


# --- what a command wrote, and where ------------------------------------------------------


def test_an_output_in_a_secret_folder_is_said_written_without_it(capsys, tmp_path, good):
    folder = secret_folder(tmp_path, "whole in the head")
    argv = ["pool", good["gold"], good["baseline"], "-o", folder / "pool.jsonl"]
    code, out, err = run_cli(capsys, argv)
    assert code == 0 and "written to" in out, err
    assert leaked(out + err) == []
    code, out, err = run_cli(capsys, ["report", good["gold"].parent, "-o", folder / "r.md"])
    assert code == 0 and "report written to" in out, err
    assert leaked(out + err) == []


def test_a_capture_in_a_secret_folder_is_summed_up_without_it(tmp_path):
    from ragrecall_core.analysis.capture_summary import CaptureResult

    folder = secret_folder(tmp_path, "whole in the head")
    result = CaptureResult(
        folder / "x.jsonl", folder / "x.config.json", 2, errors={"t01": "boom"}, written=True
    )
    failed = CaptureResult(
        folder / "x.jsonl",
        folder / "x.config.json",
        2,
        errors={"t01": "boom"},
        progress=folder / ".x.capture.jsonl",
        earlier_run=True,
        corpus=folder / "corpus.jsonl",
        not_in_corpus=["z"],
        retrieved_ids=3,
    )
    assert leaked(result.to_text() + failed.to_text()) == []


def test_the_dashboard_names_its_data_without_a_secret_folder(tmp_path):
    """The sidebar, the Overview and a load's spinner or refusal say where the data is."""
    from ragrecall_core.views.source import Source

    folder = secret_folder(tmp_path, "whole in the head")
    shown = [
        Source(workspace=folder).describe(),
        Source(gold=folder / "gold.jsonl", runs=(folder / "x.jsonl",)).describe(),
    ]
    assert leaked("\n".join(shown)) == []


def test_an_openai_option_given_without_its_judge_is_refused_without_its_secret(capsys, good):
    """``--base-url`` and ``--api-key-env`` go with ``--judge openai`` only; given with
    another judge, each is refused, quoting what was given."""
    workspace = Path(good["gold"]).parent
    url = f"https://admin:{PASSWORD}@llm.internal/v1"
    argv = ["judge", workspace, "--judge", "minilm", "--base-url", url, "--api-key-env", TOKEN]
    text = refused(capsys, argv)
    assert "--base-url" in text and "--api-key-env" in text and leaked(text) == []
