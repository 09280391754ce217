"""evaluate, compare and check --baseline with --cache on trec_eval's own test files say what
they say without it (issue 30, stop 44): TREC runs (results.test has tied scores, its
results.trunc cut lists) restored from the load cache, their positions numbered as
trec_eval orders them. Tried from outside, this held; no test put TREC runs through the
cache.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragrecall_core.inputs import load_cache
from tests.helpers import count_cache_restores, run_cli

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
HITS: list[bool] = []
COMMANDS = {
    "evaluate": [
        "evaluate", "{qrels}", "{test}", "{trunc}", "--compat", "trec_eval", "--per-query",
        "-m", "MAP", "-m", "nDCG@10", "-m", "P@5", "-m", "Recall@100", "-m", "MRR@10",
    ],
    "compare": ["compare", "{qrels}", "{test}", "{trunc}", "-m", "nDCG@10"],
    "check": [
        "check", "{qrels}", "{trunc}", "--baseline", "{test}", "--require", "nDCG@10>=0.3",
    ],
}  # fmt: skip


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("output", ["json", "table"])
def test_a_cached_trec_eval_run_says_what_it_says_without_the_cache(
    tmp_path, monkeypatch, capsys, command, output
):
    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    count_cache_restores(monkeypatch, HITS)
    files = {"qrels": DATA / "qrels.test", "test": DATA / "results.test"}
    files["trunc"] = DATA / "results.trunc"
    argv = [part.format(**files) for part in COMMANDS[command]] + ["--format", output]
    said = []
    for cache in ([], ["--cache"], ["--cache"]):
        said.append(run_cli(capsys, argv + cache))
        load_cache.wait_for_writes()
    assert HITS == [False, True]
    assert said[0][0] in (0, 1) and said[1] == said[0] and said[2] == said[0]
