"""AppTest: the Compare page (issue #5) on data_samples, TREC data and the regressions fixture."""

import json

import pandas as pd
import pytest

from ragrecall_app.reading import table_html
from ragrecall_core.views.compare_text import (
    BY_GROUP_TITLE,
    DOWNLOADS_TITLE,
    OUTCOME_LISTS,
    scatter_title,
)
from tests import fixtures_regressions as fx
from tests.dashboard_support import (
    TREC,
    app,
    charts,
    figures,
    no_exception,
    titles,
    trec_workspace,
)
from tests.helpers import HtmlCells
from tests.plain_scores import SAMPLES, plain_harm, plain_scores

PAGE = "pages/compare.py"
# the by-group tables: their first column -> the gold field it groups by
GROUPS = {"query type": "query_type", "section": "section"}


def open_compare(monkeypatch, workspace=None, params=None):
    at = app(workspace, monkeypatch, params)
    return at.switch_page(PAGE).run()


def select_row(at, key, row):
    at.session_state[key] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    return at.run()


# an outcome list's table key -> its choice on the page's list control
CHOICE = {key: choice for choice, key, _title, _attribute in OUTCOME_LISTS}


def ids(at, key):
    """The query ids of outcome list ``key``, picked on the page's list control first (one
    list is shown at a time)."""
    if key not in [d.key for d in at.dataframe]:
        at.button_group(key="compare_list").set_value(CHOICE[key]).run()
    return list(at.dataframe(key=key).value["query_id"])


# read-only tables carry no key in AppTest: find them by their first columns
FIRST = {
    "config": ["key", "factor"],
    "deltas": ["measure", "better when"],
    "moves": ["chunk_id", "baseline rank", "candidate rank"],
    "swaps": ["movement", "chunk_id"],
}


def html_table(text: str) -> pd.DataFrame:
    """An HTML table (:func:`table_html`) read back as a frame of text cells."""
    parser = HtmlCells()
    parser.feed(text)
    header, *rows = parser.rows
    return pd.DataFrame(rows, columns=header)


def table(at, name):
    """A table of the page by its first columns: a table widget, or an HTML table (the open
    query's small ones)."""
    want = FIRST[name]
    frames = [frame.value for frame in at.dataframe]
    frames += [html_table(h.value) for h in at.html if "<table" in h.value]
    for value in frames:
        if list(value.columns[: len(want)]) == want:
            return value
    raise KeyError(name)


def test_an_html_table_shows_its_frame_cell_for_cell():
    """The open query's small tables are HTML, not table widgets: the same cells, every one
    escaped (file text stays text), a missing one empty."""
    frame = pd.DataFrame(
        {
            "chunk_id": ["<script>alert(1)</script>", "doc#c&2", "x"],
            "baseline rank": ["1", "15 (below k)", None],
            "movement": ["left top k", "entered top k", '"quoted" <b>'],
        }
    )
    text = table_html(frame)
    assert "<script>" not in text and "<b>" not in text
    expected = frame.fillna("")
    pd.testing.assert_frame_equal(html_table(text), expected)


@pytest.fixture
def regressions(tmp_path):
    return fx.write_workspace(tmp_path / "ws")


def plain_deltas(measure: str) -> dict[str, float]:
    """dense-minilm against bm25 on ``measure`` at 5, from tests/plain_scores.py: both means,
    their difference, and the queries where the candidate is better / the same / worse
    (for Harm lower is better)."""
    if measure == "Harm":
        before, after = plain_harm("bm25", 5), plain_harm("dense-minilm", 5)
        pairs = [(before[q], after[q]) for q in before]
    else:
        before, after = plain_scores("bm25", 5), plain_scores("dense-minilm", 5)
        pairs = [(before[q][measure], after[q][measure]) for q in before]
    return {
        "queries": len(pairs),
        "baseline": sum(b for b, _ in pairs) / len(pairs),
        "candidate": sum(a for _, a in pairs) / len(pairs),
        "delta": sum(a - b for b, a in pairs) / len(pairs),
        "wins": sum(a < b if measure == "Harm" else a > b for b, a in pairs),
        "ties": sum(a == b for b, a in pairs),
        "losses": sum(a > b if measure == "Harm" else a < b for b, a in pairs),
    }


def test_renders_on_data_samples(monkeypatch):
    at = open_compare(monkeypatch)
    no_exception(at)
    assert titles(at) == ["Compare"]
    assert at.session_state["compare_base"] == "bm25"
    assert at.session_state["compare_cand"] == "dense-minilm"
    deltas = table(at, "deltas")
    # the pass rule's measure (RecallCap@5 by default) joins the default set, last
    assert list(deltas["measure"]) == [
        *("Recall@5", "Hit@5", "MRR@5", "P@5", "nDCG@5", "Harm@5", "RecallCap@5")
    ]
    harm = deltas[deltas.measure == "Harm@5"].iloc[0]
    assert harm["better when"] == "lower ↓"
    # every measure shown but the pass rule's against the measures' definitions on the raw
    # files (tests/plain_scores.py), not against ragrecall's own compare
    shown = deltas.set_index("measure")
    named = {"Recall@5": "Recall", "Hit@5": "Hit", "MRR@5": "RR", "P@5": "P", "nDCG@5": "nDCG"}
    for measure, name in {**named, "Harm@5": "Harm"}.items():
        expected = plain_deltas(name)
        row = shown.loc[measure]
        assert row[["baseline", "candidate", "delta"]].tolist() == pytest.approx(
            [expected["baseline"], expected["candidate"], expected["delta"]], abs=1e-9
        ), measure
        counts = (row["wins"], row["ties"], row["losses"], row["queries"])
        wanted = tuple(expected[c] for c in ("wins", "ties", "losses", "queries"))
        assert counts == wanted, measure
    warnings = " ".join(w.value for w in at.warning)
    assert "More than one factor changed" in warnings
    assert "embedding model" in warnings
    diff = table(at, "config")
    assert "embedding_model" in set(diff["key"])
    assert not diff.astype(str).apply(lambda c: c.str.contains("sk-")).any().any()


def test_regressions_fixture_lists_exactly_three(monkeypatch, regressions):
    at = open_compare(monkeypatch, regressions)
    no_exception(at)
    assert ids(at, "compare_regressions") == list(fx.REGRESSIONS)
    assert sorted(ids(at, "compare_improvements")) == sorted(fx.IMPROVEMENTS)
    assert ids(at, "compare_still_failing") == ["d03"]
    recall = table(at, "deltas").set_index("measure").loc["Recall@5"]
    assert recall["delta"] == pytest.approx(0.25)
    assert (recall["wins"], recall["ties"], recall["losses"]) == (6, 3, 3)
    # two factors changed (top_k and reranker): the prominent warning
    assert any("top k" in w.value or "reranker" in w.value for w in at.warning)
    # secrets of the candidate's config never shown
    shown = table(at, "config").astype(str).to_string()
    assert not any(secret in shown for secret in fx.SECRET_VALUES)


def test_one_outcome_list_is_sent_at_a_time(monkeypatch, regressions):
    """The control names each list with its count; the list picked is the one table sent,
    every list holds what the comparison holds, and the pick outlives a page switch."""
    at = open_compare(monkeypatch, regressions)
    lists = list(CHOICE)
    sent = lambda: [d.key for d in at.dataframe if d.key in lists]  # noqa: E731
    assert sent() == ["compare_regressions"]
    assert at.button_group(key="compare_list").options == [
        f"Regressions ({len(fx.REGRESSIONS)})",
        f"Improvements ({len(fx.IMPROVEMENTS)})",
        "Still failing (1)",
    ]
    expected = {
        "compare_regressions": list(fx.REGRESSIONS),
        "compare_improvements": sorted(fx.IMPROVEMENTS),
        "compare_still_failing": ["d03"],
    }
    for key in lists:
        at.button_group(key="compare_list").set_value(CHOICE[key]).run()
        no_exception(at)
        assert sent() == [key]
        assert sorted(at.dataframe(key=key).value["query_id"]) == sorted(expected[key])
    at.switch_page("pages/overview.py").run()
    at.switch_page(PAGE).run()
    no_exception(at)
    assert sent() == ["compare_still_failing"]


def test_split_filter_changes_the_content(monkeypatch, regressions):
    at = open_compare(monkeypatch, regressions)
    assert not any("test** split" in w.value for w in at.warning)
    at.pills(key="side_split").select("dev").run()
    no_exception(at)
    assert at.button_group(key="compare_list").options[0] == "Regressions (0)"
    assert sorted(ids(at, "compare_improvements")) == ["d01", "d02"]
    recall = table(at, "deltas").set_index("measure").loc["Recall@5"]
    assert recall["candidate"] == pytest.approx(0.875)
    at.pills(key="side_split").select("test").run()
    no_exception(at)
    assert ids(at, "compare_regressions") == list(fx.REGRESSIONS)
    recall = table(at, "deltas").set_index("measure").loc["Recall@5"]
    assert recall["candidate"] == pytest.approx(0.625)
    assert any("**test** split" in w.value for w in at.warning)


def cards(at) -> list[str]:
    """The reading view's chunk cards and query line (st.html), in page order."""
    return [h.value for h in at.html]


def card_of(at, heading_start: str, chunk_id: str) -> str:
    """The one card whose heading starts ``heading_start`` and that names ``chunk_id``."""
    found = [c for c in cards(at) if f"<code>{chunk_id}</code>" in c and heading_start in c]
    assert len(found) == 1, (heading_start, chunk_id, found)
    return found[0]


def test_selecting_a_regression_opens_its_reading_view(monkeypatch, regressions):
    at = open_compare(monkeypatch, regressions)
    select_row(at, "compare_regressions", 0)
    no_exception(at)
    assert at.session_state["compare_q"] == "t01"
    assert at.query_params["cq"] in ("t01", ["t01"])
    # under the list, in place: the query line, then both lists
    shown = "\n".join(cards(at))
    assert "Query t01: baseline → candidate" in [s.value for s in at.subheader]
    assert "✓ relevant" in card_of(at, "#1 · ", "doc-a#c1")  # the baseline's first
    # the candidate's list: five chunks, the relevant one pushed out, new ones flagged
    assert "⚑ new in the top k and unjudged" in shown
    assert shown.count("⚑ new in the top k and unjudged") == 4
    assert "⚠ harmful" in shown
    # the gold chunk, with where each run put it
    assert "baseline: found at rank 1 · candidate: found at rank 6" in shown
    # the ranks below k wait in a collapsed table, named by their one rank
    assert [e.label for e in at.expander].count("Rank 6 (below the top 5)") == 2
    moves = table(at, "moves")
    assert moves.loc[0, "movement"] == "left top k"
    at.button(key="compare_close").click().run()
    assert at.session_state["compare_q"] == ""
    assert not cards(at) and open_view(at) is None


def test_opening_a_regression_keeps_the_list_as_it_was_sent(monkeypatch, regressions):
    """A row click reruns the lists' fragment: the list is the one Arrow table built for the
    pair (not formatted again), and the same rows as the comparison's."""
    at = open_compare(monkeypatch, regressions)
    before = at.dataframe(key="compare_regressions").proto.arrow_data.data
    select_row(at, "compare_regressions", 1)
    no_exception(at)
    assert at.dataframe(key="compare_regressions").proto.arrow_data.data == before
    assert list(at.dataframe(key="compare_regressions").value["query_id"]) == list(fx.REGRESSIONS)
    assert open_view(at) is not None


def test_the_scatter_is_sent_only_while_its_box_is_open(monkeypatch, regressions):
    at = open_compare(monkeypatch, regressions)
    assert [e.label for e in at.expander] == [
        scatter_title("RecallCap@5"),
        BY_GROUP_TITLE,
        DOWNLOADS_TITLE,
    ]
    assert not charts(at)
    at.session_state["compare_scatter_open"] = True
    at.run()
    no_exception(at)
    (figure,) = figures(at)
    traces = figure["data"]
    # one trace per outcome ("regression (passed, now fails): 3"), then the diagonal
    shown = {tr["name"].split(" (")[0]: [p[0] for p in tr["customdata"]] for tr in traces[:-1]}
    assert sorted(shown["regression"]) == sorted(fx.REGRESSIONS)
    assert sorted(shown["improvement"]) == sorted(fx.IMPROVEMENTS)


def test_the_downloads_are_sent_only_while_their_box_is_open(monkeypatch, regressions):
    """The report's three formats and the comparison's JSON: four buttons, none sent on a
    Compare run until their box is opened."""
    at = open_compare(monkeypatch, regressions)
    assert not at.get("download_button")
    at.session_state["compare_downloads_open"] = True
    at.run()
    no_exception(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert len(labels) == 4 and labels[-1] == "This comparison (JSON)"


def test_clicking_a_scatter_point_opens_its_query(monkeypatch, regressions):
    at = open_compare(monkeypatch, regressions)
    at.session_state["compare_scatter_open"] = True
    at.run()
    at.session_state["compare_scatter"] = {
        "selection": {"points": [{"customdata": ["t02", 1.0, 0.0]}], "point_indices": [0]}
    }
    at.run()
    no_exception(at)
    assert at.session_state["compare_q"] == "t02"
    assert "Query t02: baseline → candidate" in [s.value for s in at.subheader]


def test_runs_come_from_the_url_and_swap(monkeypatch, regressions):
    at = open_compare(monkeypatch, regressions, {"base": "candidate", "cand": "baseline"})
    no_exception(at)
    assert ids(at, "compare_improvements")[:3] == list(fx.REGRESSIONS)
    at.button(key="compare_swap").click().run()
    assert at.session_state["compare_base"] == "baseline"
    assert ids(at, "compare_regressions") == list(fx.REGRESSIONS)


def test_trec_data_with_one_run_says_what_is_missing(tmp_path, monkeypatch):
    at = open_compare(monkeypatch, trec_workspace(tmp_path))
    assert not at.exception
    assert titles(at) == ["Compare"]
    assert any("needs two runs" in w.value for w in at.warning)
    infos = " ".join(i.value for i in at.info)
    assert "no query text" in infos and "No corpus" in infos


def test_trec_data_with_two_runs_and_no_configs(tmp_path, monkeypatch):
    ws = trec_workspace(tmp_path)
    # a second run: the same lists in reverse score order
    lines = (TREC / "results.comment.test").read_text().splitlines()
    flipped = []
    for line in lines:
        qid, q0, doc, rank, score, _tag = line.split()
        flipped.append(f"{qid} {q0} {doc} {rank} {1 - float(score):.6f} reversed")
    (ws / "runs" / "reversed.txt").write_text("\n".join(flipped) + "\n")
    at = open_compare(monkeypatch, ws)
    no_exception(at)
    assert any("No config sidecar" in t.value for t in at.text)
    assert len(table(at, "deltas")) == 7  # the six default measures and RecallCap@5


def open_view(at):
    """The open query's block under the outcome list (None: no query is open)."""

    def find(node):
        for child in getattr(node, "children", {}).values():
            if str(getattr(getattr(child, "proto", None), "id", "")).endswith("-compare_open"):
                return child
            found = find(child)
            if found is not None:
                return found
        return None

    return find(at.main)


def in_order(node) -> list:
    """The elements under ``node`` (a block), depth first, in page order."""
    children = getattr(node, "children", None)
    if children is None:
        return [node]
    return [leaf for child in children.values() for leaf in in_order(child)]


def test_the_open_query_states_the_scope_at_its_top(monkeypatch, regressions):
    """On a shared screen the page's scope line is scrolled away once a query is open under
    its list: the open query repeats the line (issue 29), the same one the page shows, first
    in its block."""
    at = open_compare(monkeypatch, regressions, {"split": "test", "k": "3"})
    (line,) = [i.value for i in at.info if i.value.startswith("Scope")]
    assert "split \\= test" in line and "k \\= 3" in line
    select_row(at, "compare_regressions", 0)
    no_exception(at)
    first = in_order(open_view(at))[0]
    assert first.value == line
    assert [i.value for i in at.info].count(line) == 2  # the page's and the open query's


def test_the_open_query_has_no_scope_line_when_nothing_is_filtered(monkeypatch, regressions):
    at = open_compare(monkeypatch, regressions)
    select_row(at, "compare_regressions", 0)
    shown = in_order(open_view(at))
    assert not [e for e in shown if str(getattr(e, "value", "")).startswith("Scope")]
    assert getattr(shown[0], "type", "") == "subheader"


def test_deltas_by_group_are_sent_only_while_their_box_is_open(monkeypatch):
    at = open_compare(monkeypatch)
    no_exception(at)
    by_group = lambda: {  # noqa: E731
        d.value.columns[0]: d.value for d in at.dataframe if d.value.columns[0] in GROUPS
    }
    assert [e.label for e in at.expander] == [
        scatter_title("RecallCap@5"),
        BY_GROUP_TITLE,
        DOWNLOADS_TITLE,
    ]
    assert by_group() == {}
    at.session_state["compare_by_group_open"] = True
    at.run()
    no_exception(at)
    shown = by_group()
    assert sorted(shown) == sorted(GROUPS)
    # Recall@5 (the first measure) per group from the raw files, worst delta first
    before, after = plain_scores("bm25", 5), plain_scores("dense-minilm", 5)
    gold = {r["id"]: r for r in map(json.loads, (SAMPLES / "gold.jsonl").open())}
    for by, field in GROUPS.items():
        groups: dict[str, list[tuple[float, float]]] = {}
        for q in before:
            groups.setdefault(gold[q][field], []).append((before[q]["Recall"], after[q]["Recall"]))
        table = shown[by].set_index(by)
        assert sorted(table.index) == sorted(groups)
        for group, pairs in groups.items():
            row = table.loc[group]
            assert row["queries"] == len(pairs)
            assert row[["baseline", "candidate", "delta"]].tolist() == pytest.approx(
                [
                    sum(b for b, _ in pairs) / len(pairs),
                    sum(a for _, a in pairs) / len(pairs),
                    sum(a - b for b, a in pairs) / len(pairs),
                ],
                abs=1e-9,
            ), (by, group)
        assert list(table["delta"]) == sorted(table["delta"])


def test_the_pair_comes_back_when_a_page_switch_dropped_it(monkeypatch, regressions):
    """In a browser, a switch to another page drops the values of the page left's widgets
    before the next run (AppTest keeps them: the drop is done by hand here); the pair the
    meeting picked comes back when it returns (tests/browser/test_compare_browser.py
    checks the browser itself)."""
    at = open_compare(monkeypatch, regressions, {"base": "candidate", "cand": "baseline"})
    assert at.session_state["compare_base"] == "candidate"
    at.switch_page("pages/ranks.py").run()
    del at.session_state["compare_base"]
    del at.session_state["compare_cand"]
    at.switch_page("pages/compare.py").run()
    no_exception(at)
    assert at.session_state["compare_base"] == "candidate"
    assert at.session_state["compare_cand"] == "baseline"
    assert at.query_params["base"] in ("candidate", ["candidate"])
