"""The Agreement page's sections as widgets: annotator pairs, one disagreement and its
resolution form, the grades export / import, and gold gap candidates. The words come from
:mod:`ragrecall_core.views.agreement_view`; ``pages/agreement.py`` puts the sections in order."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.context import Context, drop_unoffered, state_key
from ragrecall_app.lazy import lazy_box
from ragrecall_app.render import (
    escape_markdown,
    escaped_table,
    literal_frame,
    problems,
    scrolled_table,
)
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.analysis.gold_gaps import gold_gaps
from ragrecall_core.errors import InputError
from ragrecall_core.inputs.store import resolve
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.literal import as_words
from ragrecall_core.views import agreement_view as av
from ragrecall_core.views import judge_calibration_view as jcv


class Shown(NamedTuple):
    """Annotator pairs and disagreements under the sidebar's filters, as the page shows
    them (:func:`listed`), and the disagreements as computed (the picker's labels)."""

    pairs: pd.DataFrame
    items: pd.DataFrame
    listed_items: pd.DataFrame


def view(ctx: Context) -> Shown:
    """Annotator pairs and the disagreements under the sidebar's filters (shared)."""

    def build() -> Shown:
        result, items = analyses.agreement_view(ctx.key, ids, ctx.ws)
        pairs = as_words(result.pairs.rename(columns=av.PAIR_COLUMNS), av.PAIR_FORMATS)
        shown = literal_frame(pairs)
        return Shown(shown, items, listed(items))

    ids = ctx.view_ids()
    return ctx.memo("agreement", build)


def pairs(frame: pd.DataFrame) -> None:
    """Each annotator pair's identical share and kappas, as a static table."""
    st.subheader("Annotator pairs")
    st.caption(av.PAIRS_CAPTION)
    if frame.empty:
        st.info("No chunk was graded by two annotators yet.")
        return
    escaped_table(frame)


def listed(frame: pd.DataFrame) -> pd.DataFrame:
    """A list as :func:`listing` shows it: escaped for a static table, as it is for a grid
    (which shows text as written: an escape would show)."""
    return frame if len(frame) > av.LONG_LIST else literal_frame(frame)


def listing(frame: pd.DataFrame, key: str) -> None:
    """A list that grows with the grades (disagreements, gold gap candidates), as
    :func:`listed` made it: a static table, in a box that scrolls past :data:`VISIBLE_ROWS`
    rows (its header kept on screen, :func:`~ragrecall_app.render.scrolled_table`); past
    :data:`~ragrecall_core.views.agreement_view.LONG_LIST` rows a grid (``key``), drawn only
    as far as it is scrolled. A grid's canvas is costly to mount: the switch to
    this page was the slowest of issue 30 while it drew up to six (benchmarks/README.md)."""
    if len(frame) > av.LONG_LIST:
        st.dataframe(frame, hide_index=True, key=key, width="stretch")
    elif len(frame) > VISIBLE_ROWS:
        scrolled_table(frame, key, LIST_PX)
    else:
        escaped_table(frame)


# rows of a list shown before its box scrolls, and the box's height (a row is ~34 px)
VISIBLE_ROWS = 12
LIST_PX = 34 * (VISIBLE_ROWS + 1)


@st.cache_data(show_spinner=False, max_entries=16)
def _calibration(key: str, ids: tuple | None, _ws: Workspace) -> jcv.CalibrationView:
    """Keyed by content: a stored grade (a judge's too) changes ``key``."""
    return jcv.calibration_view(_ws, None if ids is None else list(ids))


def judges_vs_humans(ctx: Context) -> None:
    """Each model judge against each annotator and the humans' resolved grades (issue 32):
    the figures of :func:`jcv.calibration_view`, under the sidebar's filters."""
    st.subheader("Model judges vs humans")
    view, table, confusions = judges(ctx)
    if view.note:
        st.info(view.note)
        return
    st.caption(jcv.CAPTION)
    for line in view.warnings:
        st.warning(escape_markdown(line), icon="⚠️")
    escaped_table(table)
    st.caption(av.JUDGE_LEGEND)
    title = f"Confusion tables ({len(view.confusions)})"
    with lazy_box(title, "agreement_confusions_open") as is_open:
        if is_open:  # lazy: a closed box's tables would be sent and laid out on every visit
            confusion_tables(confusions)


def confusion_tables(confusions: list) -> None:
    """Each judge's confusion table against each annotator (titled, escaped), three a row."""
    st.caption("Rows: the grade of the annotator (or resolution) named; columns: the judge's.")
    columns = st.columns(3)
    for i, (title, counts) in enumerate(confusions):
        with columns[i % 3]:
            st.markdown(f"**{escape_markdown(title)}**")
            escaped_table(counts, hide_index=False)


def judges(ctx: Context) -> tuple[jcv.CalibrationView, pd.DataFrame, list]:
    """The judges' figures under the sidebar's filters, their table and their confusion
    tables as shown (short headers, titled, escaped): shared."""

    def build() -> tuple[jcv.CalibrationView, pd.DataFrame, list]:
        view = _calibration(ctx.key, ctx.view_ids(), ctx.ws)
        table = literal_frame(view.table.rename(columns=av.JUDGE_HEADERS))
        confusions = [(title, literal_frame(_short_labels(c))) for title, c in view.confusions]
        return view, table, confusions

    return ctx.memo("agreement_judges", build)


def _short_labels(counts: pd.DataFrame) -> pd.DataFrame:
    """A confusion table labelled ``grade 0`` (rows) and ``judge 0`` (columns): its title
    names both sides, and three of them must fit side by side at 1600 px."""
    grade = lambda label: str(label).rsplit(": ", 1)[-1]  # noqa: E731
    return counts.set_axis([f"grade {grade(r)}" for r in counts.index]).set_axis(
        [f"judge {grade(c)}" for c in counts.columns], axis=1
    )


REVIEW_TITLE = "Read and resolve the disagreement picked"
REVIEW_OPEN = "agreement_review_open"
# set once the page has run in this session: only its first run may be a link's
_VISITED = "_agreement_visited"


def disagreements(ctx: Context, shown: Shown) -> None:
    """The chunks graded differently, one picked to read and resolve."""
    st.subheader("Disagreements")
    items, any_pair = shown.items, not shown.pairs.empty
    if items.empty:
        if any_pair:
            st.success("No disagreement between annotators.")
        else:
            st.info(av.NOTHING_SHARED)
        return
    st.caption(av.disagreements_caption(items))
    listing(shown.listed_items, "agreement_items")
    labels = av.disagreement_labels(items)
    _open_if_linked(labels)
    pick = st.selectbox(
        "Disagreement to review",
        list(labels),
        key=state_key("disagreement"),
        on_change=_open_review,
    )
    query_id, chunk_id = labels[pick]
    with lazy_box(REVIEW_TITLE, REVIEW_OPEN) as is_open:
        if is_open:  # lazy: the reading and its form were ~15 elements drawn on every visit
            left, right = st.columns([3, 2], gap="large")
            with left:
                item(ctx, query_id, chunk_id)
            with right:
                resolution_form(ctx, query_id, chunk_id, pick)


def _open_review() -> None:
    """A disagreement picked is one asked for: its reading opens."""
    st.session_state[REVIEW_OPEN] = True


def _open_if_linked(labels: dict) -> None:
    """On the page's first run in the session, open the reading when the session's view
    names a disagreement already (a link's ``pick``). Read before the picker is drawn,
    which fills the view with the first disagreement. One this view does not list is
    named, and nothing opens: the first one's reading is not the one linked."""
    if st.session_state.get(_VISITED):
        return
    st.session_state[_VISITED] = True
    among = "the disagreements this view lists"
    if drop_unoffered("disagreement", labels, "Disagreement", among, "pick one below."):
        _open_review()


def _item(ws: Workspace, query_id: str, chunk_id: str) -> tuple:
    """The query's and the chunk's text, and the grades and resolutions as shown (escaped)."""
    grades = js.item_grades(ws, query_id, chunk_id)
    history = js.item_resolutions(ws, query_id, chunk_id)
    return (
        *js.item_text(ws, query_id, chunk_id),
        literal_frame(av.shown_grades(grades)),
        literal_frame(av.shown_grades(history)),
    )


def item(ctx: Context, query_id: str, chunk_id: str) -> None:
    """One disagreement: the query, the chunk, each annotator's grade and the resolutions
    (read once per stored grade or resolution: the context's key changes with each)."""
    query_text, chunk_text, grades, history = ctx.memo(
        "agreement_item", lambda: _item(ctx.ws, query_id, chunk_id), query_id, chunk_id
    )
    st.markdown("**Query**")
    with st.container(border=True):
        st.text(query_text or f"(no query text; query id {query_id})")
    st.markdown("**Chunk**")
    with st.container(border=True):
        st.text(chunk_text or "(no chunk text: the workspace has no corpus)")
    st.markdown("**Annotators' grades**")
    escaped_table(grades)
    st.markdown("**Resolutions recorded** (the latest one counts)")
    if history.empty:
        st.text("No resolution recorded yet.")
    else:
        escaped_table(history)


def resolution_form(ctx: Context, query_id: str, chunk_id: str, label: str) -> None:
    """A grade, harmful flag, reason and resolver for one disagreement, recorded on submit."""
    with st.form("agreement_resolve", border=True):
        st.markdown("**Resolve**")
        value = st.radio(
            "Grade",
            [2, 1, 0],
            format_func=lambda g: f"{g} · {js.CRITERION[g]}",
            key="agreement_grade",
            index=None,
        )
        harmful = st.checkbox(
            "Harmful (" + js.HARMFUL.split(": ", 1)[1] + ")", key="agreement_harmful"
        )
        reason = st.text_input("Reason", key="agreement_reason")
        resolver = st.text_input("Your name (resolver)", key="agreement_resolver")
        done = st.form_submit_button(
            "Record resolution",
            type="primary",
            key="agreement_record",
            disabled=not ctx.store.can_judge,
        )
    if done:
        try:
            resolve(ctx.ws, query_id, chunk_id, value, resolver, harmful, reason)
        except InputError as error:
            problems(error, "Resolution not recorded")
        else:
            st.session_state["agreement_saved"] = f"Resolution recorded for {label}."
            st.rerun()
    saved = st.session_state.pop("agreement_saved", None)
    if saved:
        st.success(escape_markdown(saved))


def exports(ctx: Context) -> tuple[int, str, str]:
    """How many grades there are, and all of them as JSON lines and as CSV (shared)."""
    return ctx.memo("agreement_exports", lambda: analyses.grade_exports(ctx.key, ctx.ws))


def grade_downloads(ctx: Context) -> None:
    """Every current grade as JSONL and CSV."""
    st.subheader("All grades")
    graded, grades_jsonl, grades_csv = exports(ctx)
    st.caption(av.grades_caption(graded))
    c1, c2, _ = st.columns([1, 1, 3])
    c1.download_button(
        "Download JSONL",
        grades_jsonl,
        file_name="grades.jsonl",
        mime="application/jsonl",
        key="agreement_jsonl",
        on_click="ignore",
    )
    c2.download_button(
        "Download CSV",
        grades_csv,
        file_name="grades.csv",
        mime="text/csv",
        key="agreement_csv",
        on_click="ignore",
    )


def grade_import(ctx: Context) -> None:
    """A graded sheet from an offline judge, checked whole before anything is imported."""
    title = "Import a graded sheet (JSONL or CSV) from an offline judge"
    with lazy_box(title, "agreement_import_open") as is_open:
        if is_open:  # lazy: a closed box's file uploader was sent and drawn on every visit
            _import_form(ctx)


def _import_form(ctx: Context) -> None:
    """The import box's caption, file uploader and button, and what the last import did."""
    st.caption(av.IMPORT_CAPTION)
    upload = st.file_uploader("Grades file", type=["jsonl", "json", "csv"], key="agreement_upload")
    if upload is not None and st.button(
        "Import", key="agreement_import", disabled=not ctx.store.can_judge
    ):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / av.upload_file_name(upload.name)
            path.write_bytes(upload.getvalue())
            try:
                rows = js.import_grades(ctx.ws, path)
            except InputError as error:
                problems(error, f"{upload.name} was not imported")
            else:
                st.session_state["agreement_imported"] = js.import_summary(rows, upload.name)
                st.rerun()
    imported = st.session_state.pop("agreement_imported", None)
    if imported:
        st.success(escape_markdown(imported))


def gaps(ctx: Context) -> tuple[pd.DataFrame, str]:
    """The gold gap candidates as shown and as a proposed gold update (JSONL): shared, read
    once per stored grade (the context's key changes with each)."""

    def build() -> tuple[pd.DataFrame, str]:
        found = gold_gaps(ctx.ws)
        shown = found.assign(annotators=[", ".join(a) for a in found["annotators"]])
        return listed(shown), "" if found.empty else js.proposal_jsonl(found)

    return ctx.memo("agreement_gaps", build)


def gold_gap_candidates(ctx: Context) -> None:
    """What the gold set may lack, as a proposed gold update to download (read once per
    stored grade: the context's key changes with each)."""
    st.subheader("Gold gap candidates")
    shown, proposal = gaps(ctx)
    st.caption(av.GAPS_CAPTION)
    if shown.empty:
        st.success("No gold gap candidates.")
        return
    listing(shown, "agreement_gaps")
    st.download_button(
        "Download the proposed gold update (JSONL)",
        proposal,
        file_name="gold_proposal.jsonl",
        mime="application/jsonl",
        key="agreement_proposal",
        on_click="ignore",
    )
