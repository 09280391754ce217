"""The built-in OpenAI-compatible judge (issue 32), against a local server that speaks
``/v1/chat/completions`` (no network here). The API key never leaves: not in the store,
the config, stdout or stderr, even when the server echoes it back."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ragrecall_core import Workspace
from ragrecall_core.errors import InputError
from ragrecall_core.inputs import store
from ragrecall_core.judges.openai_chat import PROMPT, OpenAIChatJudge, read_answer
from tests.helpers import write_text
from tests.test_assist_judge import assist_workspace
from tests.test_capture import run_cli_in

KEY = "local-test-key-" + "with-no-known-shape-4217"  # not caught by a secret shape
KEY_ENV = "RAGRECALL_TEST_JUDGE_KEY"


class ChatServer(BaseHTTPRequestHandler):
    """Grades 2 a passage ending in D, 0 otherwise; 401 (echoing the key) without it."""

    seen: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(
            {
                "path": self.path,
                "auth": self.headers.get("Authorization"),
                "content": body["messages"][0]["content"],
            }
        )
        if self.path != "/v1/chat/completions":
            return self.answer(404, {"error": "not found"})
        if self.headers.get("Authorization") != f"Bearer {KEY}":
            said = str(self.headers.get("Authorization")).removeprefix("Bearer ")
            return self.answer(401, {"error": f"wrong: {said}"})  # echoes the key itself
        passage = body["messages"][0]["content"].split("Passage: ", 1)[1].split("\n", 1)[0]
        grade = 2 if passage.endswith("D") else 0
        content = f"Reason: saw {passage}\nGrade: {grade}"
        self.answer(200, {"choices": [{"message": {"role": "assistant", "content": content}}]})

    def answer(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    ChatServer.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ChatServer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def everything_written(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def test_the_command_grades_through_the_endpoint_and_never_keeps_the_key(
    tmp_path, server, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, KEY)
    folder = assist_workspace(tmp_path / "ws")
    argv = ["judge", folder, "--judge", "openai", "--base-url", server, "--model", "tiny"]
    code, out, err = run_cli_in(tmp_path, [*argv, "--api-key-env", KEY_ENV])
    assert (code, err) == (0, ""), err
    assert "judge:openai:tiny graded 7 pairs" in out
    assert {s["path"] for s in ChatServer.seen} == {"/v1/chat/completions"}
    ws = Workspace.open(folder)
    store.open_store(ws)
    grades = store.judge_grades(ws, "judge:openai:tiny").set_index(["query_id", "chunk_id"])
    assert grades.grade[("q1", "D")] == 2 and grades.grade[("q1", "E")] == 0
    assert grades.reason[("q1", "D")] == "saw text D"
    config = json.loads(store.judge_runs(ws).config.iloc[0])
    assert config["judge_env_variable"] == KEY_ENV and config["judge_model"] == "tiny"
    assert KEY not in out + err + json.dumps(config)
    ws.con.close()
    assert KEY.encode() not in everything_written(tmp_path)


def test_a_server_echoing_the_key_in_its_error_never_shows_it(tmp_path, server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY[:-1] + "X")  # a wrong key: 401, the server echoes it
    folder = assist_workspace(tmp_path / "ws")
    argv = ["judge", folder, "--judge", "openai", "--base-url", server, "--model", "m"]
    code, out, err = run_cli_in(tmp_path, [*argv, "--api-key-env", KEY_ENV])
    assert code == 1
    assert "HTTP 401" in out
    assert KEY[:-1] not in out + err


def test_the_prompt_can_be_replaced_and_must_hold_both_texts(tmp_path, server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    with pytest.raises(InputError) as error:
        OpenAIChatJudge(server, "m", KEY_ENV, prompt="Query: {query}")
    assert "{passage}" in str(error.value)
    judge = OpenAIChatJudge(server, "m", KEY_ENV, prompt="Q {query}\nPassage: {passage}\n")
    assert judge("q", "text D") == {"grade": 2, "reason": "saw text D"}
    assert judge.config()["judge_prompt_is_default"] is False
    assert KEY not in repr(judge) + json.dumps(judge.config())


def test_bad_settings_are_reported_at_once(tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    folder = assist_workspace(tmp_path / "ws")
    write_text(tmp_path / "p.txt", "no placeholders")
    argv = ["judge", folder, "--judge", "openai", "--base-url", "ftp://x", "--model", " "]
    code, out, err = run_cli_in(tmp_path, [*argv, "--api-key-env", KEY_ENV])
    assert code == 2
    for said in ("--base-url", "--model", f"{KEY_ENV} is not set"):
        assert said in err
    code, _, err = run_cli_in(tmp_path, ["judge", folder, "--judge", "openai"])
    assert code == 2 and "--base-url" in err and "--model" in err
    code, _, err = run_cli_in(tmp_path, ["judge", folder, "--judge", "m:f", "--model", "x"])
    assert code == 2 and "--judge openai, which it configures" in err


def test_a_long_bad_base_url_keeps_its_end_and_never_its_key():
    """The URL is shortened in its middle by the one rule (Problem), after its secrets are
    redacted: the end, where the mistake often is, stays readable."""
    url = "ftp://" + "h" * 200 + "/v1/end-of-url?api_key=sk-" + "a" * 40
    with pytest.raises(InputError) as raised:
        OpenAIChatJudge(url, "m", api_key_env="")
    said = str(raised.value)
    assert "/end-of-url?api_key=" in said
    assert "a" * 20 not in said


@pytest.mark.parametrize(
    ("text", "grade", "reason"),
    [
        ("Reason: fits\nGrade: 2", 2, "fits"),
        ("grade = 1", 1, ""),
        ("Grade: 0 ... on reflection\nGrade: **2**", 2, ""),
        ("Grade: 3", 3, ""),  # refused by the caller as no grade of 0-2
    ],
)
def test_the_answer_is_read_from_its_last_grade_line(text, grade, reason):
    assert read_answer(text) == {"grade": grade, "reason": reason}


def test_an_answer_without_a_grade_is_an_error():
    with pytest.raises(ValueError, match="no 'Grade: N' line"):
        read_answer("I think it is relevant")


def test_the_default_prompt_holds_both_texts_and_the_scale():
    assert "{query}" in PROMPT and "{passage}" in PROMPT and "2 = " in PROMPT


def test_a_redirect_is_refused_and_never_carries_the_key(monkeypatch):
    """A server redirecting elsewhere (302): urllib would follow it, as a GET carrying the
    Authorization header; the judge refuses it, and the other server sees nothing."""
    reached: list[str | None] = []

    class Elsewhere(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            reached.append(self.headers.get("Authorization"))
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_GET  # noqa: N815

        def log_message(self, *args) -> None:
            pass

    other = ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)

    class Redirecting(Elsewhere):
        def do_POST(self) -> None:  # noqa: N802
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{other.server_address[1]}/x")
            self.send_header("Content-Length", "0")
            self.end_headers()

    redirector = ThreadingHTTPServer(("127.0.0.1", 0), Redirecting)
    for httpd in (other, redirector):
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setenv(KEY_ENV, KEY)
    try:
        url = f"http://127.0.0.1:{redirector.server_address[1]}/v1"
        with pytest.raises(ConnectionError, match="HTTP 302"):
            OpenAIChatJudge(url, "m", KEY_ENV)("q", "text D")
    finally:
        for httpd in (other, redirector):
            httpd.shutdown()
            httpd.server_close()
    assert reached == []


def test_a_query_holding_a_placeholder_stays_text(server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    judge = OpenAIChatJudge(server, "m", KEY_ENV, prompt="Q {query}\nPassage: {passage}\n")
    judge("what is {passage}?", "text D")
    assert ChatServer.seen[-1]["content"] == "Q what is {passage}?\nPassage: text D\n"
