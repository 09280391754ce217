"""ragrecall dashboard: one sidebar for every page, the view state kept in the URL.

    ragrecall ui [W]                                       # data_samples/ or W
    python -m ragrecall_app.serve -- --workspace W         # what `ragrecall ui` runs
    python -m ragrecall_app.serve -- --gold G --run R1 --run R2 --grades F --corpus C
    RAGRECALL_WORKSPACE=W python -m ragrecall_app.serve

``streamlit run app.py`` works too, but its very first deep link after a server start
shows a false "Page not found" dialog (see ragrecall_app/serve.py for why).

Adding a page: one file in pages/, one line in PAGE_TABLE below and one in
dashboard_state.PAGE_FIELDS (its own view state, which its URL carries).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import streamlit as st

from ragrecall_app import chart_code, context, store_question
from ragrecall_app.choices import pick_many, pick_one
from ragrecall_app.context import put_state, state_key, state_value
from ragrecall_app.render import escape_markdown, new_page, presentation_style, problems
from ragrecall_core.analysis.pass_rule import RULE_NAMES, pass_measure, rule_line
from ragrecall_core.errors import InputError
from ragrecall_core.output.text import plural
from ragrecall_core.views.charts import run_colors
from ragrecall_core.views.dashboard_state import (
    HARMFUL,
    PARTIAL,
    REL_LEVELS,
    UNITS,
    Source,
    ViewState,
    parse_source,
)
from ragrecall_core.views.judge_marks import POLICY_HELP, policy_label

HERE = Path(__file__).resolve().parent
# url_path differs from the file stem on purpose: AppTest (streamlit 1.67) runs a page
# whose hash matches a pages/ file name directly, without this script and its sidebar.
# (file in pages/, title, icon, url_path); the file's stem names the page's own view state
# (dashboard_state.PAGE_FIELDS), which its URL carries besides the shared view
PAGE_TABLE = (
    ("overview", "Overview", ":material/dashboard:", "home"),
    ("queries", "Queries", ":material/table_rows:", "query-table"),
    ("failures", "Failures", ":material/bug_report:", "failure-groups"),
    ("ranks", "Ranks", ":material/stacked_bar_chart:", "first-rank"),
    ("judge", "Judge", ":material/gavel:", "blind-judging"),
    ("agreement", "Agreement", ":material/groups:", "grades-review"),
    ("compare", "Compare", ":material/compare_arrows:", "runs-diff"),
    ("no_answer", "No-answer", ":material/do_not_disturb_on:", "refusals"),
)
PAGES = [
    st.Page(f"pages/{stem}.py", title=title, icon=icon, url_path=path, default=i == 0)
    for i, (stem, title, icon, path) in enumerate(PAGE_TABLE)
]
# a page's url_path -> its stem (the default page's url_path is "")
PAGE_STEMS = {p.url_path: stem for p, (stem, *_rest) in zip(PAGES, PAGE_TABLE, strict=True)}
ANY_LABEL = "all"
CHOICE_LABELS = {
    "chunk": "chunk",
    "doc": "document",
    "not_relevant": "not relevant",
    "relevant": "relevant",
    "as_graded": "as graded",
}

context.script_began()  # the launcher's background work waits until this run has ended
st.set_page_config(page_title="ragrecall", page_icon="🎯", layout="wide")
page = st.navigation(PAGES)
context.start_session()
if state_value("presentation"):
    # the room needs the width: the sidebar starts closed (its toggle turns this off)
    st.set_page_config(initial_sidebar_state="collapsed")
    presentation_style()
cli = parse_source(sys.argv[1:], os.environ, HERE / "data_samples")


def choose_source() -> Source:
    """The data source: uploads if complete, else the uploaded data a link names (``?data=``),
    else the folder typed in, else the CLI's."""
    with st.sidebar:
        st.header("Data")
        # a popover's widgets are drawn only when it is opened: a first page does not fetch
        # and run the text field's and the file uploader's code (an expander's are drawn
        # closed); the caption below it says what is open
        with st.popover("Workspace folder or uploads", width="stretch"):
            if cli.is_folder:
                st.session_state.setdefault(context.FOLDER_KEY, str(cli.workspace))
                folder = st.text_input(
                    "Workspace folder",
                    key=context.FOLDER_KEY,
                    help="A folder with gold, runs/, grades/ and corpus files.",
                    on_change=put_state,
                    kwargs={"data": ""},  # a folder typed in replaces the uploaded data
                )
            else:
                st.caption("Files from the command line: " + escape_markdown(cli.describe()))
                st.session_state.setdefault(context.FOLDER_KEY, "")
                folder = st.text_input(
                    "Workspace folder (empty: the files above)",
                    key=context.FOLDER_KEY,
                    on_change=put_state,
                    kwargs={"data": ""},
                )
            gold = st.file_uploader("Gold (JSONL, TREC qrels, CSV, Parquet)", key="side_up_gold")
            runs = st.file_uploader("Runs", accept_multiple_files=True, key="side_up_runs")
            grades = st.file_uploader(
                "Manual grades (optional)", accept_multiple_files=True, key="side_up_grades"
            )
            corpus = st.file_uploader("Corpus (optional)", key="side_up_corpus")
    if gold is not None and runs:
        uploaded = context.save_uploads(gold, runs, grades or [], corpus)
        put_state(data=context.upload_key(uploaded))  # the link names the uploaded set
        return store_question.settled(uploaded)
    if state_value("data"):
        linked = context.open_upload(state_value("data"))
        with st.sidebar:
            st.caption("Uploaded data " + escape_markdown(state_value("data")) + ", from the link.")
            st.button(
                "Back to the workspace folder",
                on_click=put_state,
                kwargs={"data": ""},
                key="side_data_close",
            )
        return store_question.settled(linked)
    if folder.strip():
        path = Path(folder.strip()).expanduser()
        typed = Source(workspace=path if path.is_absolute() else (Path.cwd() / path))
        st.sidebar.caption("Workspace: " + escape_markdown(typed.describe()))
        return typed
    st.sidebar.caption("Files from the command line: " + escape_markdown(cli.describe()))
    return cli


# the view's choices come first in the sidebar, the data's after them: a meeting changes the
# view all the time and the data seldom (drawn later, into this box, once the data is open)
view_box = st.sidebar.container()
source_label = "the uploaded files"
try:
    source = choose_source()
    source_label = source.describe()
    with st.spinner(f"Loading {escape_markdown(source_label)} …"):
        ws, key, store = context.open_source(source)
except InputError as error:
    problems(error, "Could not open " + escape_markdown(source_label))
    st.stop()
store_question.offer_change(source)  # uploads: which judgment store counts, and a switch

facts, options = context.options_of(key, ws)
default_state = ViewState().fit(options)
context.fit_session(options)


def any_of(values: list[str]) -> list[str]:
    return ["", *values]


def choose_policy() -> None:
    """The evaluation policy every page's numbers follow (kept in the URL like the view)."""
    label = CHOICE_LABELS.get
    # a popover draws its widgets only when opened: a quicker first page than an expander
    with st.popover("Policy", width="stretch"):
        st.selectbox("Relevance level (grade >=)", REL_LEVELS, key=state_key("rel_level"))
        st.selectbox("Unit", UNITS, key=state_key("unit"), format_func=label)
        st.selectbox(
            "Reviewer partial grade (1) counts as",
            PARTIAL,
            key=state_key("partial"),
            format_func=label,
        )
        st.selectbox(
            "Harmful chunk counts as", HARMFUL, key=state_key("harmful"), format_func=label
        )
        st.toggle(
            "Use reviewers' grades",
            key=state_key("manual_grades"),
            help="Off: only the gold set judges; reviewers' grades are ignored.",
        )
        st.selectbox(
            "Judge grades",
            any_of(list(options.judges)),
            key=state_key("judge_grades"),
            format_func=policy_label,
            disabled=not options.judges,
            help=POLICY_HELP,
        )


with view_box:
    st.header("View")
    pick_many(
        "Runs",
        options.runs,
        key=state_key("runs"),
        help="Runs shown in charts; colours stay the same on every page.",
    )
    # the fitted state keeps the focus among the chosen runs
    pick_one("Run for tables and detail", state_value("runs"), key=state_key("focus"))
    pick_one("Cutoff k", options.k_choices, key=state_key("k"))
    for label, choices, name in (
        ("Split", options.splits, "split"),
        ("Query type", options.query_types, "query_type"),
        ("Corpus section", options.sections, "section"),
    ):
        pick_one(
            label,
            any_of(choices),
            key=state_key(name),
            format_func=lambda v: v or ANY_LABEL,
            disabled=not choices,
        )
    pick_one(
        "A query passes when",
        RULE_NAMES,
        key=state_key("pass_rule"),
        format_func=lambda rule: pass_measure(rule, state_value("k")) + " = 1",
        help="\n\n".join(rule_line(rule, state_value("k")) for rule in RULE_NAMES),
    )
    st.toggle("Failures only (by the pass rule)", key=state_key("failing_only"))
    st.toggle(
        "Presentation mode",
        key=state_key("presentation"),
        help="Larger text and less chrome, for a shared screen.",
    )
    choose_policy()
    st.caption(
        f"{plural(facts.queries, 'query', 'queries')} · {plural(len(ws.run_names), 'run')} · "
        f"{plural(facts.corpus_chunks, 'chunk')} · {plural(facts.grades, 'manual grade')}"
        + (f" · {plural(facts.judge_grades, 'judge grade')}" if facts.judge_grades else "")
    )
    if store.note:
        st.warning(escape_markdown(store.note), icon=":material/lock:")

state = context.session_state()
st.session_state[context.CTX] = context.Context(
    ws=ws,
    key=key,
    source=source,
    state=state,
    options=options,
    default_state=default_state,
    colors=run_colors(ws.run_names),
    facts=facts,
    store=store,
    page=PAGE_STEMS[page.url_path],
)
context.sync_url()
for line in st.session_state.pop(context.REFUSED_PARAMS, []):
    st.warning(escape_markdown(line))
new_page()  # the tables' and JSON blocks' style is drawn by the first of them
page.run()
chart_code.load_after_first_page()  # the charts' code, once this first page is drawn
