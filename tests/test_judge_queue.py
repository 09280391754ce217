"""The Judge page's queue, computed once and advanced after each grade, must be exactly the
queue a full recomputation gives (:func:`pooling.build_pool` for the annotator, ordered
by query then pair hash): same items, same order, same judged count, ids of any shape."""

from __future__ import annotations

import hashlib

from ragrecall_core.analysis import judge_session as js
from ragrecall_core.analysis.pooling import SEED, build_pool
from ragrecall_core.inputs.store import submit
from ragrecall_core.views.dashboard_state import session_key
from tests.dashboard_support import app, no_exception
from tests.helpers import gold_row, grade_row, make_workspace, run_row
from tests.test_app_judge import JUDGE, seed002, shown_chunk

# ids a splice or a separator-joined key would confuse
ODD = ["a\x1fb", "a", "b\x1f", "x'y", "c#1", "é", "q\x1fc"]


def small_workspace(folder):
    gold = [gold_row(q, [q + "-rel"]) for q in ("q1", "q2", "a\x1f", "q'4")]
    runs = {
        "r1": [run_row(q, [q + "-rel", *ODD]) for q in ("q1", "q2", "a\x1f", "q'4")],
        "r2": [run_row(q, [*reversed(ODD), "only-r2"]) for q in ("q1", "q2", "a\x1f")],
    }
    grades = [
        grade_row("q1", "a\x1fb", 1, annotator="anna"),
        grade_row("q2", "x'y", 0, annotator="boris"),
    ]
    corpus = [{"chunk_id": c, "doc_id": "d", "section": "s", "text": f"text of {c}"} for c in ODD]
    return make_workspace(folder, gold, runs, grades, corpus)


def reference_queue(ws, annotator, runs, depth, ids):
    """The queue as the page built it before: the whole pool again, sorted in Python."""
    pool = build_pool(ws, runs, depth, ids, 1, annotator)
    order = pool["query_id"].map(lambda q: hashlib.md5(f"{SEED}{q}".encode()).hexdigest())
    pool = pool.assign(_g=order).sort_values("_g", kind="stable").drop(columns="_g")
    everything = build_pool(ws, runs, depth, ids, 1, "\x00nobody")
    return pool.reset_index(drop=True), len(everything) - len(pool)


def pairs(frame):
    return list(zip(frame["query_id"], frame["chunk_id"], strict=True))


def test_an_advanced_queue_is_the_recomputed_queue_after_every_grade(tmp_path):
    ws = small_workspace(tmp_path)
    js.open_store(ws, create=True)
    for runs, depth, ids in ((["r1", "r2"], 8, None), (["r2"], 3, ["q2", "a\x1f"])):
        order = js.pool_order(ws, runs, depth, ids, 1)
        for step in range(4):
            q = js.advance(ws, order, "anna")
            expected, judged = reference_queue(ws, "anna", runs, depth, ids)
            assert pairs(q.remaining) == pairs(expected), (runs, step)
            assert q.judged == judged and q.size == len(order)
            if expected.empty:
                assert q.current() is None and step > 0
                break
            first = expected.iloc[0]
            assert q.current() == {
                "query_id": first["query_id"],
                "chunk_id": first["chunk_id"],
                "query": first["query"],
                "text": first["text"] if isinstance(first["text"], str) else "",
            }
            # grade an item further down the queue too: the queue is not a cursor
            submit(ws, *pairs(q.remaining)[-1], 0, "anna")
            submit(ws, *pairs(q.remaining)[0], 2, "anna")
    ws.con.close()


def test_the_sheet_gets_the_texts_of_every_remaining_item_in_queue_order(tmp_path):
    ws = small_workspace(tmp_path)
    q = js.queue(ws, "boris", ["r1", "r2"], 8, None, 1)
    sheet = js.with_texts(ws, q.remaining)
    assert pairs(sheet) == pairs(q.remaining)
    expected, _ = reference_queue(ws, "boris", ["r1", "r2"], 8, None)
    assert sheet["text"].fillna("").tolist() == expected["text"].fillna("").tolist()
    assert sheet["query"].tolist() == expected["query"].tolist()
    ws.con.close()


def test_the_page_shows_coverage_on_demand_and_its_queue_follows_the_runs(tmp_path, monkeypatch):
    at = app(seed002(tmp_path / "ws"), monkeypatch).switch_page(JUDGE).run()
    at.text_input(key="judge_annotator").input("anna").run()
    no_exception(at)
    assert not [df for df in at.dataframe if "judged_before" in str(df.value.columns)]
    assert not [df for df in at.dataframe if "in pool" in df.value.columns]
    at.session_state["judge_coverage_open"] = True  # the lazy expander, opened
    at.run()
    no_exception(at)
    coverage = next(df.value for df in at.dataframe if "in pool" in df.value.columns)
    # seed 002 at k = 3, depth 10: old's top 3 is all judged; new's only B before, all after
    assert coverage.set_index("run")["… after judging the pool"].tolist() == [1.0, 1.0]
    assert coverage.set_index("run").loc["new", "judged share of top 3 now"] == 1 / 3
    # the cached pool is per set of runs: pooling "old" alone leaves nothing to judge
    at.multiselect(key=session_key("pool_runs")).set_value(["old"]).run()
    no_exception(at)
    assert shown_chunk(at) is None and "Nothing left to judge" in at.success[0].value
    assert not [b for b in at.button if b.key.startswith("judge_grade")]
