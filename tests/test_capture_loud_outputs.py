"""Capture fails loudly and never leaves a stale run that looks fresh (issue 28, leftovers).

- ``CaptureFailed`` is importable from the public API, as ``capture`` is;
- a failed or interrupted capture leaves an earlier run at ``-o`` untouched (nothing saved
  is lost) and says so: that file is an earlier capture, not this one;
- a query that never answers is a failed query by default ("timed out after S s"), so a
  hanging retriever cannot hang the capture.
"""

from __future__ import annotations

import inspect
import math
import sys
from pathlib import Path

import pytest

import ragrecall
import ragrecall_core
from ragrecall_core.analysis import capture as capture_module
from ragrecall_core.analysis import capture_defaults
from ragrecall_core.analysis.capture import CaptureFailed, capture
from ragrecall_core.inputs.configs import config_path_for
from tests.helpers import gold_row, write_jsonl, write_text
from tests.test_capture import run_cli_in


def tiny_gold(folder: Path, n: int = 3) -> Path:
    return write_jsonl(folder / "gold.jsonl", [gold_row(f"q{i}", [f"c{i}"]) for i in range(n)])


def answering(query, query_id):
    return [query_id.replace("q", "c")]


def failing(query, query_id):
    if query_id == "q1":
        raise RuntimeError("index offline")
    return [query_id.replace("q", "c")]


def files_of(output: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (output, config_path_for(output))}


# --- CaptureFailed is public -------------------------------------------------------------------


def test_capture_failed_is_exported_where_capture_is():
    assert ragrecall_core.CaptureFailed is CaptureFailed
    assert ragrecall.CaptureFailed is CaptureFailed
    assert "CaptureFailed" in ragrecall_core.__all__ and "CaptureFailed" in dir(ragrecall)


def test_the_exported_capture_failed_is_what_a_failed_capture_raises(tmp_path):
    with pytest.raises(ragrecall.CaptureFailed) as failed:
        ragrecall.capture(tiny_gold(tmp_path), failing, tmp_path / "r.jsonl")
    assert list(failed.value.result.errors) == ["q1"]


# --- an earlier run at -o ----------------------------------------------------------------------


def test_a_failed_capture_leaves_the_earlier_run_untouched_and_says_it_is_not_this_one(tmp_path):
    gold, output = tiny_gold(tmp_path), tmp_path / "r.jsonl"
    capture(gold, answering, output)
    before = files_of(output)
    with pytest.raises(CaptureFailed) as failed:
        capture(gold, failing, output, config={"model": "v2"})
    assert files_of(output) == before  # nothing saved is lost
    text = str(failed.value)
    assert f"{output} is an earlier capture, left as it was: not this one" in text
    assert "no run written" in text
    assert not list(tmp_path.glob(".*.writing"))


def test_without_an_earlier_run_the_failure_names_none(tmp_path):
    output = tmp_path / "r.jsonl"
    with pytest.raises(CaptureFailed) as failed:
        capture(tiny_gold(tmp_path), failing, output)
    assert not output.exists() and not config_path_for(output).exists()
    assert "earlier capture" not in str(failed.value)


def test_a_capture_within_its_allowance_replaces_the_earlier_run_whole(tmp_path):
    gold, output = tiny_gold(tmp_path), tmp_path / "r.jsonl"
    capture(gold, answering, output)
    before = files_of(output)
    result = capture(gold, failing, output, allow_errors=1, config={"model": "v2"})
    after = files_of(output)
    assert after[output.name] != before[output.name] and b"index offline" in after[output.name]
    assert b'"model": "v2"' in after[config_path_for(output).name]
    assert "earlier capture" not in result.to_text()
    assert not list(tmp_path.glob(".*.writing"))


def test_the_command_line_says_the_earlier_run_is_not_this_capture(tmp_path):
    write_text(
        tmp_path / "loud_flaky_mod.py",
        "def good(query, query_id):\n    return ['c0']\n"
        "def bad(query, query_id):\n    raise RuntimeError('down')\n",
    )
    gold, output = tiny_gold(tmp_path, 2), tmp_path / "r.jsonl"
    code, _, err = run_cli_in(
        tmp_path, ["capture", gold, "--retriever", "loud_flaky_mod:good", "-o", output]
    )
    assert code == 0, err
    before = files_of(output)
    code, _, err = run_cli_in(
        tmp_path, ["capture", gold, "--retriever", "loud_flaky_mod:bad", "-o", output]
    )
    assert code == 1
    assert files_of(output) == before
    assert f"{output} is an earlier capture, left as it was: not this one" in err


def test_an_interrupted_capture_says_the_earlier_run_is_not_this_one(tmp_path):
    write_text(
        tmp_path / "loud_stop_mod.py",
        "def good(query):\n    return ['c0']\ndef stop(query):\n    raise KeyboardInterrupt\n",
    )
    gold, output = tiny_gold(tmp_path, 2), tmp_path / "r.jsonl"
    assert (
        run_cli_in(tmp_path, ["capture", gold, "--retriever", "loud_stop_mod:good", "-o", output])[
            0
        ]
        == 0
    )
    before = files_of(output)
    code, _, err = run_cli_in(
        tmp_path, ["capture", gold, "--retriever", "loud_stop_mod:stop", "-o", output]
    )
    assert code == 130
    assert files_of(output) == before
    assert f"{output} is an earlier capture, left as it was: not this one" in err


# --- a query that never answers ----------------------------------------------------------------


def test_capture_has_a_finite_default_timeout_per_query():
    default = inspect.signature(capture).parameters["timeout"].default
    assert default == capture_defaults.TIMEOUT
    assert isinstance(default, float) and math.isfinite(default) and default > 0


def test_the_command_line_applies_the_default_timeout_and_its_help_says_it(
    tmp_path, monkeypatch, capsys
):
    seen = {}
    real = capture_module.capture

    def spy(*args, **kwargs):
        seen["timeout"] = kwargs.get("timeout")
        return real(*args, **kwargs)

    monkeypatch.setattr(capture_module, "capture", spy)
    write_text(tmp_path / "loud_plain_mod.py", "def search(query):\n    return ['c0']\n")
    gold, output = tiny_gold(tmp_path, 1), tmp_path / "r.jsonl"
    code, _, err = run_cli_in(
        tmp_path, ["capture", gold, "--retriever", "loud_plain_mod:search", "-o", output]
    )
    assert code == 0, err
    assert seen["timeout"] == capture_defaults.TIMEOUT
    from ragrecall_core.cli import main

    with pytest.raises(SystemExit):
        main(["capture", "--help"])
    assert f"default {capture_defaults.TIMEOUT:g}" in " ".join(capsys.readouterr().out.split())


def test_a_sync_retriever_that_hangs_is_a_failed_query_timed_out(tmp_path):
    write_text(
        tmp_path / "loud_hang_mod.py",
        "import threading\nrelease = threading.Event()\n"
        "def search(query, query_id):\n"
        "    if query_id == 'q1':\n        release.wait()\n"
        "    return [query_id.replace('q', 'c')]\n",
    )
    gold, output = tiny_gold(tmp_path), tmp_path / "r.jsonl"
    try:
        code, _, err = run_cli_in(
            tmp_path,
            [
                "capture",
                gold,
                "--retriever",
                "loud_hang_mod:search",
                "-o",
                output,
                "--timeout",
                "0.3",
            ],
        )
    finally:
        sys.modules["loud_hang_mod"].release.set()  # the abandoned call's thread ends
        del sys.modules["loud_hang_mod"]
    assert code == 1
    assert "1 x timed out after 0.3 s (q1)" in err
