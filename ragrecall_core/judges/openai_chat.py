"""A judge for any OpenAI-compatible chat endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp's
server): ``ragrecall judge WORKSPACE --judge openai --base-url URL --model NAME``.

Each (query, chunk) pair is one ``POST {base_url}/chat/completions`` with the prompt
(:data:`PROMPT`, UMBRELA-style, on the 0 / 1 / 2 scale; ``--prompt FILE`` replaces it:
the file holds ``{query}`` and ``{passage}`` where the texts go) and temperature 0. The
answer's last ``Grade: N`` line is the grade, its ``Reason:`` line the reason.

The API key is read from the environment variable named by ``api_key_env`` (default
``OPENAI_API_KEY``; an empty name sends no key, as a local server needs none) when the
judge is made. It is sent only in the ``Authorization`` header: it is never stored (the
config records the variable's name), never printed, and removed from any error message
(a server may echo it back). A redirect is refused: followed, it would carry the key
elsewhere. Standard library only (``urllib``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs.configs import redact_text
from ragrecall_core.inputs.secrets import redact_path

PROMPT = """\
You are a relevance assessor for a search system. Given a query and a passage, judge how \
well the passage answers the query.

Grades:
2 = the passage answers the query (fully, or with the key facts needed);
1 = the passage is related and partly answers it, or answers it only with other passages;
0 = the passage does not answer the query.

Judge the passage only by what it says; do not use outside knowledge.
Query: {query}
Passage: {passage}

Consider the query's intent and how much of it the passage satisfies, then reply with \
exactly two lines:
Reason: <one short sentence>
Grade: <0, 1 or 2>
"""
PLACES = re.compile(r"\{(query|passage)\}")
GRADE = re.compile(r"grade\s*[:=]\s*\**\s*(-?[0-9]+)", re.IGNORECASE)
REASON = re.compile(r"reason\s*[:=]\s*(.+)", re.IGNORECASE)
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_TIMEOUT = 60.0
MAX_ANSWER = 1 << 20  # bytes of a response read


class NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an error: followed, it would carry the key to wherever it points."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


OPENER = urllib.request.build_opener(NoRedirects)


class OpenAIChatJudge:
    """``judge(query_text, chunk_text) -> {"grade", "reason"}`` over a chat endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str = DEFAULT_KEY_ENV,
        prompt: str = PROMPT,
        timeout: float = DEFAULT_TIMEOUT,
    ):
        problems = []
        parts = urlsplit(base_url or "")
        if parts.scheme not in ("http", "https") or not parts.netloc:
            shown = redact_text(str(base_url))  # Problem shortens it, in the middle
            problems.append(Problem("--base-url", None, shown, "an http(s) URL, like .../v1"))
        if not isinstance(model, str) or not model.strip():
            problems.append(Problem("--model", None, redact_text(repr(model)), "the model's name"))
        if api_key_env and not os.environ.get(api_key_env):
            expected = "an environment variable holding the API key (or '' to send none)"
            problems.append(
                Problem("--api-key-env", None, f"{redact_text(api_key_env)} is not set", expected)
            )
        problems += prompt_problems(prompt, "--prompt")
        if problems:
            raise InputError(problems)
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model.strip()
        self.api_key_env = api_key_env
        self.prompt = prompt
        self.timeout = timeout
        self.__key = os.environ.get(api_key_env, "") if api_key_env else ""

    def __repr__(self) -> str:  # never the key
        return f"OpenAIChatJudge({redact_text(self.url)!r}, model={self.model!r})"

    def config(self) -> dict[str, Any]:
        """What the judge is, without the key: stored with its grades."""
        return {
            "judge_endpoint": redact_text(self.url),
            "judge_model": self.model,
            "judge_env_variable": self.api_key_env,  # its name: the key is never kept
            "judge_prompt_sha256": hashlib.sha256(self.prompt.encode("utf-8")).hexdigest(),
            "judge_prompt_is_default": self.prompt == PROMPT,
        }

    def __call__(self, query: str, passage: str) -> dict[str, Any]:
        texts = {"query": query, "passage": passage}  # both at once: a query holding
        content = PLACES.sub(lambda m: texts[m.group(1)], self.prompt)  # "{passage}" stays text
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": content}],
            "temperature": 0,
        }
        answer = self.post(body)
        try:
            text = answer["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            shown = self.hidden(f"no choices[0].message.content in {answer!r}", 200)
            raise ValueError(shown) from None
        return read_answer(text if isinstance(text, str) else "")

    def post(self, body: dict) -> Any:
        headers = {"Content-Type": "application/json"}
        if self.__key:
            headers["Authorization"] = f"Bearer {self.__key}"
        request = urllib.request.Request(
            self.url, json.dumps(body).encode("utf-8"), headers, method="POST"
        )
        try:
            with OPENER.open(request, timeout=self.timeout) as response:
                raw = response.read(MAX_ANSWER)
        except urllib.error.HTTPError as error:
            said = error.read(MAX_ANSWER).decode("utf-8", "replace")
            raise ConnectionError(self.hidden(f"HTTP {error.code}: {said}", 500)) from None
        except (urllib.error.URLError, OSError) as error:
            raise ConnectionError(self.hidden(f"{type(error).__name__}: {error}")) from None
        try:
            return json.loads(raw)
        except ValueError:
            raise ValueError(self.hidden(f"an answer that is not JSON: {raw!r}", 200)) from None

    def hidden(self, message: str, limit: int | None = None) -> str:
        """``message`` without the key, whatever the server echoed, and without any other
        secret, then cut to ``limit`` characters: cut first, a key in two would leave a
        head that is no longer the key."""
        if self.__key:
            message = message.replace(self.__key, "[redacted]")
        return redact_text(message)[:limit]


def read_answer(text: str) -> dict[str, Any]:
    """The last ``Grade: N`` of a model's answer and its ``Reason:`` (a ValueError when
    there is no grade; a grade outside 0-2 is left for the caller to refuse)."""
    grades = GRADE.findall(text)
    if not grades:
        raise ValueError(f"no 'Grade: N' line in the answer: {' '.join(text.split())[:200]!r}")
    reason = REASON.search(text)
    return {"grade": int(grades[-1]), "reason": reason.group(1).strip() if reason else ""}


def prompt_problems(prompt: str, option: str) -> list[Problem]:
    missing = [p for p in ("{query}", "{passage}") if p not in prompt]
    if missing:
        return [Problem(option, None, "lacks " + " and ".join(missing), "a prompt with both")]
    return []


def read_prompt(path: Path) -> str:
    """A ``--prompt`` file: UTF-8 text holding ``{query}`` and ``{passage}``."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or type(error).__name__
        raise InputError(
            [Problem(redact_path(path), None, reason, "a readable UTF-8 prompt file")]
        ) from None
    problems = prompt_problems(text, redact_path(path))
    if problems:
        raise InputError(problems)
    return text
