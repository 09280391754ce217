"""A text that is cut and redacted is redacted whole, then cut (stop 47).

Three places cut a text first and redacted what was left: a retriever's error message
(capture), a model judge's reason, and what an OpenAI-compatible server answered. A secret
straddling the cut lost its tail, and the head left was no longer a shape redaction knows,
so that head was kept: ``ghp_A1b2C3d4E5f6`` of a GitHub token, or the first 490 bytes' worth
of a key the server echoed. Each place now redacts the whole text, then cuts it."""

from __future__ import annotations

import io
import urllib.error

import pytest

from ragrecall_core.analysis import capture_calls, judging_assist
from ragrecall_core.judges import openai_chat
from ragrecall_core.judges.openai_chat import OpenAIChatJudge

TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token's shape, 40 characters
KEY = "local-test-key-" + "with-no-known-shape-4217"
KEY_ENV = "RAGRECALL_TEST_CUT_KEY"


def pieces(secret: str, size: int = 8) -> list[str]:
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


def leaked(text: str, secret: str) -> list[str]:
    return [piece for piece in pieces(secret) if piece in text]


@pytest.mark.parametrize("before", [-30, -16, -10, -6, -1])
def test_a_retriever_error_keeps_no_piece_of_a_token_across_its_cut(before):
    message = "x " * ((capture_calls.MAX_ERROR + before) // 2) + TOKEN + " tail"
    assert leaked(capture_calls.error_text(message), TOKEN) == []


@pytest.mark.parametrize("before", [-30, -16, -10, -6, -1])
def test_a_judge_reason_keeps_no_piece_of_a_token_across_its_cut(before):
    reason = "y " * ((judging_assist.MAX_REASON + before) // 2) + TOKEN + " tail"
    assert leaked(judging_assist.reason_kept(reason), TOKEN) == []


@pytest.fixture
def judge(monkeypatch) -> OpenAIChatJudge:
    monkeypatch.setenv(KEY_ENV, KEY)
    return OpenAIChatJudge("http://127.0.0.1:9/v1", "m", KEY_ENV)


class Answer(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("before", [-20, -10, -3])
def test_an_error_body_echoing_the_key_across_its_cut_shows_none_of_it(judge, monkeypatch, before):
    body = ("e" * (500 + before) + KEY + "!").encode()

    def refuse(request, timeout):
        raise urllib.error.HTTPError("u", 401, "no", {}, io.BytesIO(body))

    monkeypatch.setattr(openai_chat.OPENER, "open", refuse)
    with pytest.raises(ConnectionError) as raised:
        judge.post({})
    assert leaked(str(raised.value), KEY) == []


@pytest.mark.parametrize("before", [-20, -10, -3])
def test_an_answer_not_json_echoing_the_key_across_its_cut_shows_none_of_it(
    judge, monkeypatch, before
):
    raw = ("<" * (200 + before) + KEY + ">").encode()
    monkeypatch.setattr(openai_chat.OPENER, "open", lambda request, timeout: Answer(raw))
    with pytest.raises(ValueError) as raised:
        judge.post({})
    assert leaked(str(raised.value), KEY) == []


@pytest.mark.parametrize("before", [-20, -10, -3])
def test_an_answer_without_choices_echoing_the_key_shows_none_of_it(judge, monkeypatch, before):
    monkeypatch.setattr(judge, "post", lambda body: {"e": "a" * (200 + before) + KEY})
    with pytest.raises(ValueError) as raised:
        judge("q", "p")
    assert leaked(str(raised.value), KEY) == []
