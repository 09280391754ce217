"""Hostile retrievers for ``capture`` (issue 28): each finding reproduced, then held.

Capture takes what users have (a callable, or an object with a retrieval method, sync or
async), reads every documented result shape, and fails loudly: any failed query is exit 1
and :class:`CaptureFailed` unless allowed, never a traceback or a silent exit.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections import namedtuple
from pathlib import Path

import pandas as pd
import pytest

from ragrecall_core.analysis.capture import CaptureFailed, capture, progress_path
from ragrecall_core.errors import InputError
from tests.helpers import gold_row, write_jsonl, write_text
from tests.test_capture import read_jsonl, run_cli_in


def tiny_gold(folder: Path, n: int = 3) -> Path:
    return write_jsonl(folder / "gold.jsonl", [gold_row(f"q{i}", [f"c{i}"]) for i in range(n)])


def ids_of(path: Path) -> dict[str, list[str]]:
    return {line["id"]: [i["chunk_id"] for i in line["retrieved"]] for line in read_jsonl(path)}


# --- what is taken as the retriever ----------------------------------------------------------


class InvokeOnly:
    def invoke(self, query):
        return ["c0", "c1"]


def test_an_object_with_invoke_is_the_retriever_from_python_and_the_command_line(tmp_path):
    gold = tiny_gold(tmp_path)
    result = capture(gold, InvokeOnly(), tmp_path / "a.jsonl", k=2)
    assert result.errors == {}
    assert ids_of(tmp_path / "a.jsonl")["q0"] == ["c0", "c1"]
    write_text(
        tmp_path / "obj_mod.py",
        "class R:\n    def retrieve(self, query):\n        return ['c1']\nretriever = R()\n",
    )
    code, out, err = run_cli_in(
        tmp_path, ["capture", gold, "--retriever", "obj_mod:retriever", "-o", tmp_path / "b.jsonl"]
    )
    assert (code, err) == (0, ""), err
    assert ids_of(tmp_path / "b.jsonl")["q2"] == ["c1"]


def test_the_method_is_chosen_in_the_documented_order(tmp_path):
    class Many:
        def __call__(self, query):
            return ["from_call"]

        def search(self, query):
            return ["from_search"]

        def get_relevant_documents(self, query):
            return ["from_grd"]

        def retrieve(self, query):
            return ["from_retrieve"]

    gold = tiny_gold(tmp_path, 1)
    capture(gold, Many(), tmp_path / "a.jsonl")
    assert ids_of(tmp_path / "a.jsonl")["q0"] == ["from_retrieve"]
    del Many.retrieve
    capture(gold, Many(), tmp_path / "b.jsonl")
    assert ids_of(tmp_path / "b.jsonl")["q0"] == ["from_grd"]


def test_an_object_without_any_retrieval_method_is_refused_before_any_call(tmp_path):
    gold = tiny_gold(tmp_path, 1)
    with pytest.raises(InputError) as error:
        capture(gold, object(), tmp_path / "a.jsonl")
    assert "invoke" in str(error.value)
    write_text(tmp_path / "plain_obj.py", "retriever = object()\n")
    code, _, err = run_cli_in(
        tmp_path,
        ["capture", gold, "--retriever", "plain_obj:retriever", "-o", tmp_path / "b.jsonl"],
    )
    assert code == 2 and "invoke" in err and "Traceback" not in err


# --- async ------------------------------------------------------------------------------------


class InFlight:
    def __init__(self):
        self.now = self.most = 0
        self.loops: set[int] = set()

    async def __aenter__(self):
        self.loops.add(id(asyncio.get_running_loop()))
        self.now += 1
        self.most = max(self.most, self.now)
        await asyncio.sleep(0.01)

    async def __aexit__(self, *exc):
        self.now -= 1


@pytest.mark.parametrize("shape", ["async def", "ainvoke", "aretrieve"])
def test_async_retrievers_are_awaited_on_one_loop_within_the_concurrency(tmp_path, shape):
    flight = InFlight()

    async def search(query):  # "question q3" -> ["c3"]
        async with flight:
            return ["c" + query.rsplit("q", 1)[1]]

    retriever = {
        "async def": search,
        "ainvoke": type("A", (), {"ainvoke": staticmethod(search)})(),
        "aretrieve": type("B", (), {"aretrieve": staticmethod(search)})(),
    }[shape]
    result = capture(tiny_gold(tmp_path, 8), retriever, tmp_path / "r.jsonl", concurrency=3)
    assert result.errors == {}
    assert ids_of(tmp_path / "r.jsonl") == {f"q{i}": [f"c{i}"] for i in range(8)}
    assert 1 < flight.most <= 3 and len(flight.loops) == 1


def test_an_async_generator_and_a_function_returning_a_coroutine_are_awaited(tmp_path):
    async def stream(query):
        yield "a"
        yield "b"

    async def coroutine(query):
        return ["a"]

    capture(tiny_gold(tmp_path, 1), stream, tmp_path / "a.jsonl")
    capture(tiny_gold(tmp_path, 1), lambda q: coroutine(q), tmp_path / "b.jsonl")
    assert ids_of(tmp_path / "a.jsonl")["q0"] == ["a", "b"]
    assert ids_of(tmp_path / "b.jsonl")["q0"] == ["a"]


def test_a_retriever_class_instead_of_its_object_is_refused_before_any_call(tmp_path):
    with pytest.raises(InputError) as error:
        capture(tiny_gold(tmp_path, 1), InvokeOnly, tmp_path / "a.jsonl")
    assert "not the class" in str(error.value)


def test_an_async_query_that_overruns_is_a_timeout_and_the_rest_captured(tmp_path):
    async def slow(query, query_id):
        if query_id == "q1":
            await asyncio.sleep(5)
        return [query_id]

    result = capture(tiny_gold(tmp_path), slow, tmp_path / "r.jsonl", timeout=0.3, allow_errors=1)
    assert list(result.errors) == ["q1"] and result.errors["q1"] == "timed out after 0.3 s"


def test_an_async_retriever_that_ignores_its_cancellation_cannot_hang_the_capture(tmp_path):
    async def stubborn(query, query_id):
        while query_id == "q0":
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                pass
        return [query_id]

    outcome = {}

    def run():
        outcome["result"] = capture(
            tiny_gold(tmp_path), stubborn, tmp_path / "r.jsonl", timeout=0.3, allow_errors=1
        )

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(120)  # a bound on a hang, not a measure of speed
    assert not worker.is_alive(), "the capture hung on a retriever that swallows cancellation"
    assert list(outcome["result"].errors) == ["q0"]
    assert ids_of(tmp_path / "r.jsonl")["q2"] == ["q2"]


# --- what a retriever returns ------------------------------------------------------------------


def test_a_duplicate_keeps_its_first_occurrence_and_is_reported(tmp_path):
    def search(query, query_id):
        return [("a", 3.0), ("b", 2.0), ("a", 1.5), ("c", 1.0), ("d", 0.5)]

    result = capture(tiny_gold(tmp_path, 1), search, tmp_path / "r.jsonl", k=3)
    (line,) = read_jsonl(tmp_path / "r.jsonl")
    assert [(i["chunk_id"], i["rank"], i["score"]) for i in line["retrieved"]] == [
        ("a", 1, 3.0),
        ("b", 2, 2.0),
        ("c", 3, 1.0),
    ]
    assert result.errors == {} and result.duplicates == {"q0": ["a"]}
    assert "1 query returned a chunk twice" in result.to_text()


Hit = namedtuple("Hit", ["chunk_id", "score"])


@pytest.mark.parametrize(
    ("returned", "expected"),
    [
        (  # PyTerrier's frame: its rank column orders it, not the row order
            pd.DataFrame(
                {
                    "qid": ["1"] * 3,
                    "docno": ["b", "a", "c"],
                    "score": [5.0, 7.0, 1.0],
                    "rank": [1, 0, 2],
                }
            ),
            [("a", 7.0), ("b", 5.0), ("c", 1.0)],
        ),
        (  # ranked by score, ties as trec_eval (docno descending), not by insertion order
            {"low": 0.1, "x": 2.0, "high": 9.0, "y": 2.0},
            [("high", 9.0), ("y", 2.0), ("x", 2.0), ("low", 0.1)],
        ),
        ([Hit("a", 2.0), Hit("b", 1.0)], [("a", 2.0), ("b", 1.0)]),
        ([("a", 2), ("b", 1.0)], [("a", 2.0), ("b", 1.0)]),
        (pd.DataFrame({"chunk_id": ["a", "b"], "score": [1.0, 2.0]}), [("b", 2.0), ("a", 1.0)]),
        (pd.Series({"a": 1.0, "b": 2.0}), [("b", 2.0), ("a", 1.0)]),
        (pd.Series(["a", "b"]), [("a", None), ("b", None)]),
    ],
    ids=[
        "pyterrier-frame",
        "id-score-dict",
        "named-tuple",
        "pairs",
        "frame-without-rank",
        "series-of-scores",
        "series-of-ids",
    ],
)
def test_frames_dicts_named_tuples_and_pairs_are_read_with_their_scores(
    tmp_path, returned, expected
):
    capture(tiny_gold(tmp_path, 1), lambda q: returned, tmp_path / "r.jsonl", k=10)
    (line,) = read_jsonl(tmp_path / "r.jsonl")
    assert [(i["chunk_id"], i["score"]) for i in line["retrieved"]] == expected
    assert [i["rank"] for i in line["retrieved"]] == list(range(1, len(expected) + 1))


@pytest.mark.parametrize(
    "returned",
    [
        [("a", True)],
        [("a", "0.9")],
        [{"chunk_id": "a", "score": "high"}],
        [("a", float("nan"))],
        {"a": False},
        pd.DataFrame({"docno": ["a"], "score": ["1.0"]}),
    ],
    ids=["bool", "numeric-string", "word", "nan", "dict-bool", "frame-string"],
)
def test_a_score_that_is_not_a_number_fails_the_query(tmp_path, returned):
    result = capture(
        tiny_gold(tmp_path, 1), lambda q: returned, tmp_path / "r.jsonl", allow_errors=1
    )
    assert "score" in result.errors["q0"]


# --- errors never escape ----------------------------------------------------------------------


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("cannot print me")


def write_hostile_module(folder: Path) -> None:
    write_text(
        folder / "hostile_mod.py",
        "import sys\n"
        "class Unprintable(Exception):\n"
        "    def __str__(self):\n"
        "        raise RuntimeError('cannot print me')\n"
        "def unprintable(q):\n"
        "    raise Unprintable()\n"
        "def exits(q):\n"
        "    sys.exit(3)\n"
        "def fine(q):\n"
        "    return ['c0']\n"
        "def half(q, query_id):\n"
        "    if query_id == 'q1':\n"
        "        raise ValueError('index offline')\n"
        "    return ['c0']\n",
    )


@pytest.mark.parametrize(
    ("spec", "reason"),
    [("hostile_mod:unprintable", "Unprintable"), ("hostile_mod:exits", "SystemExit: 3")],
)
def test_a_retriever_that_cannot_be_printed_or_exits_fails_each_query_with_exit_1(
    tmp_path, spec, reason
):
    gold = tiny_gold(tmp_path)
    write_hostile_module(tmp_path)
    code, out, err = run_cli_in(tmp_path, ["capture", gold, "--retriever", spec, "-o", "r.jsonl"])
    assert code == 1 and "Traceback" not in err
    assert "3 of 3 queries failed" in err and reason in err
    assert not (tmp_path / "r.jsonl").exists(), "a failed capture writes no run"


def test_allow_errors_lets_a_capture_with_few_failures_pass(tmp_path):
    gold = tiny_gold(tmp_path, 4)
    write_hostile_module(tmp_path)
    base = ["capture", gold, "--retriever", "hostile_mod:half", "-o", "r.jsonl"]
    code, _, err = run_cli_in(tmp_path, base)
    assert code == 1 and "1 of 4 queries failed" in err and "ValueError: index offline" in err
    assert progress_path(tmp_path / "r.jsonl").exists(), "the failed queries are retried"
    for allowance in ("1", "0.25", "25%"):
        code, out, err = run_cli_in(tmp_path, [*base, "--allow-errors", allowance])
        assert code == 0, (allowance, err)
        assert "1 of 4 queries failed" in out
    for allowance in ("0", "0.2"):
        code, _, err = run_cli_in(tmp_path, [*base, "--allow-errors", allowance])
        assert code == 1, allowance
    code, _, err = run_cli_in(tmp_path, [*base, "--allow-errors", "lots"])
    assert code == 2 and "--allow-errors" in err


def test_python_capture_raises_capture_failed_with_the_summary(tmp_path):
    def unprintable(query):
        raise Unprintable()

    with pytest.raises(CaptureFailed) as failed:
        capture(tiny_gold(tmp_path), unprintable, tmp_path / "r.jsonl")
    assert set(failed.value.result.errors) == {"q0", "q1", "q2"}
    assert "3 of 3 queries failed" in str(failed.value)
    assert "could not be read" in failed.value.result.errors["q0"]


def test_a_huge_error_message_is_redacted_within_2_kb_and_kept_to_2_kb(tmp_path, monkeypatch):
    """Redaction reads a message's first 2 KB (less a token cut in two: ``cut_text``), the
    whole message never; what is kept is redacted before it is cut (stop 47)."""
    from ragrecall_core.inputs import secrets

    seen: list[int] = []
    real = secrets._apply_rules

    def measuring(text, *args):
        seen.append(len(text))
        return real(text, *args)

    monkeypatch.setattr(secrets, "_apply_rules", measuring)
    leak = "token=sk-live-abcdef1234567890 "

    def huge(query):
        raise RuntimeError(leak + "x" * 10_000_000)

    result = capture(tiny_gold(tmp_path, 2), huge, tmp_path / "r.jsonl", allow_errors=2)
    assert seen and max(seen) <= 2048
    assert all(len(error) <= 2048 for error in result.errors.values())
    assert "sk-live-abcdef1234567890" not in result.to_text() + json.dumps(result.errors)


def test_a_retriever_that_moves_the_working_folder_or_drops_stdout_breaks_nothing(tmp_path):
    gold = tiny_gold(tmp_path, 2)
    (tmp_path / "elsewhere").mkdir()
    write_text(
        tmp_path / "rude_mod.py",
        "import os, sys\n"
        "def search(q):\n"
        "    os.chdir(os.path.dirname(os.path.abspath(__file__)) + '/elsewhere')\n"
        "    sys.stdout = None\n"
        "    return ['c0']\n",
    )
    code, out, err = run_cli_in(
        tmp_path, ["capture", gold, "--retriever", "rude_mod:search", "-o", "r.jsonl"]
    )
    assert (code, err) == (0, "") and "captured 2 queries into r.jsonl" in out
    assert (tmp_path / "r.jsonl").exists() and (tmp_path / "r.config.json").exists()


def test_a_retriever_module_that_exits_on_import_is_exit_2_not_silent(tmp_path):
    gold = tiny_gold(tmp_path, 1)
    write_text(tmp_path / "exiting_mod.py", "import sys\nsys.exit(3)\n")
    code, _, err = run_cli_in(
        tmp_path, ["capture", gold, "--retriever", "exiting_mod:f", "-o", tmp_path / "r.jsonl"]
    )
    assert code == 2 and "SystemExit" in err


def test_an_exception_the_retriever_raises_from_its_own_base_is_a_failed_query(tmp_path):
    class Odd(BaseException):
        pass

    def odd(query, query_id):
        if query_id == "q0":
            raise Odd("not an Exception")
        return ["c1"]

    result = capture(tiny_gold(tmp_path), odd, tmp_path / "r.jsonl", concurrency=2, allow_errors=1)
    assert "Odd: not an Exception" in result.errors["q0"]


def test_an_endless_stream_of_one_id_ends(tmp_path):
    import itertools

    result = capture(
        tiny_gold(tmp_path, 1), lambda q: itertools.repeat("a"), tmp_path / "r.jsonl", k=3
    )
    assert ids_of(tmp_path / "r.jsonl")["q0"] == ["a"]
    assert result.short == {"q0": 1}


# --- k, ids and the corpus ------------------------------------------------------------------


class WithK:
    def __init__(self, k=4):
        self.k = k

    def invoke(self, query):
        return [f"c{i}" for i in range(self.k)]


class WithSearchKwargs:
    def __init__(self):
        self.search_kwargs = {"k": 4, "filter": None}

    def invoke(self, query):
        return [f"c{i}" for i in range(self.search_kwargs["k"])]


class WithSimilarityTopK:
    def __init__(self):
        self.similarity_top_k = 2

    def retrieve(self, query):
        return [f"c{i}" for i in range(self.similarity_top_k)]


def top_k_function(query, top_k=3):
    return [f"c{i}" for i in range(top_k)]


@pytest.mark.parametrize(
    ("make", "knob"),
    [
        (WithK, "k"),
        (WithSearchKwargs, "search_kwargs['k']"),
        (WithSimilarityTopK, "similarity_top_k"),
        (lambda: top_k_function, "top_k="),
        (lambda: WithK().invoke, "k"),
    ],
)
def test_k_reaches_the_retrievers_own_knob_and_the_original_is_left_as_it_was(tmp_path, make, knob):
    retriever = make()
    before = json.dumps(getattr(getattr(retriever, "__self__", retriever), "__dict__", {}))
    result = capture(tiny_gold(tmp_path, 2), retriever, tmp_path / "r.jsonl", k=10)
    assert all(len(ids) == 10 for ids in ids_of(tmp_path / "r.jsonl").values())
    assert result.short == {} and result.k_forwarded_as == knob
    after = json.dumps(getattr(getattr(retriever, "__self__", retriever), "__dict__", {}))
    assert after == before
    config = json.loads((tmp_path / "r.config.json").read_text("utf-8"))
    assert config["top_k"] == 10 and config["capture_k_forwarded_as"] == knob


class Uncopyable(WithK):
    def __copy__(self):
        raise TypeError("holds a socket")


class RefusesK(Uncopyable):
    def __setattr__(self, name, value):
        if hasattr(self, name):
            raise AttributeError("read-only")
        super().__setattr__(name, value)


def test_k_is_set_and_given_back_when_the_object_cannot_be_copied_or_refuses_it(tmp_path):
    retriever = Uncopyable()
    result = capture(tiny_gold(tmp_path, 2), retriever, tmp_path / "a.jsonl", k=10)
    assert result.k_forwarded_as == "k" and result.short == {} and retriever.k == 4
    retriever = RefusesK()
    result = capture(tiny_gold(tmp_path, 2), retriever, tmp_path / "b.jsonl", k=10)
    assert result.k_forwarded_as is None and result.short == {"q0": 4, "q1": 4}
    assert "not forwarded" in result.to_text()


def test_a_list_shorter_than_k_is_reported_and_the_config_tells_the_real_depth(tmp_path):
    result = capture(
        tiny_gold(tmp_path, 7), lambda q: ["c0", "c1", "c2", "c3"], tmp_path / "r.jsonl", k=10
    )
    assert result.short == {f"q{i}": 4 for i in range(7)} and result.k_forwarded_as is None
    text = result.to_text()
    assert "7 queries returned fewer than 10 results" in text
    assert "q0, q1, q2, q3, q4" in text and "q5" not in text
    config = json.loads((tmp_path / "r.config.json").read_text("utf-8"))
    assert config["top_k"] == 4 and config["capture_k"] == 10


class Document:
    def __init__(self, metadata, id=None):
        self.page_content, self.metadata, self.id = "text", metadata, id


class TextNode:
    def __init__(self, node_id, metadata):
        self.node_id, self.metadata = node_id, metadata


class NodeWithScore:
    def __init__(self, node, score):
        self.node, self.score = node, score


@pytest.mark.parametrize(
    "returned",
    [
        [Document({"source": "a", "relevance_score": 0.9}, id="uuid-1")],
        [NodeWithScore(TextNode("uuid-1", {"source": "a"}), 0.9)],
        [TextNode("uuid-1", {"source": "a", "score": 0.9})],
        [{"id": "uuid-1", "metadata": {"source": "a"}, "score": 0.9}],
        [(Document({"source": "a"}, id="uuid-1"), 0.9)],
    ],
    ids=["document", "node-with-score", "text-node", "dict", "document-pair"],
)
def test_id_key_reaches_metadata_in_every_shape_and_scores_come_from_it(tmp_path, returned):
    capture(tiny_gold(tmp_path, 1), lambda q: returned, tmp_path / "r.jsonl", id_key="source")
    (line,) = read_jsonl(tmp_path / "r.jsonl")
    assert [(i["chunk_id"], i["score"]) for i in line["retrieved"]] == [("a", 0.9)]


def test_an_id_key_missing_from_the_metadata_fails_the_query_naming_the_key(tmp_path):
    returned = [Document({"chunk_id": "a"}, id="uuid-1")]
    result = capture(
        tiny_gold(tmp_path, 1),
        lambda q: returned,
        tmp_path / "r.jsonl",
        id_key="source",
        allow_errors=1,
    )
    assert "'source'" in result.errors["q0"]


def test_ids_absent_from_the_corpus_beside_the_gold_are_warned_about(tmp_path):
    gold = tiny_gold(tmp_path, 3)
    write_jsonl(tmp_path / "corpus.jsonl", [{"chunk_id": f"c{i}", "text": "t"} for i in range(3)])
    uuids = [f"uuid-{i}" for i in range(7)]
    result = capture(gold, lambda q: ["c0", *uuids], tmp_path / "r.jsonl", k=8)
    assert result.not_in_corpus == uuids and result.retrieved_ids == 8
    text = result.to_text()
    assert "7 of 8 retrieved ids (88%) are not in the corpus" in text
    assert "uuid-0, uuid-1, uuid-2, uuid-3, uuid-4" in text and "uuid-5" not in text
    result = capture(gold, lambda q: ["c0"], tmp_path / "s.jsonl", corpus=tmp_path / "corpus.jsonl")
    assert result.not_in_corpus == [] and "not in the corpus" not in result.to_text()


# --- the recorded version ---------------------------------------------------------------------


def test_the_version_is_the_retriever_objects_own_package(tmp_path):
    package = tmp_path / "myretr"
    write_text(package / "__init__.py", '__version__ = "4.5.6"\n')
    write_text(
        package / "impl.py",
        "class R:\n    def invoke(self, q):\n        return ['c0']\n"
        "    def search(self, q):\n        return ['c0']\n",
    )
    sys.path.insert(0, str(tmp_path))
    try:
        from myretr.impl import R

        for retriever in (R(), R().invoke):
            capture(tiny_gold(tmp_path, 1), retriever, tmp_path / "r.jsonl")
            config = json.loads((tmp_path / "r.config.json").read_text("utf-8"))
            assert config["capture_retriever_version"] == "4.5.6"
            assert config["capture_retriever"] in ("myretr.impl:R", "myretr.impl:R.invoke")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("myretr")]:
            del sys.modules[name]


def test_a_keyboard_interrupt_from_an_async_retriever_keeps_what_was_captured(tmp_path):
    gold = tiny_gold(tmp_path, 4)
    stop = threading.Event()

    async def search(query, query_id):
        if query_id == "q2":
            stop.set()
            raise KeyboardInterrupt
        return [query_id]

    output = tmp_path / "r.jsonl"
    with pytest.raises(KeyboardInterrupt):
        capture(gold, search, output)
    assert stop.is_set() and not output.exists()
    kept = [json.loads(line)["id"] for line in progress_path(output).read_text().splitlines()[1:]]
    assert kept == ["q0", "q1"]
