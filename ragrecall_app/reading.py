"""The reading view of one query: its text, then gold chunks beside retrieved chunks, as text.

Built for a shared screen, down to 1280x720 in presentation mode: compact chunk cards that
wrap (no sideways scroll), each with its mark as colour AND word, the document's title /
section / version / status, the reviewers under it, and the query's words marked in the
text; the text cut to a few lines until the card is opened (a click). Every piece of file
text goes through :func:`ragrecall_core.views.highlight.highlight_html` or ``html.escape``
before ``st.html``: the only tags in the HTML are the ones written here.
"""

from __future__ import annotations

import html
from collections.abc import Callable

import pandas as pd
import streamlit as st

from ragrecall_app.lazy import lazy_box
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
from ragrecall_core.views.judge_marks import marks_note
from ragrecall_core.views.marks import MARK_TEXT

# mark -> (border colour, background); the word from MARK_TEXT always goes with it
MARK_COLOURS = {
    RELEVANT: ("#1b7f3b", "#e6f4ea"),
    NOT_RELEVANT: ("#8a8a8a", "#f5f5f5"),
    HARMFUL: ("#c0470b", "#fdebdd"),
    UNJUDGED: ("#b08900", "#fff8dc"),
}
TEXT_STYLE = (
    "white-space:pre-wrap;overflow-wrap:anywhere;font-size:1.05rem;line-height:1.4;margin:.1rem 0"
)
SMALL = "font-size:.92rem;opacity:.85;overflow-wrap:anywhere"
HEADING_STYLE = "font-size:1.02rem;font-weight:600;overflow-wrap:anywhere"
CODE_STYLE = "font-size:.85em;font-weight:400"
# lines of chunk text a card shows until it is opened: a gold chunk's, a retrieved chunk's
# (two on a short screen, :data:`CARD_CSS`)
GOLD_LINES = 7
RETRIEVED_LINES = 3
# The compact cards: text cut to a few lines (``-webkit-line-clamp``, set on each) until a
# click opens the card's ``details``, whose disclosure triangle says it can open. On a
# screen up to 1000 px high a retrieved chunk shows two lines, so that the query, its gold
# and the top 3 retrieved fit 1280x720 (the top 5, 1600x1000). While the view is shown, a
# page title in a container keyed ``rr_title...`` is smaller. A constant: nothing from any
# file goes in.
CARD_CSS = """<style>
.rr-clip { display: -webkit-box; -webkit-box-orient: vertical; overflow: hidden; }
.rr-card details[open] .rr-clip { display: block; -webkit-line-clamp: none !important; }
.rr-card summary { cursor: pointer; }
@media (max-height: 1000px) { .rr-short { -webkit-line-clamp: 2 !important; } }
[class*="st-key-rr_title"] h1 { font-size: 2.2rem; padding: 0; }
</style>"""
# how a card opens (whole text; a gold chunk's, the chunks around it too), said once
# beside the gold list (Markdown, a constant)
OPEN_HINT = "click a card to open it"
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
    parts = [f'<span style="{CODE_STYLE}"><code>{_e(item["chunk_id"])}</code></span>']
    for name in ("title", "section", "version", "status"):
        value = _e(item.get(name))
        if value:
            parts.append(f"{name}: {value}" if name != "title" else f"<b>{value}</b>")
    return " · ".join(parts)


def _clipped(body: str, style: str, lines: int, short: bool = False) -> str:
    """``body`` (escaped HTML) cut to ``lines`` lines with an ellipsis (fewer on a short
    screen if ``short``); whole once its card is opened (:data:`CARD_CSS`)."""
    names = "rr-clip rr-short" if short else "rr-clip"
    return f'<div class="{names}" style="{style};-webkit-line-clamp:{lines}">{body}</div>'


def _card(
    heading: str,
    item: pd.Series,
    terms: list[str],
    has_corpus: bool,
    why: str = "",
    lines: int = RETRIEVED_LINES,
    more: str = "",
    retrieved: bool = False,
) -> str:
    """One chunk as a compact card: mark-coloured edge, heading, then the document line,
    the text cut to ``lines`` lines, the gold's rationale (``why``, escaped here) and the
    reviewers' grades and reasons, each but the text cut to a line. A click on the card
    shows it whole, and ``more`` (escaped HTML) under it: an HTML ``details``, no rerun.

    A ``retrieved`` chunk's card is shorter still: two lines of text on a screen up to
    1000 px high, and its reviewers (whose verdict its mark already says) shown once it
    is opened."""
    border, background = MARK_COLOURS[item["mark"]]
    if retrieved and _e(item.get("reviews")):
        more = f'<div style="{SMALL}"><b>Reviewers</b>: {_e(item.get("reviews"))}</div>{more}'
        item = item.drop("reviews")
    text = (
        _clipped(highlight_html(item["text"], terms), TEXT_STYLE, lines, retrieved)
        if has_corpus and isinstance(item.get("text"), str)
        else (f'<div style="{SMALL}">(not in the corpus)</div>' if has_corpus else "")
    )
    notes = [("Why gold", _e(why)), ("Reviewers", _e(item.get("reviews")))]
    reviewed = "".join(
        _clipped(f"<b>{label}</b>: {value}", SMALL, 1) for label, value in notes if value
    )
    return (
        f'<div class="rr-card" style="border-left:8px solid {border};background:{background};'
        'color:#1a1a1a;padding:.25rem .7rem;border-radius:4px">'
        f'<details><summary><span style="{HEADING_STYLE}">{heading}</span>{judge_badge(item)}'
        f"{_clipped(_document_line(item), SMALL, 1)}{text}{reviewed}"
        f"</summary>{more}</details></div>"
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
    return _card(heading, item, terms, has_corpus, retrieved=True)


def gold_card(
    item: pd.Series,
    terms: list[str],
    has_corpus: bool,
    where: str,
    lines: int = GOLD_LINES,
    more: str = "",
) -> str:
    """A gold chunk; ``where``: where the run(s) found it (plain text, escaped here);
    ``more``: what its opened card shows under it (escaped HTML: its neighbours)."""
    source = "gold" if item["source"] == "gold" else "reviewers' grade"
    heading = (
        f"{html.escape(where)} · {_mark_badge(item['mark'])} · grade {_e(item['grade'])} ({source})"
    )
    return _card(heading, item, terms, has_corpus, item.get("rationale"), lines, more)


def gold_lines(gold: pd.DataFrame) -> int:
    """Lines of text per gold card: :data:`GOLD_LINES` shared by the gold chunks (at least
    3), so that two of them fit beside the top 3 retrieved on a 1280x720 screen."""
    return max(3, GOLD_LINES // max(1, len(gold)))


def neighbours_block(detail: QueryDetail, chunk_id: str, terms: list[str]) -> str:
    """A gold chunk's neighbours as the bottom of its opened card ('' without a corpus)."""
    if not detail.has_corpus:
        return ""
    return (
        '<div style="border-top:1px solid #0003;margin-top:.3rem;padding-top:.2rem">'
        f"{neighbours_html(detail, chunk_id, terms)}</div>"
    )


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
            f'<div style="{SMALL}"><b>{label}</b>: <span style="{CODE_STYLE}">'
            f"<code>{_e(row[f'{side}_id'])}</code></span></div>"
            f'<div style="{TEXT_STYLE};opacity:.8">'
            f"{highlight_html(_text(row[f'{side}_text']), terms)}</div>"
        )
    return "".join(parts)


def gold_column(
    detail: QueryDetail, terms: list[str], key: str, below: Callable[[], None] | None = None
) -> None:
    """The gold chunks as cards (opened, each shows its neighbours too); then ``below``
    (the page's verdict form), in the room the gold chunks leave."""
    listed = len(detail.retrieved)
    st.markdown(f"**Gold list: what the answer needs** :gray[· {OPEN_HINT}]")
    if detail.gold.empty:
        st.text("No relevant chunk: a no-answer query.")
    lines = gold_lines(detail.gold)
    for _, item in detail.gold.iterrows():
        where = found_text(item["retrieved_at"], listed)
        more = neighbours_block(detail, item["chunk_id"], terms)
        st.html(gold_card(item, terms, detail.has_corpus, where, lines, more))
    if below is not None:
        below()


def gold_columns(baseline: QueryDetail, candidate: QueryDetail, terms: list[str], key: str):
    """Each gold chunk once, with where each run found it."""
    if baseline.gold.empty:
        st.text("No relevant chunk: a no-answer query.")
        return
    found_in_candidate = candidate.gold.set_index("chunk_id")["retrieved_at"]
    listed = (len(baseline.retrieved), len(candidate.retrieved))
    st.caption(OPEN_HINT)
    columns = st.columns(2, gap="medium")
    for i, item in baseline.gold.reset_index(drop=True).iterrows():
        where = (
            f"baseline: {found_text(item['retrieved_at'], listed[0])} · candidate: "
            f"{found_text(found_in_candidate.get(item['chunk_id']), listed[1])}"
        )
        more = neighbours_block(baseline, item["chunk_id"], terms)
        with columns[i % 2]:
            st.html(gold_card(item, terms, baseline.has_corpus, where, more=more))


def retrieved_column(
    detail: QueryDetail, terms: list[str], label: str, key: str, flagged: frozenset = frozenset()
) -> None:
    """The run's top k as cards (``flagged``: chunk ids to flag as new and unjudged), the
    rest of its list in a collapsed table."""
    k = detail.k
    st.markdown(f"**{escape_markdown(label)}: top {k}**{judge_legend(detail)}")
    top = detail.retrieved[detail.retrieved["rank"] <= k]
    if top.empty:
        st.text("The run returned nothing for this query (it scores 0).")
    for _, item in top.iterrows():
        st.html(retrieved_card(item, terms, detail.has_corpus, item["chunk_id"] in flagged))
    below = detail.retrieved[detail.retrieved["rank"] > k]
    if not below.empty:
        last = int(below["rank"].max())
        ranks = f"Rank {last}" if last == k + 1 else f"Ranks {k + 1}–{last}"
        # lazy: the table (up to ~95 chunks with their text at 10,000 x 100) is sent only
        # while its box is open, not with every query opened (issue 30)
        with lazy_box(f"{ranks} (below the top {k})", f"{key}_below_open") as is_open:
            if is_open:
                st.dataframe(
                    as_words(
                        below.assign(mark=below["mark"].map(MARK_TEXT)),
                        {"score": ("{:.4f}", ""), "title": ("{}", ""), "text": ("{}", "")},
                    )[["rank", "mark", "score", "chunk_id", "title", "text"]],
                    hide_index=True,
                    width="stretch",
                    key=f"{key}_below",
                )


def reading_view(
    detail: QueryDetail,
    key: str,
    corpus_noted: bool = False,
    below_gold: Callable[[], None] | None = None,
) -> None:
    """Gold left, the run's top k right, as readable text (``key`` prefixes widget keys).

    ``corpus_noted``: the page already said that no corpus is loaded (said once only);
    ``below_gold``: draws what goes under the gold chunks (the page's verdict form)."""
    terms = query_terms(detail.query.get("query"))
    st.html(CARD_CSS)
    if not detail.has_corpus and not corpus_noted:
        st.info(NO_CORPUS, icon="ℹ️")
    gold, retrieved = st.columns(2, gap="medium")
    with gold.container(gap="xsmall"):
        gold_column(detail, terms, key, below_gold)
    with retrieved.container(gap="xsmall"):
        retrieved_column(detail, terms, f"Retrieved by {detail.run}", key)


TABLE_STYLE = "border-collapse:collapse;font-size:.92rem;line-height:1.35"
CELL_STYLE = "padding:.2rem .9rem .2rem 0;border-bottom:1px solid #0002;text-align:left"
# a table's height before it scrolls (an entered-or-left list at k = 100 holds 200 rows)
TABLE_HEIGHT = "20rem"


def table_html(frame: pd.DataFrame) -> str:
    """A small table (a few rows: where a query's relevant chunks moved, what entered or
    left its top k) as escaped HTML: every header and cell through ``html.escape``, a
    missing cell as the empty string. Not ``st.dataframe``: its canvas widget costs the
    browser ~30 ms to draw for each of these tables on every query opened."""
    head = "".join(f'<th style="{CELL_STYLE}">{_e(c)}</th>' for c in frame.columns)
    rows = "".join(
        "<tr>" + "".join(f'<td style="{CELL_STYLE}">{_e(v)}</td>' for v in row) + "</tr>"
        for row in frame.itertuples(index=False, name=None)
    )
    return (
        f'<div style="max-height:{TABLE_HEIGHT};overflow-y:auto">'
        f'<table style="{TABLE_STYLE}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{rows}</tbody></table></div>"
    )


def two_runs_view(
    baseline: QueryDetail, candidate: QueryDetail, key: str, new_unjudged: frozenset = frozenset()
) -> None:
    """A query's gold chunks, then the baseline's top k left and the candidate's right
    (``new_unjudged``: the candidate's chunks new in its top k and unjudged, flagged)."""
    terms = query_terms(baseline.query.get("query"))
    st.html(CARD_CSS)
    if not baseline.has_corpus:
        st.info(NO_CORPUS, icon="ℹ️")
    left, right = st.columns(2, gap="medium")
    with left.container(gap="xsmall"):
        retrieved_column(baseline, terms, f"Baseline {baseline.run}", f"{key}_b")
    with right.container(gap="xsmall"):
        retrieved_column(candidate, terms, f"Candidate {candidate.run}", f"{key}_c", new_unjudged)
    with st.expander(f"Gold chunks: {len(baseline.gold)}", expanded=True):
        gold_columns(baseline, candidate, terms, key)


# ---------------------------------------------------------------- model judges' marks
# A model judge's grade (issue 32) is its own mark: violet, dashed, beside the heading, never
# the mark colour or word the measures use (a constant: the judge's name is escaped below).
JUDGE_STYLE = (
    "margin-left:.5rem;padding:0 .35rem;border:1px dashed #6a3fa0;border-radius:3px;"
    "color:#5a2d91;font-size:.9rem;white-space:nowrap"
)


def judge_badge(item: pd.Series) -> str:
    """The chunk's model judges' grades (``judge:NAME 2``) as a mark apart ('' if none)."""
    marks = item.get("judge_marks")
    if not isinstance(marks, str) or not marks:
        return ""
    return (
        f'<span class="rr-judge" style="{JUDGE_STYLE}" title="a model judge\'s grade">'
        f"⚖ {html.escape(marks)}</span>"
    )


def judge_legend(detail: QueryDetail) -> str:
    """What the ⚖ marks are, for the end of a list's heading (Markdown; '' without any): on
    the heading's line, so the cards keep their place on a 1280x720 screen."""
    note = marks_note(detail)
    return f" :gray[· {escape_markdown(note)}]" if note else ""
