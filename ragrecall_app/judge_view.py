"""The Judge page's widgets: the annotator's name, the pool, the queue, coverage, grades.

The judge sees the query, the chunk text and the criterion, never the run, rank or score.
Keys 2 / 1 / 0 grade, H toggles harmful; every grade is committed to the judgment store at
once (:func:`ragrecall_core.inputs.store.submit`), and the queue resumes where this
annotator stopped (:func:`ragrecall_core.analysis.judge_session.advance`).
"""

from __future__ import annotations

import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.context import Context, current, state_key
from ragrecall_app.lazy import lazy_box
from ragrecall_app.render import escape_markdown, problems
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.errors import InputError
from ragrecall_core.inputs.store import JUDGE_PREFIX, kept_for_judges, look_alike, submit
from ragrecall_core.output.text import plural
from ragrecall_core.views.judge_text import chunks_with_text

# The name is confirmed explicitly (Enter, or the button), then shown as text: the field
# leaves the page, so the focus cannot stay in it and the next key press (2, 1, 0, H) grades
# instead of renaming the annotator. The confirmed name is kept in its own key: a widget's
# value is dropped when another page is shown.
CONFIRMED = "judge_name_kept"
REFUSED = "judge_name_refused"
NOTE = "judge_note"  # (kind, text) of the last action, shown once on the next run
# annotator -> the (query, chunk) this session graded, in order: what its undo takes back
GRADED_HERE = "judge_graded_here"


@st.cache_data(show_spinner=False, max_entries=8)
def has_text(files_key: str, _ctx: Context) -> bool:
    """Whether any corpus chunk has text (keyed by the input files: no grade changes it)."""
    return chunks_with_text(_ctx.ws) > 0


# ---------------------------------------------------------------- the annotator's name
def confirm_name() -> None:
    """Keep the typed name, unless it is kept for model judges or only looks like another
    annotator's (then say so at once, not on the first grade saved)."""
    typed = st.session_state.get("judge_annotator", "").strip()
    st.session_state.pop(REFUSED, None)
    if typed and kept_for_judges(typed):
        st.session_state[REFUSED] = (
            f"{typed}: names starting with “{JUDGE_PREFIX}” are kept for model judges' "
            "grades. Choose another name."
        )
    elif typed and (problem := look_alike(current().ws, typed)):
        st.session_state[REFUSED] = f"{typed}: {problem.expected}."
    elif typed:
        st.session_state[CONFIRMED] = typed


def change_name() -> None:
    st.session_state["judge_annotator"] = st.session_state.pop(CONFIRMED, "")


def name_row() -> str:
    """The confirmed annotator's name ('' until confirmed), with a way to change it."""
    name = st.session_state.get(CONFIRMED, "")
    who, action = st.columns([3, 1], vertical_alignment="center" if name else "bottom")
    if name:
        who.markdown(f"Judging as **{escape_markdown(name)}**")
        action.button("Change name", key="judge_change_name", on_click=change_name)
    else:
        who.text_input(
            "Your name (annotator)",
            key="judge_annotator",
            placeholder="e.g. anna",
            on_change=confirm_name,
            help="Required. Your grades are stored under this name; come back with the same "
            "name to resume where you stopped. Press Enter or the button to start.",
        )
        action.button("Start judging", key="judge_start", on_click=confirm_name)
        if refused := st.session_state.get(REFUSED):
            st.error(escape_markdown(refused))  # the name and the places are file text
    return name


# ---------------------------------------------------------------- the pool
def pool_inputs(ctx: Context) -> tuple[list[str], int]:
    """The runs to pool and the depth (view state, in the URL: its fit keeps loaded runs
    and a depth >= k), and which queries the sidebar's filters choose."""
    s = ctx.state
    c1, c2 = st.columns([3, 1])
    runs = c1.multiselect("Runs to pool", ctx.ws.run_names, key=state_key("pool_runs"))
    depth = c2.number_input(
        f"Pool depth d (≥ k = {s.k})",
        min_value=s.k,
        step=1,
        key=state_key("pool_depth"),
        help="Each run's top d chunks per query enter the pool.",
    )
    filters = {"split": s.split, "query type": s.query_type, "section": s.section}
    shown = ", ".join(f"{c} = {v}" for c, v in filters.items() if v) or "all queries"
    st.caption(
        "Queries: " + escape_markdown(shown) + " (the sidebar's split, query type and "
        "section filters choose the subset)."
    )
    return runs, depth


def query_ids(ctx: Context) -> tuple | None:
    """The sidebar's query subset (None: every query; empty: none matches)."""
    s = ctx.state
    ids = js.query_subset(ctx.ws, s.split, s.query_type, s.section)
    return None if ids is None else tuple(ids)


def pool_order(ctx: Context, runs: list[str], depth: int, ids: tuple | None):
    """The pool in queue order, computed once per (runs, depth, queries); a grade only
    advances the queue. A pool that cannot be built stops the page, saying why."""
    try:
        with st.spinner("Pooling the runs' top chunks …"):
            return analyses.pool_order(ctx.files_key, tuple(runs), depth, ids, ctx.state.k, ctx.ws)
    except InputError as error:
        problems(error, "Cannot build the pool")
        st.stop()


# ---------------------------------------------------------------- callbacks
def grade(ctx: Context, query_id: str, chunk_id: str, value: int) -> None:
    """Store the judgment now, unless this annotator already graded the chunk (a double
    press, or the same name in another tab): then say so, and the stored grade stands."""
    annotator = st.session_state.get(CONFIRMED, "")
    harmful = bool(st.session_state.get("judge_harmful", False))
    try:
        stored = submit(
            ctx.ws,
            query_id,
            chunk_id,
            value,
            annotator,
            harmful=harmful,
            reason=st.session_state.get("judge_reason", ""),
            only_if_new=True,
        )
    except InputError as error:
        st.session_state[NOTE] = ("error", f"Grade {value} not saved: {error}")
        return
    if not stored:
        st.session_state[NOTE] = (
            "warning",
            f"Grade {value} not saved: {annotator} already graded chunk {chunk_id} (in another "
            "tab, or a double press); that grade stands. Here is the next chunk.",
        )
        return
    st.session_state.setdefault(GRADED_HERE, {}).setdefault(annotator.strip(), []).append(
        (query_id, chunk_id)
    )
    st.session_state[NOTE] = (
        "caption",
        f"Saved grade {value}{' (harmful)' if harmful else ''} for the previous chunk.",
    )
    st.session_state["judge_harmful"] = False
    st.session_state["judge_reason"] = ""
    st.session_state["judge_reason_pick"] = None


def undo(ctx: Context, name: str) -> None:
    """Undo this annotator's latest stored grade (a new row: the store stays append-only):
    the one graded in this session, refused when a grade of the same name was stored since
    elsewhere (another tab's save stands); the latest stored one when this session graded
    none yet (judging resumed)."""
    graded = st.session_state.get(GRADED_HERE, {}).get(name.strip(), [])
    try:
        undone = js.undo_last(ctx.ws, name, graded[-1] if graded else None)
    except InputError as error:
        st.session_state[NOTE] = ("error", f"Nothing undone: {error}")
        return
    if graded:
        graded.pop()
    if undone is None:
        st.session_state[NOTE] = ("warning", f"{name} has no stored grade to undo.")
        return
    query_id, chunk_id = undone
    restored = js.has_judged(ctx.ws, name, query_id, chunk_id)
    st.session_state[NOTE] = (
        "caption",
        f"Undid the last grade of chunk {chunk_id}: "
        + ("the grade before it counts again." if restored else "it is back in your queue."),
    )


def undo_button(ctx: Context, name: str) -> None:
    st.button(
        "Undo last grade (U)",
        key="judge_undo",
        icon=":material/undo:",
        on_click=undo,
        args=(ctx, name),
        shortcut="U",
        disabled=not ctx.store.can_judge,
        help="Takes back your latest stored grade; the store keeps both (append-only).",
    )


def toggle_harmful() -> None:
    st.session_state["judge_harmful"] = not st.session_state.get("judge_harmful", False)


def pick_reason() -> None:
    picked = st.session_state.get("judge_reason_pick")
    if picked:
        st.session_state["judge_reason"] = picked


# ---------------------------------------------------------------- the queue
NOTES = {"caption": st.caption, "warning": st.warning, "error": st.error}


def queue(ctx: Context, q, name: str) -> None:
    """Progress, the last action's note, and the chunk to judge now (or that none is left)."""
    st.progress(
        q.share,
        text=f"{q.judged} of {q.size} pooled chunks judged by {escape_markdown(name)}",
    )
    note = st.session_state.pop(NOTE, None)
    if note:
        kind, text = note
        NOTES[kind](escape_markdown(text))
    item = q.current()
    if item is None:
        st.success(
            f"Nothing left to judge in this pool for {escape_markdown(name)}: "
            f"{plural(q.judged, 'chunk')} judged."
        )
        undo_button(ctx, name)
        return
    left, right = st.columns([3, 2], gap="large")
    with left:
        _item_text(ctx, q, item)
    with right:
        _grade_buttons(ctx, item, name)


def _item_text(ctx: Context, q, item: dict) -> None:
    """The query and the chunk's text, the chunk id, and the reason fields."""
    left_for_query = int((q.remaining["query_id"] == item["query_id"]).sum())
    st.markdown(
        f"**Query** · {left_for_query} chunks left to judge for it"
        if left_for_query > 1
        else "**Query** · its last chunk to judge"
    )
    with st.container(border=True, key="judge_query_box"):
        query_text = item["query"] if isinstance(item["query"], str) else ""
        st.text(query_text or f"(no query text; query id {item['query_id']})")
    st.markdown("**Retrieved chunk**")
    with st.container(border=True, key="judge_chunk_box"):
        chunk_text = item["text"] if isinstance(item["text"], str) else ""
        st.text(chunk_text or "(no chunk text: the corpus has none for this chunk)")
    st.caption(f"Chunk id: {escape_markdown(item['chunk_id'])}")
    st.pills(
        "Common reasons (one click fills the reason)",
        js.common_reasons(ctx.ws),
        key="judge_reason_pick",
        on_change=pick_reason,
        format_func=escape_markdown,  # pills render Markdown; reasons come from files
        wrap=True,
        disabled=not ctx.store.can_judge,
    )
    st.text_input(
        "Reason (optional, saved with the grade)",
        key="judge_reason",
        placeholder="a short cause, e.g. answer cut by the chunk boundary",
        disabled=not ctx.store.can_judge,
    )


def _grade_buttons(ctx: Context, item: dict, name: str) -> None:
    """2 / 1 / 0, harmful, their explanation and undo."""
    st.markdown("**Does this chunk help answer the query?**")
    for value in (2, 1, 0):
        st.button(
            f"{value} · {js.CRITERION[value]}",
            key=f"judge_grade_{value}",
            on_click=grade,
            args=(ctx, item["query_id"], item["chunk_id"], value),
            shortcut=str(value),
            width="stretch",
            wrap=True,
            disabled=not ctx.store.can_judge,
        )
    harmful = bool(st.session_state.get("judge_harmful", False))
    st.button(
        "Harmful: ON (H to clear)" if harmful else "Mark harmful (H)",
        key="judge_harmful_button",
        icon=":material/warning:",
        on_click=toggle_harmful,
        shortcut="H",
        width="stretch",
        disabled=not ctx.store.can_judge,
        help=js.HARMFUL.capitalize() + ". Combine it with any grade.",
    )
    if harmful:
        st.warning("This chunk will be saved as harmful with the grade you press.")
    st.caption(
        "Harmful = " + js.HARMFUL.split(": ", 1)[1] + ". Set it and the reason first; "
        "pressing 2, 1 or 0 saves the grade with them and shows the next chunk. While the "
        "cursor is in the reason field, keys type into it: click a grade instead."
    )
    undo_button(ctx, name)


# ---------------------------------------------------------------- below the queue
def coverage(ctx: Context, runs: list[str], depth: int, ids: tuple | None) -> None:
    """Pool coverage per run, computed only while its box is open (every grade changes it)."""
    with lazy_box("Pool coverage per run", "judge_coverage_open") as is_open:
        if is_open:
            _show_coverage(ctx, runs, depth, ids)


def _show_coverage(ctx: Context, runs: list[str], depth: int, ids: tuple | None) -> None:
    k = ctx.state.k
    st.caption(
        f"Judged share of each run's top {k} before judging this pool and once it is fully "
        f"judged (pool depth {depth}). Recall and precision computed against a pool are "
        "relative to that pool: a relevant chunk that no pooled run put in its top d stays "
        "unknown."
    )
    table = analyses.pool_coverage(ctx.key, tuple(runs), depth, k, ids, ctx.ws)
    now, after = f"judged share of top {k} now", "… after judging the pool"
    share = st.column_config.ProgressColumn(format="percent", min_value=0.0, max_value=1.0)
    st.dataframe(
        table.rename(
            columns={
                "in_pool": "in pool",
                "pool_depth": "pool depth",
                "judged_before": now,
                "judged_after": after,
            }
        ),
        hide_index=True,
        key="judge_coverage",
        column_config={now: share, after: share},
    )


def my_grades(ctx: Context, q, name: str) -> None:
    """This annotator's grades, and what is left as a sheet to grade offline."""
    mine = js.annotator_judgments(ctx.ws, name)
    with st.expander(f"Your grades ({len(mine)})"):
        if mine.empty:
            st.text("No grade of yours yet.")
        else:
            st.dataframe(mine, hide_index=True, key="judge_mine", width="stretch")
        if not q.remaining.empty:
            st.download_button(
                "Download what is left as a sheet to grade offline (CSV)",
                # built on the click (in its own thread), not on every key press
                lambda remaining=q.remaining: js.judging_sheet(
                    js.with_texts(ctx.ws, remaining), name
                ),
                file_name=f"judging_sheet_{name}.csv",
                mime="text/csv",
                key="judge_sheet",
                on_click="ignore",
            )
            st.caption(
                "Fill grade (2/1/0), harmful and reason, then import it on the Agreement page."
            )
