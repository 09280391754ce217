"""The reading view of one query: its text, then gold chunks beside retrieved chunks, as text.

Built for a shared screen at 1600x1000: chunk cards that wrap (no sideways scroll), each
with its mark as colour AND word, the document's title / section / version / status, the
reviewers under it, and the query's words marked in the text. Every piece of file text
goes through :func:`ragrecall_core.views.highlight.highlight_html` or ``html.escape`` before
``st.html``: the only tags in the HTML are the ones written here.
"""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from ragrecall_app.render import escape_markdown
from ragrecall_core.analysis.query_detail import (
    HARMFUL,
    NOT_RELEVANT,
    RELEVANT,
    UNJUDGED,
    QueryDetail,
)
from ragrecall_core.output.literal import as_words
from ragrecall_core.views.highlight import highlight_html, query_terms
from ragrecall_core.views.marks import MARK_TEXT

# mark -> (border colour, background); the word from MARK_TEXT always goes with it
MARK_COLOURS = {
    RELEVANT: ("#1b7f3b", "#e6f4ea"),
    NOT_RELEVANT: ("#8a8a8a", "#f5f5f5"),
    HARMFUL: ("#c0470b", "#fdebdd"),
    UNJUDGED: ("#b08900", "#fff8dc"),
}
TEXT_STYLE = (
    "white-space:pre-wrap;overflow-wrap:anywhere;font-size:1.08rem;line-height:1.5;margin:.3rem 0"
)
SMALL = "font-size:.95rem;opacity:.85;overflow-wrap:anywhere"
NO_CORPUS = "No corpus is loaded: chunks show by id only (no text, title or section)."


def _e(value) -> str:
    """A cell as escaped text; a missing value as the empty string."""
    if value is None or pd.isna(value):
        return ""
    return html.escape(str(value))


def _text(value) -> str:
    """A text cell as a string ('' when missing)."""
    return value if isinstance(value, str) else ""


def _document_line(item: pd.Series) -> str:
    """Chunk id, then the document's title, section, version and status where known."""
    parts = [f"<code>{_e(item['chunk_id'])}</code>"]
    for name in ("title", "section", "version", "status"):
        value = _e(item.get(name))
        if value:
            parts.append(f"{name}: {value}" if name != "title" else f"<b>{value}</b>")
    return " · ".join(parts)


def _card(heading: str, item: pd.Series, terms: list[str], has_corpus: bool, why: str = "") -> str:
    """One chunk as a card: mark-coloured edge, heading, document line, text, the gold's
    rationale (``why``, escaped here) and the reviewers' grades and reasons."""
    border, background = MARK_COLOURS[item["mark"]]
    text = (
        f'<div style="{TEXT_STYLE}">{highlight_html(item["text"], terms)}</div>'
        if has_corpus and isinstance(item.get("text"), str)
        else (f'<div style="{SMALL}">(not in the corpus)</div>' if has_corpus else "")
    )
    notes = [("Why gold", _e(why)), ("Reviewers", _e(item.get("reviews")))]
    reviewed = "".join(
        f'<div style="{SMALL}"><b>{label}</b>: {value}</div>' for label, value in notes if value
    )
    return (
        f'<div style="border-left:8px solid {border};background:{background};color:#1a1a1a;'
        'padding:.45rem .8rem;margin:0 0 .7rem 0;border-radius:4px">'
        f'<div style="font-size:1.05rem;font-weight:600">{heading}</div>'
        f'<div style="{SMALL}">{_document_line(item)}</div>{text}{reviewed}</div>'
    )


def _mark_badge(mark: str) -> str:
    border, _ = MARK_COLOURS[mark]
    return f'<span style="color:{border}">{html.escape(MARK_TEXT[mark])}</span>'


def found_text(retrieved_at, listed: int) -> str:
    """Where the run put a gold chunk: its rank, or how deep the list was looked at."""
    if pd.isna(retrieved_at):
        if not listed:
            return "not retrieved (the run returned nothing)"
        return f"not retrieved in the top {listed}"
    return f"found at rank {int(retrieved_at)}"


NEW_FLAG = " · ⚑ new in the top k and unjudged"


def retrieved_card(
    item: pd.Series, terms: list[str], has_corpus: bool, flagged: bool = False
) -> str:
    score = "" if pd.isna(item["score"]) else f" · score {item['score']:.4f}"
    flag = NEW_FLAG if flagged else ""
    heading = f"#{int(item['rank'])} · {_mark_badge(item['mark'])}{html.escape(score + flag)}"
    return _card(heading, item, terms, has_corpus)


def gold_card(item: pd.Series, terms: list[str], has_corpus: bool, where: str) -> str:
    """A gold chunk; ``where``: where the run(s) found it (plain text, escaped here)."""
    source = "gold" if item["source"] == "gold" else "reviewers' grade"
    heading = (
        f"{html.escape(where)} · {_mark_badge(item['mark'])} · grade {_e(item['grade'])} ({source})"
    )
    return _card(heading, item, terms, has_corpus, why=item.get("rationale"))


def query_html(text: str | None, terms: list[str]) -> str:
    """The query itself, large, its own words marked (the same words as in the chunks)."""
    shown = highlight_html(text, terms) if text else "(no query text)"
    return (
        '<div style="font-size:1.45rem;line-height:1.4;font-weight:500;overflow-wrap:anywhere">'
        f"{shown}</div>"
    )


def neighbours_html(detail: QueryDetail, chunk_id: str, terms: list[str]) -> str:
    """The previous and next chunk of a gold chunk's document (corpus file order), the
    query's words marked."""
    rows = detail.neighbours[detail.neighbours["chunk_id"] == chunk_id]
    if rows.empty:
        return f'<div style="{SMALL}">This chunk is not in the corpus.</div>'
    row = rows.iloc[0]
    parts = []
    for label, side in (("Before", "previous"), ("After", "next")):
        if pd.isna(row[f"{side}_id"]):
            parts.append(f'<div style="{SMALL}">{label}: nothing (document edge)</div>')
            continue
        parts.append(
            f'<div style="{SMALL}"><b>{label}</b>: <code>{_e(row[f"{side}_id"])}</code></div>'
            f'<div style="{TEXT_STYLE}">{highlight_html(_text(row[f"{side}_text"]), terms)}</div>'
        )
    return "".join(parts)


def gold_column(detail: QueryDetail, terms: list[str], key: str) -> None:
    listed = len(detail.retrieved)
    st.markdown("**Gold list: what the answer needs**")
    if detail.gold.empty:
        st.text("No relevant chunk: a no-answer query.")
        return
    for i, item in detail.gold.iterrows():
        where = found_text(item["retrieved_at"], listed)
        st.html(gold_card(item, terms, detail.has_corpus, where))
        if detail.has_corpus:
            with st.popover("Chunks before and after", key=f"{key}_nb_{i}"):
                st.html(neighbours_html(detail, item["chunk_id"], terms))


def gold_columns(baseline: QueryDetail, candidate: QueryDetail, terms: list[str], key: str):
    """Each gold chunk once, with where each run found it."""
    if baseline.gold.empty:
        st.text("No relevant chunk: a no-answer query.")
        return
    found_in_candidate = candidate.gold.set_index("chunk_id")["retrieved_at"]
    listed = (len(baseline.retrieved), len(candidate.retrieved))
    columns = st.columns(2, gap="medium")
    for i, item in baseline.gold.reset_index(drop=True).iterrows():
        where = (
            f"baseline: {found_text(item['retrieved_at'], listed[0])} · candidate: "
            f"{found_text(found_in_candidate.get(item['chunk_id']), listed[1])}"
        )
        with columns[i % 2]:
            st.html(gold_card(item, terms, baseline.has_corpus, where=where))
            if baseline.has_corpus:
                with st.popover("Chunks before and after", key=f"{key}_nb_{i}"):
                    st.html(neighbours_html(baseline, item["chunk_id"], terms))


def retrieved_column(
    detail: QueryDetail, terms: list[str], label: str, key: str, flagged: frozenset = frozenset()
) -> None:
    """The run's top k as cards (``flagged``: chunk ids to flag as new and unjudged), the
    rest of its list in a collapsed table."""
    k = detail.k
    st.markdown(f"**{escape_markdown(label)}: top {k}**")
    top = detail.retrieved[detail.retrieved["rank"] <= k]
    if top.empty:
        st.text("The run returned nothing for this query (it scores 0).")
    for _, item in top.iterrows():
        st.html(retrieved_card(item, terms, detail.has_corpus, item["chunk_id"] in flagged))
    below = detail.retrieved[detail.retrieved["rank"] > k]
    if not below.empty:
        last = int(below["rank"].max())
        ranks = f"Rank {last}" if last == k + 1 else f"Ranks {k + 1}–{last}"
        with st.expander(f"{ranks} (below the top {k})"):
            st.dataframe(
                as_words(
                    below.assign(mark=below["mark"].map(MARK_TEXT)),
                    {"score": ("{:.4f}", ""), "title": ("{}", ""), "text": ("{}", "")},
                )[["rank", "mark", "score", "chunk_id", "title", "text"]],
                hide_index=True,
                width="stretch",
                key=f"{key}_below",
            )


def reading_view(detail: QueryDetail, key: str, corpus_noted: bool = False) -> None:
    """Gold left, the run's top k right, as readable text (``key`` prefixes widget keys).

    ``corpus_noted``: the page already said that no corpus is loaded (said once only)."""
    terms = query_terms(detail.query.get("query"))
    if not detail.has_corpus and not corpus_noted:
        st.info(NO_CORPUS, icon="ℹ️")
    gold, retrieved = st.columns(2, gap="medium")
    with gold:
        gold_column(detail, terms, key)
    with retrieved:
        retrieved_column(detail, terms, f"Retrieved by {detail.run}", key)


def two_runs_view(
    baseline: QueryDetail, candidate: QueryDetail, key: str, new_unjudged: frozenset = frozenset()
) -> None:
    """A query's gold chunks, then the baseline's top k left and the candidate's right
    (``new_unjudged``: the candidate's chunks new in its top k and unjudged, flagged)."""
    terms = query_terms(baseline.query.get("query"))
    if not baseline.has_corpus:
        st.info(NO_CORPUS, icon="ℹ️")
    left, right = st.columns(2, gap="medium")
    with left:
        retrieved_column(baseline, terms, f"Baseline {baseline.run}", f"{key}_b")
    with right:
        retrieved_column(candidate, terms, f"Candidate {candidate.run}", f"{key}_c", new_unjudged)
    with st.expander(f"Gold chunks: {len(baseline.gold)}", expanded=True):
        gold_columns(baseline, candidate, terms, key)
