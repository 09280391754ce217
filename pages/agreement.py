"""Agreement: annotator pairs (identical share, Cohen's kappa), disagreements and their
resolution, grades export / import, and gold gap candidates."""

import tempfile
from pathlib import Path

import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.context import current, state_key
from ragrecall_app.render import escape_markdown, problems
from ragrecall_app.scope import scope_note
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.analysis.gold_gaps import gold_gaps
from ragrecall_core.errors import InputError
from ragrecall_core.inputs.store import resolve
from ragrecall_core.output.text import plural
from ragrecall_core.views import scope
from ragrecall_core.views.compare_view import view_query_ids

ctx = current()
ws = ctx.ws
store = ctx.store

st.title("Agreement")
scope_note(ctx, scope.QUERY_SUBSET)
st.caption(
    "How far annotators agree, where they disagree and how each disagreement was settled; "
    "all grades to download, a graded sheet to import, and what the gold set may lack."
)
if store.note:
    st.warning(escape_markdown(store.note), icon=":material/lock:")

# ---------------------------------------------------------------- pairs
s = ctx.state
view_ids = view_query_ids(ws, s.split, s.query_type, s.section)
if view_ids is not None:
    st.caption(
        f"Pairs and disagreements: the {plural(len(view_ids), 'query', 'queries')} under the "
        "sidebar's filters. "
        "All grades (export / import) and gold gap candidates do not follow the sidebar's "
        "filters: they cover every query."
    )
result, items = analyses.agreement_view(ctx.key, None if view_ids is None else tuple(view_ids), ws)
st.subheader("Annotator pairs")
st.caption(
    "On the chunks both annotators graded: the share of identical grades, Cohen's kappa "
    "(agreement beyond chance; 1 = perfect, 0 = chance) and linear-weighted kappa (a 2 vs 0 "
    "disagreement costs twice a 2 vs 1)."
)
if result.pairs.empty:
    st.info("No chunk was graded by two annotators yet.")
else:
    st.dataframe(
        result.pairs.rename(
            columns={
                "annotator_a": "annotator A",
                "annotator_b": "annotator B",
                "items": "shared chunks",
                "identical": "identical share",
                "kappa": "Cohen's kappa",
                "kappa_linear": "linear-weighted kappa",
            }
        ),
        hide_index=True,
        key="agreement_pairs",
        column_config={
            "identical share": st.column_config.NumberColumn(format="percent"),
            "Cohen's kappa": st.column_config.NumberColumn(format="%.3f"),
            "linear-weighted kappa": st.column_config.NumberColumn(format="%.3f"),
        },
    )

# ---------------------------------------------------------------- disagreements
st.subheader("Disagreements")
if items.empty and result.pairs.empty:
    # nothing to compare is no agreement: a neutral line, not a green one
    st.info("Nothing graded by two annotators yet: no disagreement to review.")
elif items.empty:
    st.success("No disagreement between annotators.")
else:
    open_n = int((items["status"] == "open").sum())
    st.caption(
        f"{plural(len(items), 'chunk')} graded differently (grade or harmful flag); "
        f"{open_n} open. "
        "A resolution is recorded beside the annotators' grades, which stay as they were; "
        "evaluation uses the latest resolution."
    )
    st.dataframe(items, hide_index=True, key="agreement_items", width="stretch")
    labels = {
        f"{r.query_id} · {r.chunk_id}": (r.query_id, r.chunk_id)
        for r in items.sort_values("status", key=lambda c: c != "open", kind="stable").itertuples()
    }
    pick = st.selectbox("Disagreement to review", list(labels), key=state_key("disagreement"))
    query_id, chunk_id = labels[pick]
    query_text, chunk_text = js.item_text(ws, query_id, chunk_id)
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.markdown("**Query**")
        with st.container(border=True):
            st.text(query_text or f"(no query text; query id {query_id})")
        st.markdown("**Chunk**")
        with st.container(border=True):
            st.text(chunk_text or "(no chunk text: the workspace has no corpus)")
        st.markdown("**Annotators' grades**")
        st.dataframe(
            js.item_grades(ws, query_id, chunk_id), hide_index=True, key="agreement_item_grades"
        )
        history = js.item_resolutions(ws, query_id, chunk_id)
        st.markdown("**Resolutions recorded** (the latest one counts)")
        if history.empty:
            st.text("No resolution recorded yet.")
        else:
            st.dataframe(history, hide_index=True, key="agreement_history")
    with right:
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
                disabled=not store.can_judge,
            )
        if done:
            try:
                resolve(ws, query_id, chunk_id, value, resolver, harmful, reason)
            except InputError as error:
                problems(error, "Resolution not recorded")
            else:
                st.session_state["agreement_saved"] = f"Resolution recorded for {pick}."
                st.rerun()
        saved = st.session_state.pop("agreement_saved", None)
        if saved:
            st.success(escape_markdown(saved))

# ---------------------------------------------------------------- export / import
st.subheader("All grades")
graded, grades_jsonl, grades_csv = analyses.grade_exports(ctx.key, ws)
st.caption(
    f"{graded} current grades (grades files and the Judge page; the latest per "
    "annotator and chunk). CSV cells that a spreadsheet would run as a formula are prefixed "
    "with '."
)
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
with st.expander("Import a graded sheet (JSONL or CSV) from an offline judge"):
    st.caption(
        "Columns query_id, chunk_id, grade (2/1/0), harmful, reason, annotator (a row "
        "without an annotator takes the file name). The file is checked first; nothing "
        "is imported if it has any problem."
    )
    upload = st.file_uploader("Grades file", type=["jsonl", "json", "csv"], key="agreement_upload")
    if upload is not None and st.button(
        "Import", key="agreement_import", disabled=not store.can_judge
    ):
        with tempfile.TemporaryDirectory() as folder:
            # the file name names a row's annotator when the row has none ("." and "..",
            # which are no file name, are replaced)
            name = Path(upload.name).name
            path = Path(folder) / (name if name.strip(".") else "grades.csv")
            path.write_bytes(upload.getvalue())
            try:
                rows = js.import_grades(ws, path)
            except InputError as error:
                problems(error, f"{upload.name} was not imported")
            else:
                st.session_state["agreement_imported"] = js.import_summary(rows, upload.name)
                st.rerun()
    imported = st.session_state.pop("agreement_imported", None)
    if imported:
        st.success(escape_markdown(imported))

# ---------------------------------------------------------------- gold gaps
st.subheader("Gold gap candidates")
gaps = gold_gaps(ws)
st.caption(
    "Chunks reviewers graded relevant that the gold set lacks, relevant grades on no-answer "
    "queries, and gold chunks a reviewer flagged harmful. Download them as a proposed gold "
    "update to review; the gold file is never rewritten."
)
if gaps.empty:
    st.success("No gold gap candidates.")
else:
    shown = gaps.assign(annotators=[", ".join(a) for a in gaps["annotators"]])
    st.dataframe(shown, hide_index=True, key="agreement_gaps", width="stretch")
    st.download_button(
        "Download the proposed gold update (JSONL)",
        js.proposal_jsonl(gaps),
        file_name="gold_proposal.jsonl",
        mime="application/jsonl",
        key="agreement_proposal",
        on_click="ignore",
    )
