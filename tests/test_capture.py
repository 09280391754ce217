"""``ragrecall capture`` / ``capture(...)``: a run captured from a live retriever (issue 16).

The real retriever is BM25 over ``data_samples/`` exactly as ``data_samples/build_runs.py``
built ``runs/bm25.jsonl`` (bm25s lucene, English stopwords, scores rounded to 6 decimals,
ties by chunk id, top 20): capturing it must give the same ranked lists.
"""

from __future__ import annotations

import io
import json
import sys
import threading
import time
from pathlib import Path

import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.capture import capture, progress_path, ranked_list
from ragrecall_core.errors import InputError
from tests.helpers import gold_row, write_jsonl, write_text
from tests.samples import shared_samples

SAMPLES = shared_samples()


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


class SampleBM25:
    """BM25 over the sample corpus, as build_runs.py ranks it."""

    def __init__(self):
        import bm25s

        chunks = read_jsonl(SAMPLES / "corpus.jsonl")
        self.ids = [c["chunk_id"] for c in chunks]
        self.bm25s = bm25s
        self.model = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        tokens = bm25s.tokenize(
            [c["text"] for c in chunks], stopwords="en", return_ids=False, show_progress=False
        )
        self.model.index(tokens, show_progress=False)

    def __call__(self, query: str, k: int = 20) -> list[tuple[str, float]]:
        (tokens,) = self.bm25s.tokenize(
            [query], stopwords="en", return_ids=False, show_progress=False
        )
        known = [t for t in tokens if t in self.model.vocab_dict]
        scores = self.model.get_scores(known) if known else [0.0] * len(self.ids)
        pairs = [(c, round(float(s), 6)) for c, s in zip(self.ids, scores, strict=True)]
        return sorted(pairs, key=lambda p: (-p[1], p[0]))[:k]


def test_capturing_bm25_over_the_samples_gives_the_shipped_run(tmp_path):
    output = tmp_path / "bm25.jsonl"
    result = capture(SAMPLES / "gold.jsonl", SampleBM25(), output, k=20, concurrency=2)
    assert result.errors == {}
    captured = {line["id"]: line for line in read_jsonl(output)}
    shipped = {line["id"]: line for line in read_jsonl(SAMPLES / "runs" / "bm25.jsonl")}
    assert captured.keys() == shipped.keys() and len(shipped) == 144
    for qid, line in shipped.items():
        got = captured[qid]["retrieved"]
        assert [i["chunk_id"] for i in got] == [i["chunk_id"] for i in line["retrieved"]], qid
        assert [i["rank"] for i in got] == [i["rank"] for i in line["retrieved"]]
        assert [i["score"] for i in got] == pytest.approx([i["score"] for i in line["retrieved"]])
        assert captured[qid]["latency_ms"] >= 0
    assert not progress_path(output).exists()


class Document:
    """Shaped like LangChain's Document."""

    def __init__(self, text, metadata, id=None):
        self.page_content, self.metadata, self.id = text, metadata, id


class Node:
    def __init__(self, node_id):
        self.node_id = node_id


class NodeWithScore:
    """Shaped like LlamaIndex's NodeWithScore."""

    def __init__(self, node_id, score):
        self.node, self.score = Node(node_id), score


class LegacyNode:
    def __init__(self, id_):
        self.id_ = id_


@pytest.mark.parametrize(
    ("returned", "id_key", "expected"),
    [
        (["a", "b"], None, [("a", None), ("b", None)]),
        ([("a", 2.0), ("b", 1)], None, [("a", 2.0), ("b", 1.0)]),
        ([{"chunk_id": "a", "score": 0.5}, {"id": "b"}], None, [("a", 0.5), ("b", None)]),
        ([Document("t", {"chunk_id": "a", "id": "x"})], None, [("a", None)]),
        ([Document("t", {"id": "a"})], None, [("a", None)]),
        ([Document("t", {"source": "a", "chunk_id": "x"})], "source", [("a", None)]),
        ([Document("t", {}, id="a")], None, [("a", None)]),
        ([(Document("t", {"chunk_id": "a"}), 0.9)], None, [("a", 0.9)]),
        ([NodeWithScore("a", 0.7), NodeWithScore("b", None)], None, [("a", 0.7), ("b", None)]),
        ([type("N", (), {"node": LegacyNode("a"), "score": 1.5})()], None, [("a", 1.5)]),
        ((c for c in ["a", "b", "c"]), None, [("a", None), ("b", None)]),
    ],
)
def test_what_retrievers_return_is_recognised_by_shape(returned, id_key, expected):
    items = ranked_list(returned, 2, id_key)
    assert [(i["chunk_id"], i["score"]) for i in items] == expected
    assert [i["rank"] for i in items] == list(range(1, len(expected) + 1))


def tiny_gold(folder: Path, n: int = 6) -> Path:
    return write_jsonl(folder / "gold.jsonl", [gold_row(f"q{i}", [f"c{i}"]) for i in range(n)])


def test_a_failing_unrecognised_or_slow_query_is_recorded_and_the_rest_captured(tmp_path):
    def retriever(query, query_id):
        if query_id == "q1":
            raise RuntimeError("index offline")
        if query_id == "q2":
            return [object()]
        if query_id == "q3":
            return [("c3", float("nan"))]
        if query_id == "q4":
            return ["c4", "c4"]
        if query_id == "q5":
            time.sleep(3)
        return [query_id.replace("q", "c")]

    output = tmp_path / "r.jsonl"
    result = capture(
        tiny_gold(tmp_path), retriever, output, k=3, concurrency=3, timeout=0.5, allow_errors=4
    )
    lines = {line["id"]: line for line in read_jsonl(output)}
    assert lines["q0"]["retrieved"] == [{"chunk_id": "c0", "rank": 1, "score": None}]
    assert "error" not in lines["q0"]
    assert "RuntimeError: index offline" in lines["q1"]["error"]
    assert "got object" in lines["q2"]["error"]
    assert "finite score" in lines["q3"]["error"]
    assert lines["q4"]["retrieved"] == [{"chunk_id": "c4", "rank": 1, "score": None}]
    assert result.duplicates == {"q4": ["c4"]}
    assert lines["q5"]["error"] == "timed out after 0.5 s"
    assert set(result.errors) == {"q1", "q2", "q3", "q5"}
    assert all(lines[q]["retrieved"] == [] for q in result.errors)
    # the loader accepts the extra fields: the run evaluates
    workspace = Workspace.from_files(tmp_path / "gold.jsonl", [output])
    assert workspace.run_names == ["r"]


def test_an_interrupted_capture_continues_where_it_stopped(tmp_path):
    gold = tiny_gold(tmp_path, 8)
    calls: list[str] = []

    def interrupted(query, query_id):
        if len(calls) == 5:
            raise KeyboardInterrupt
        calls.append(query_id)
        return [query_id]

    output = tmp_path / "r.jsonl"
    with pytest.raises(KeyboardInterrupt):
        capture(gold, interrupted, output, k=5, name="same")
    assert not output.exists() and progress_path(output).exists()
    calls_before = list(calls)

    def resumed(query, query_id):
        calls.append(query_id)
        return [query_id]

    result = capture(gold, resumed, output, k=5, name="same")
    assert calls[len(calls_before) :] == ["q5", "q6", "q7"]
    assert result.resumed == 5 and result.restarted_because is None
    assert [line["id"] for line in read_jsonl(output)] == [f"q{i}" for i in range(8)]


def test_an_interrupt_with_concurrency_starts_no_further_query(tmp_path):
    gold = tiny_gold(tmp_path, 40)
    calls: list[str] = []

    def retriever(query, query_id):
        calls.append(query_id)
        if query_id == "q3":
            raise KeyboardInterrupt
        time.sleep(0.02)
        return [query_id]

    output = tmp_path / "r.jsonl"
    with pytest.raises(KeyboardInterrupt):
        capture(gold, retriever, output, concurrency=2)
    # q3 stops the capture: its worker begins no further query, and the other may have
    # begun one more before it could know (q0-q3 and one)
    assert len(calls) <= 5, "queries queued before the interrupt must not run after it"
    assert not output.exists()


def test_a_changed_gold_or_config_starts_over_and_says_so(tmp_path):
    gold = tiny_gold(tmp_path, 4)
    output = tmp_path / "r.jsonl"
    progress = progress_path(output)

    def stop_after_two(query, query_id):
        if query_id == "q2":
            raise KeyboardInterrupt
        return [query_id]

    with pytest.raises(KeyboardInterrupt):
        capture(gold, stop_after_two, output, name="r")
    tiny_gold(tmp_path, 5)  # the gold changed
    calls: list[str] = []
    result = capture(
        gold, lambda q, query_id: calls.append(query_id) or [query_id], output, name="r"
    )
    assert "the gold file" in result.restarted_because
    assert result.resumed == 0 and calls == ["q0", "q1", "q2", "q3", "q4"]

    with pytest.raises(KeyboardInterrupt):
        capture(gold, stop_after_two, output, name="r")
    result = capture(gold, lambda q: [q], output, name="r", config={"top_k": 5})
    assert "the config" in result.restarted_because
    assert not progress.exists()


def test_the_config_is_redacted_and_records_retriever_k_and_gold_hash(tmp_path):
    import hashlib

    gold = tiny_gold(tmp_path, 2)
    config = write_text(
        tmp_path / "settings.json",
        json.dumps({"index_url": "https://svc:hunter2@search/idx", "api_key": "sk-live-123"}),
    )
    module = write_text(
        tmp_path / "retrieval_v.py", '__version__ = "1.2.3"\ndef search(q):\n    return ["c0"]\n'
    )
    assert module.exists()
    code, out, err = run_cli_in(
        tmp_path,
        [
            "capture",
            gold,
            "--retriever",
            "retrieval_v:search",
            "-k",
            "7",
            "-o",
            tmp_path / "v.jsonl",
            "--config",
            config,
        ],
    )
    assert (code, err) == (0, "")
    assert "captured 2 queries" in out
    text = (tmp_path / "v.config.json").read_text("utf-8")
    assert "hunter2" not in text and "sk-live-123" not in text
    saved = json.loads(text)
    assert saved["capture_retriever"] == "retrieval_v:search"
    assert saved["capture_retriever_version"] == "1.2.3"
    # the retriever ignored k: top_k says the depth the run has
    assert saved["capture_k"] == 7 and saved["top_k"] == 1
    assert saved["capture_gold_sha256"] == hashlib.sha256(gold.read_bytes()).hexdigest()


_cli_lock = threading.Lock()


def run_cli_in(folder: Path, argv):
    """``ragrecall`` in-process from ``folder`` (where the retriever module lives)."""
    import contextlib
    import os

    out, err = io.StringIO(), io.StringIO()
    saved_path, saved_cwd = list(sys.path), os.getcwd()
    with _cli_lock, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        os.chdir(folder)
        try:
            from ragrecall_core.cli import main

            code = main([str(a) for a in argv])
        finally:
            os.chdir(saved_cwd)
            sys.path[:] = saved_path
    return code, out.getvalue(), err.getvalue()


def test_every_bad_option_is_reported_at_once_before_any_call(tmp_path):
    gold = tiny_gold(tmp_path, 2)
    code, out, err = run_cli_in(
        tmp_path,
        [
            "capture",
            gold,
            "--retriever",
            "no_colon",
            "-k",
            "0",
            "-o",
            tmp_path / "r.txt",
            "--concurrency",
            "x",
            "--timeout",
            "inf",
            "--config",
            tmp_path / "missing.json",
        ],
    )
    assert code == 2 and out == ""
    lines = err.splitlines()[1:]
    for fragment in ("--retriever", "-k", "-o", "--concurrency", "--timeout", "--config"):
        assert any(line.startswith(fragment + ":") for line in lines), (fragment, lines)
    assert "Traceback" not in err


def test_a_module_that_cannot_be_imported_or_lacks_the_callable_is_exit_2(tmp_path):
    gold = tiny_gold(tmp_path, 1)
    write_text(tmp_path / "broken_mod.py", "raise ImportError('needs faiss')\n")
    write_text(tmp_path / "plain_mod.py", "search = 3\n")
    for spec, expected in (("broken_mod:search", "needs faiss"), ("plain_mod:search", "callable")):
        code, _, err = run_cli_in(
            tmp_path, ["capture", gold, "--retriever", spec, "-o", tmp_path / "r.jsonl"]
        )
        assert code == 2 and expected in err and "Traceback" not in err


def test_a_gold_set_without_query_text_is_refused_naming_the_line(tmp_path):
    qrels = write_text(tmp_path / "qrels.txt", "q1 0 c1 1\nq2 0 c2 1\n")
    with pytest.raises(InputError) as error:
        capture(qrels, lambda q: [], tmp_path / "r.jsonl")
    assert [(p.line, p.value) for p in error.value.problems] == [(1, "q1"), (2, "q2")]
    assert "query text" in error.value.problems[0].expected


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_bar_is_drawn_only_on_a_terminal(tmp_path):
    gold = tiny_gold(tmp_path, 3)
    pipe, terminal = io.StringIO(), Terminal()
    capture(gold, lambda q: [("c1", 1.0)], tmp_path / "a.jsonl", progress_stream=pipe)
    capture(gold, lambda q: [("c1", 1.0)], tmp_path / "b.jsonl", progress_stream=terminal)
    assert pipe.getvalue() == ""
    assert "3/3" in terminal.getvalue() and terminal.getvalue().endswith("\n")


def test_a_secret_in_a_retriever_error_never_reaches_the_run_or_the_terminal(tmp_path):
    gold = tiny_gold(tmp_path, 1)
    leak = "cannot reach https://svc:hunter2@search.internal/idx (api_key=sk-live-abcdef123456)"

    def failing(query):
        raise ConnectionError(leak)

    result = capture(gold, failing, tmp_path / "r.jsonl", allow_errors=1)
    text = (tmp_path / "r.jsonl").read_text("utf-8") + result.to_text()
    assert "ConnectionError" in text
    assert "hunter2" not in text and "sk-live-abcdef123456" not in text

    write_text(tmp_path / "leaky_mod.py", f"raise RuntimeError({leak!r})\n")
    code, out, err = run_cli_in(
        tmp_path, ["capture", gold, "--retriever", "leaky_mod:search", "-o", tmp_path / "s.jsonl"]
    )
    assert code == 2 and "RuntimeError" in err
    assert "hunter2" not in err + out and "sk-live-abcdef123456" not in err + out


def test_ctrl_c_on_the_command_line_keeps_the_progress_and_says_how_to_continue(tmp_path):
    gold = tiny_gold(tmp_path, 4)
    write_text(
        tmp_path / "stopping_mod.py",
        "def search(q, query_id):\n"
        "    if query_id == 'q2':\n"
        "        raise KeyboardInterrupt\n"
        "    return [query_id]\n",
    )
    output = tmp_path / "r.jsonl"
    argv = ["capture", gold, "--retriever", "stopping_mod:search", "-o", output]
    code, out, err = run_cli_in(tmp_path, argv)
    assert code == 130 and "continues where this one stopped" in err and "Traceback" not in err
    assert not output.exists()
    kept = [json.loads(line)["id"] for line in progress_path(output).read_text().splitlines()[1:]]
    # a query a worker had already started may finish and be kept too
    assert kept[:2] == ["q0", "q1"] and "q2" not in kept


def test_capture_never_writes_over_the_gold_set_or_the_given_config(tmp_path):
    gold = tiny_gold(tmp_path, 2)
    config = write_text(tmp_path / "r.config.json", '{"api_key": "sk-live-abcdef123456"}')
    before = gold.read_bytes(), config.read_bytes()
    for output in (gold.with_suffix(".jsonl"), tmp_path / "r.jsonl"):
        with pytest.raises(InputError) as error:
            capture(gold, lambda q: ["c0"], output, config=config)
        assert error.value.problems[0].file.startswith("-o")  # the run, or its config
    argv = ["capture", gold, "--retriever", "m:f", "-o", tmp_path / "r.jsonl", "--config", config]
    code, _, err = run_cli_in(tmp_path, argv)
    assert code == 2 and "a file that is not an input (it is the config file" in err
    assert (gold.read_bytes(), config.read_bytes()) == before


def test_an_interrupted_capture_inside_a_workspace_leaves_it_openable(tmp_path):
    folder = tmp_path / "ws"
    gold = tiny_gold(folder, 3)
    write_jsonl(folder / "runs" / "old.jsonl", [{"id": "q0", "retrieved": []}])

    def stop(query, query_id):
        if query_id == "q1":
            raise KeyboardInterrupt
        return [query_id]

    with pytest.raises(KeyboardInterrupt):
        capture(gold, stop, folder / "runs" / "new.jsonl")
    assert progress_path(folder / "runs" / "new.jsonl").exists()
    assert Workspace.open(folder).run_names == ["old"]
