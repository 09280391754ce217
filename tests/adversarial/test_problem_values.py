"""How much of a value a problem carries: one rule, in ``Problem`` itself.

A long value is kept as its head and its end (``MAX_VALUE_CHARS`` of its characters) with a
marked middle cut that says how much was cut of how much, in the ``value`` every reader gets
(the text line, the API, any JSON) alike: the end of a value (a path's file name, the last
field of a key) is often what says what is wrong, and a 10 MB exception text or key is never
carried whole. Secrets are redacted by the caller, on the whole value, before the cut: no
cut leaves a piece of a secret behind."""

from __future__ import annotations

import errno
import json
import re
from dataclasses import replace

import pytest
from streamlit.testing.v1 import AppTest

from ragrecall_core.errors import CUT_MARK, MAX_VALUE_CHARS, InputError, Problem, said_of, shortened
from ragrecall_core.inputs import upload_stores
from ragrecall_core.inputs.configs import read_config_file

HEAD, END = "HEADhead", "ENDend"
LONG = HEAD + "x" * 300 + END
CUT = re.compile(re.escape(CUT_MARK).replace(r"\{cut\}", r"(\d+)").replace(r"\{total\}", r"(\d+)"))
# a GitHub token: redacted by rule wherever it stands
SECRET = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def bounded(value: str) -> bool:
    """At most MAX_VALUE_CHARS characters of the value, and one mark saying what was cut."""
    return len(CUT.sub("", value)) <= MAX_VALUE_CHARS and len(value) <= MAX_VALUE_CHARS + 50


def cut_of(value: str) -> tuple[int, int]:
    (found,) = CUT.findall(value)
    return int(found[0]), int(found[1])


def assert_both_ends(problem: Problem) -> None:
    """The text line shows the value's head and its end; the value itself is bounded and
    says it was cut, and by how much."""
    line = str(problem)
    assert HEAD in line and END in line, line
    assert bounded(problem.value), problem.value
    assert HEAD in problem.value and END in problem.value and CUT.search(problem.value)


def assert_no_piece_of(secret: str, text: str) -> None:
    pieces = {secret[i : i + 8] for i in range(len(secret) - 7)}
    assert not [p for p in pieces if p in text], text


# --- the rule -----------------------------------------------------------------------------


def test_a_long_value_keeps_its_head_and_end_and_says_how_long_it_was():
    value = HEAD + "v" * 10_000_000 + END
    problem = Problem("run.jsonl", 4, value, "a short value")
    assert_both_ends(problem)
    shown = len(CUT.sub("", problem.value))
    assert cut_of(problem.value) == (len(value) - shown, len(value))
    assert problem.value.startswith(HEAD) and problem.value.endswith(END)
    assert str(problem) == f"run.jsonl:4: got {problem.value!r}, expected a short value"


def test_a_value_of_the_limit_is_kept_whole():
    assert Problem("f", None, "v" * MAX_VALUE_CHARS, "e").value == "v" * MAX_VALUE_CHARS
    assert cut_of(Problem("f", None, "v" * (MAX_VALUE_CHARS + 1), "e").value) == (1, 81)


def test_a_cut_value_cut_again_still_counts_every_character():
    """A loader that says a problem of its query (``query 'q1': <value>``) builds a new
    problem from a cut value: the second cut adds to the first count, never hides it."""
    inner = Problem("f", 1, HEAD + "v" * 5000 + END, "e")
    outer = Problem("f", 1, said_of("query 'q1': ", inner.value), "e")
    assert bounded(outer.value) and outer.value.endswith(END)
    assert cut_of(outer.value)[1] == len("query 'q1': ") + len(HEAD) + 5000 + len(END)
    assert outer.value.startswith("query 'q1': HEAD")


def test_a_problem_rebuilt_from_a_cut_value_keeps_it():
    """``dataclasses.replace(problem, line=None)`` (a loader dropping a line number) builds
    the problem again from its cut value: the second cut changes nothing."""
    problem = Problem("f", 3, HEAD + "v" * 5000 + END, "e")
    assert replace(problem, line=None).value == problem.value
    assert shortened(problem.value) == problem.value


def test_a_value_that_is_not_text_is_carried_as_text():
    assert Problem("f", None, 10**100, "e").value.startswith("1000")


# --- every path that cut a value at its head ----------------------------------------------


def config_problems(tmp_path, text: str) -> list[Problem]:
    path = tmp_path / "dense.config.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as error:
        read_config_file(path)
    return error.value.problems


def test_a_long_config_key_given_twice_shows_its_end(tmp_path):
    key = HEAD.lower() + "_" + "x" * 300 + "_" + END.lower()
    (problem,) = config_problems(tmp_path, json.dumps({key: 1}).replace("}", f', "{key}": 2}}'))
    line = str(problem)
    assert HEAD.lower() in line and END.lower() + "' twice" in line, line
    assert bounded(problem.value) and CUT.search(problem.value)


def test_a_long_config_name_shows_its_end(tmp_path):
    (problem,) = config_problems(tmp_path, json.dumps({"name": [HEAD, "x" * 300, END]}))
    assert_both_ends(problem)


def test_a_long_non_finite_number_shows_its_end(tmp_path):
    number = "1" + "0" * 300 + "e999"
    (problem,) = config_problems(tmp_path, '{"hybrid_weight": ' + number + "}")
    assert str(problem).count("0") > 10 and "e999" in str(problem)
    assert bounded(problem.value) and cut_of(problem.value)[1] == len(number)


@pytest.fixture
def manifest(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    path = tmp_path / "uploads" / "0123456789abcdef.json"
    path.parent.mkdir()
    return path


def test_a_long_manifest_record_shows_its_end(manifest):
    manifest.write_text(json.dumps([HEAD, "x" * 300, END]))
    with pytest.raises(InputError) as error:
        upload_stores.read_manifest(manifest)
    assert_both_ends(error.value.problems[0])


def test_an_unreadable_manifest_names_the_end_of_its_error(tmp_path):
    folder = tmp_path / ("d" * 200)
    folder.mkdir()
    manifest = folder / f"{HEAD}.json"
    manifest.mkdir()  # reading a folder: the OSError text ends with the long path
    with pytest.raises(InputError) as error:
        upload_stores.read_manifest(manifest)
    (problem,) = error.value.problems
    assert problem.value.endswith(f"{HEAD}.json'") and bounded(problem.value)


def test_a_long_store_choice_and_digest_show_their_end(manifest):
    with pytest.raises(InputError) as error:
        upload_stores.choose(manifest, LONG)
    assert_both_ends(error.value.problems[0])
    manifest.write_text(json.dumps({"gold_sha256": LONG}))
    with pytest.raises(InputError) as error:
        upload_stores.choose(manifest, upload_stores.SHARED)
    assert_both_ends(error.value.problems[0])


def test_a_long_pass_rule_shows_its_end():
    from ragrecall_core.analysis.pass_rule import require_rule

    with pytest.raises(InputError) as error:
        require_rule(LONG)
    assert_both_ends(error.value.problems[0])


def test_a_long_data_key_shows_its_end(manifest):
    from ragrecall_app.context import open_upload

    with pytest.raises(InputError) as error:
        open_upload(LONG)
    assert_both_ends(error.value.problems[0])


def test_a_long_os_error_text_shows_its_end(tmp_path):
    from ragrecall_app.context import _uploads_written

    with pytest.raises(InputError) as error, _uploads_written(tmp_path / "m.json"):
        raise OSError(errno.EACCES, "Permission denied", "/" + "d" * 300 + "/" + END)
    (problem,) = error.value.problems
    assert problem.value.startswith("[Errno 13] Permission") and problem.value.endswith(END + "'")
    assert bounded(problem.value) and END in str(problem)


# --- secrets: redacted whole, before any cut ------------------------------------------------


@pytest.mark.parametrize("at", [0, 20, 30, 37, 45, 60, 75, 79, 2030, 2040, 2047, 2060])
def test_a_secret_across_a_cut_leaves_no_piece_in_a_key(tmp_path, at):
    """The secret straddles each place a cut fell or falls: the old head cut (80), the
    middle cut's two ends, and the 2 KB of a text that redaction inspects."""
    key = "k" * at + " " + SECRET + " " + "z" * 3000
    key_before = key[: at + 1 + 20]  # a key ending inside the secret
    for bad_key in (key, key_before, key[-(at + 60) :] + " " + SECRET):
        (problem,) = config_problems(
            tmp_path, json.dumps({bad_key: 1}).replace("}", f", {json.dumps(bad_key)}: 2}}")
        )
        assert_no_piece_of(SECRET, problem.value)
        assert_no_piece_of(SECRET, str(problem))


@pytest.mark.parametrize("at", [0, 30, 45, 79, 2040])
def test_a_secret_across_a_cut_leaves_no_piece_in_a_name(tmp_path, at):
    name = ["n" * at + " " + SECRET + " " + "z" * 3000, "x" * at + " " + SECRET]
    (problem,) = config_problems(tmp_path, json.dumps({"name": name}))
    assert_no_piece_of(SECRET, problem.value)
    assert_no_piece_of(SECRET, str(problem))


# --- the dashboard shows a problem as plain text --------------------------------------------

MARKDOWN = "**bold** [link](javascript:alert(1)) <b>x</b> `code`"


def _page(value: str, title: str):
    from ragrecall_app.render import problems
    from ragrecall_core.errors import InputError, Problem

    problems(InputError([Problem("f.jsonl", 1, value, "e")]), title)


def test_the_dashboard_shows_a_problem_and_its_title_as_plain_text():
    value = MARKDOWN + "x" * 300 + END
    at = AppTest.from_function(_page, args=(value, f"{MARKDOWN}.jsonl was not imported"))
    at.run(timeout=30)
    assert not at.exception
    (code,) = at.code
    assert code.value == str(Problem("f.jsonl", 1, value, "e")) and END in code.value
    (headline,) = at.error
    assert "**bold**" not in headline.value and "[link](" not in headline.value
    assert "\\*\\*bold\\*\\*" in headline.value
    assert not at.markdown
