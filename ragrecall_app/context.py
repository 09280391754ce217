"""Per-session context shared by app.py and the pages.

The view state lives in ``st.session_state`` under the page-prefixed keys of the field
table (:data:`ragrecall_core.views.dashboard_state.FIELDS`: ``side_*`` for the sidebar,
``queries_*``, ``compare_*``, ``judge_*`` ...) and is written back to ``st.query_params``
on every run, so a copied link reproduces the view even after a page switch (which drops
the URL's query parameters). Pages reach it only through :func:`state_key` (a widget's
``key=``), :func:`state_value`, :func:`put_state` and :func:`set_page_state`.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pandas as pd
import streamlit as st

from ragrecall_app import opened
from ragrecall_app.built import remembered
from ragrecall_app.render import escape_markdown
from ragrecall_core.analysis import judge_session, verdicts
from ragrecall_core.analysis.bootstrap import summary_with_ci
from ragrecall_core.analysis.query_detail import QueryDetail, query_detail
from ragrecall_core.analysis.query_table import (
    MeasureRows,
    QueryTable,
    build_measure_rows,
    build_query_table,
    build_query_tables,
    filter_table,
)
from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs import upload_stores
from ragrecall_core.inputs.home import GOLD_DIGEST, manifest_store, upload_manifest
from ragrecall_core.inputs.secrets import redact_path, redact_text
from ragrecall_core.inputs.store import StoreStatus, store_path, uploads_folder
from ragrecall_core.inputs.workspace import Workspace, WorkspaceFacts, workspace_facts
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.views.charts import run_colors
from ragrecall_core.views.compare_view import view_query_ids
from ragrecall_core.views.dashboard_state import (
    FIELD,
    FIELDS,
    Source,
    ViewOptions,
    ViewState,
    fingerprint,
    k_choices,
    not_offered,
    read_params,
    session_key,
    to_params,
    unfitted,
)
from ragrecall_core.views.judge_marks import judge_names, with_judge_marks
from ragrecall_core.views.ranks import bin_labels

CTX = "_ragrecall_ctx"
PENDING = "_ragrecall_pending"
# the workspace folder typed into the sidebar (app.py): a widget that is no view field
FOLDER_KEY = "side_ws"
STARTED = "_ragrecall_started"
# lines naming URL parameters that were refused on the first run (shown once by app.py)
REFUSED_PARAMS = "_ragrecall_refused_params"
# the view as the last run left it, under a key no widget has (see restore_dropped)
KEPT_VIEW = "_ragrecall_kept_view"
# the workspace folder typed in as the last run left it (see restore_dropped)
KEPT_FOLDER = "_ragrecall_kept_folder"
# the view the URL asked for on the first run, until the workspace's fit checks it
ASKED_VIEW = "_ragrecall_asked_view"


# ---------------------------------------------------------------- state <-> session / URL
def start_session() -> None:
    """On a session's first run, take the view from the URL; then apply pending changes."""
    ss = st.session_state
    if not ss.get(STARTED):
        params = {key: st.query_params.get_all(key) for key in st.query_params}
        state, ss[REFUSED_PARAMS] = read_params(params)
        put_state(**_values(state))
        ss[ASKED_VIEW] = state
        ss[STARTED] = True
    restore_dropped()
    put_state(**ss.pop(PENDING, {}))


def restore_dropped() -> None:
    """Give back the view's fields whose values streamlit dropped: in a browser, a switch
    to another page drops the values of the widgets of the page left before the next run
    starts (Compare's pair, Judge's pool, No-answer's trade-off), so writing them back
    during that run (:func:`fit_session`) is too late; AppTest keeps them. The copy is the
    one the last run kept (:func:`sync_url`); a field still in the session keeps its value,
    and changes a switch asked for (:func:`go`) are applied after.

    The workspace folder typed in comes back too: a switch from a widget's callback (a
    Failures or Ranks bar) leaves before the run writes anything, and drops the folder
    field's value (tests/browser/test_view_kept_browser.py); app.py would open the launch
    workspace instead, with its numbers."""
    kept = st.session_state.get(KEPT_VIEW)
    if kept:
        dropped = {name: value for name, value in kept.items() if _held(FIELD[name].key) is _NONE}
        put_state(**dropped)
    folder = st.session_state.get(KEPT_FOLDER)
    if folder is not None and _held(FOLDER_KEY) is _NONE:
        st.session_state[FOLDER_KEY] = folder


# what :func:`_held` gives for a key the session does not hold
_NONE = object()


def _held(key: str):
    """``st.session_state[key]``, or :data:`_NONE` where the session holds no such key."""
    try:  # not `in`: streamlit lists every key of the session to answer it
        return st.session_state[key]
    except KeyError:
        return _NONE


def state_key(name: str) -> str:
    """The widget key of view-state field ``name`` (pages pass it as ``key=``)."""
    return session_key(name)


def state_value(name: str):
    """Field ``name`` as the session holds it now (after this run's widgets and callbacks)."""
    f = FIELD[name]
    value = _held(f.key)
    return f.default if value is _NONE else f.kind.from_session(value)


def _values(state: ViewState) -> dict:
    """Every view field of ``state`` by name: what :func:`put_state` takes."""
    return {f.name: getattr(state, f.name) for f in FIELDS}


def put_state(**changes) -> None:
    """Set view-state fields in the session (also from a widget's callback)."""
    for name, value in changes.items():
        f = FIELD[name]
        st.session_state[f.key] = f.kind.to_session(value)


def session_state() -> ViewState:
    """The view state as the session holds it now."""
    return ViewState(**{f.name: state_value(f.name) for f in FIELDS})


def fit_session(options: ViewOptions) -> ViewState:
    """Drop session values the workspace does not have (before the widgets are drawn).

    Every field is written back on every run, which keeps the value of a widget this run
    does not draw (in a closed box, say: streamlit forgets it otherwise). It does not keep
    the widgets of a page left for another: their values are gone before this run starts
    (:func:`restore_dropped` gives them back). On the first run, the values the URL asked
    for that the workspace lacks are added to the lines of refused parameters
    (:func:`unfitted`), so a link never shows another view without a word."""
    asked = st.session_state.pop(ASKED_VIEW, None)
    if asked is not None:
        refused = st.session_state.get(REFUSED_PARAMS, [])
        st.session_state[REFUSED_PARAMS] = [*refused, *unfitted(asked, options)]
    state = session_state().fit(options)
    put_state(**_values(state))
    return state


def set_page_state(**changes) -> None:
    """Change non-widget state (``query_id``, ``rank_bin`` ...) and update the URL."""
    put_state(**changes)
    sync_url()


def drop_unoffered(name: str, offered, what: str, among: str, instead: str):
    """The page's own pick, view field ``name``, when ``offered`` holds it; else ``""``,
    after one escaped line naming it (:func:`not_offered`) and its removal from the view
    and the URL: a link's pick, or one the page's data no longer lists, is never shown as
    another without a word."""
    picked = state_value(name)
    if picked and picked not in offered:
        st.warning(escape_markdown(not_offered(what, picked, among, instead)))
        set_page_state(**{name: ""})
        return ""
    return picked


def go(page: str, **changes) -> None:
    """Switch page with state changes applied before the next run draws any widget."""
    st.session_state[PENDING] = {**st.session_state.get(PENDING, {}), **changes}
    st.switch_page(page)


def rerun_with(**changes) -> None:
    """Rerun this page with state changes (also for sidebar widgets already drawn)."""
    st.session_state[PENDING] = {**st.session_state.get(PENDING, {}), **changes}
    st.rerun()


def sync_url() -> None:
    """Write the current view into the URL's query parameters, and keep it for the next
    run (:func:`restore_dropped`)."""
    ctx = st.session_state.get(CTX)
    default = ctx.default_state if ctx else ViewState()
    state = session_state()
    st.session_state[KEPT_VIEW] = _values(state)
    folder = _held(FOLDER_KEY)
    if folder is not _NONE:
        st.session_state[KEPT_FOLDER] = folder
    wanted = to_params(state, default, ctx.page if ctx else None)
    current = {key: st.query_params.get_all(key) for key in st.query_params}
    normal = {k: v if isinstance(v, list) else [v] for k, v in wanted.items()}
    if current != normal:
        st.query_params.from_dict(wanted)


# ---------------------------------------------------------------- scripts running
# the threads running a session's script (app.py adds its own first thing; streamlit ends a
# script thread once its runs are done) and when one was last seen begin or end: the
# launcher's background work waits while any runs (page_warm.wait_for_quiet)
_SCRIPTS: set[threading.Thread] = set()
_SCRIPTS_LOCK = threading.Lock()
_LAST_SEEN = [0.0]


def script_began() -> None:
    """A session's script run has begun in this thread (app.py calls it first thing)."""
    with _SCRIPTS_LOCK:
        _forget_ended()
        _SCRIPTS.add(threading.current_thread())
        _LAST_SEEN[0] = time.monotonic()


def quiet_for() -> float:
    """Seconds since a session's script last ran (0 while one runs): its end is taken as
    when it was first seen ended, never earlier."""
    with _SCRIPTS_LOCK:
        _forget_ended()
        return 0.0 if _SCRIPTS else time.monotonic() - _LAST_SEEN[0]


def _forget_ended() -> None:
    """Drop the script threads that have ended (under the lock), noting when."""
    ended = {thread for thread in _SCRIPTS if not thread.is_alive()}
    if ended:
        _SCRIPTS.difference_update(ended)
        _LAST_SEEN[0] = time.monotonic()


# ---------------------------------------------------------------- loading (cached)
@st.cache_data(show_spinner=False, max_entries=64)
def _content_key(prints: tuple) -> str:
    return opened.key_of(prints)


@st.cache_resource(show_spinner=False, max_entries=4)
def _load_workspace(spec: tuple, key: str) -> Workspace:
    """Open a workspace; cached by the content hash of its files (``key``) in this server,
    and across servers in the load cache (``$RAGRECALL_HOME/cache``; off with
    ``RAGRECALL_CACHE=off``), so a fresh server does not read every input again. The
    first read takes the workspace the launcher opened ahead (:mod:`.opened`), if any."""
    return opened.take_or_open(spec, key)


def open_source(source: Source) -> tuple[Workspace, str, StoreStatus]:
    """The workspace of ``source``, its content key (files re-hashed only when changed) and
    what its judgment store allows (a store that cannot be used leaves file grades only)."""
    files = source.input_files()
    key = _content_key(fingerprint(files)) if files else "missing"
    ws = _load_workspace(opened.spec_of(source), key)
    # stored judgments count in evaluation: a new one changes the key of every cached frame;
    # the store's path too, so two copies of the same files never share their grades' frames
    store = judge_session.connect_store(ws)
    return ws, f"{key}+{store_path(ws)}|{judge_session.store_version(ws)}", store


def save_uploads(gold, runs: Sequence, grades: Sequence, corpus) -> Source:
    """Keep uploaded files under ``$RAGRECALL_HOME/uploads/<content hash>/``; a loose-file
    source. Persistent, unlike a temp folder: the grades made on them must survive a restart
    (the store itself lives where :func:`ragrecall_core.inputs.store.store_path` says, keyed
    by the gold's name, or its own when the set chose so: :func:`store_question`). Beside
    the folder, ``<hash>.json`` records which file is which, the gold's SHA-256 and the
    store chosen, so a link with ``?data=<hash>`` opens the same set again
    (:func:`open_upload`) with the same store.
    """
    uploads = [gold, *runs, *grades, *([corpus] if corpus else [])]
    _require_distinct_names(uploads)
    digest = hashlib.sha256()
    for f in uploads:
        digest.update(f.name.encode())
        digest.update(f.getvalue())
    folder = uploads_folder() / digest.hexdigest()[:UPLOAD_KEY_LENGTH]

    def save(f) -> Path:
        path = folder / Path(f.name).name
        path.write_bytes(f.getvalue())
        return path

    with _uploads_written(folder):
        folder.mkdir(parents=True, exist_ok=True)
        source = Source(
            gold=save(gold),
            runs=tuple(save(f) for f in runs),
            grades=tuple(save(f) for f in grades),
            corpus=save(corpus) if corpus else None,
        )
        record = upload_manifest(folder)
        files = {
            "gold": source.gold.name,
            "runs": [p.name for p in source.runs],
            "grades": [p.name for p in source.grades],
            "corpus": source.corpus.name if source.corpus else None,
            "gold_sha256": hashlib.sha256(gold.getvalue()).hexdigest(),
        }
        # saved again on every rerun: the choice read and kept under the manifest's lock, so
        # one made meanwhile (another session, another server) is not written over
        with upload_stores.changing(record):
            upload_stores.write_atomically(record, {**files, **_store_choice(record)})
        return source


@contextmanager
def _uploads_written(path: Path) -> Iterator[None]:
    """Uploads kept under home (their files, their manifest at ``path``): an ``OSError`` is
    an :class:`InputError` naming ``path`` and asking for a writable home."""
    try:
        yield
    except OSError as error:
        expected = "a writable folder for uploads (set RAGRECALL_HOME to one)"
        said = redact_text(str(error))
        if error.filename is not None:  # as Python says it, its path redacted part by part
            said = f"[Errno {error.errno}] {error.strerror}: {redact_path(error.filename)!r}"
        raise InputError([Problem(redact_path(path), None, said, expected)]) from None


def _store_choice(record: Path) -> dict:
    """The store choice an upload set's manifest already holds (none when it has none)."""
    choice, _digest = manifest_store(record)
    return {"store": choice} if choice else {}


def store_question(source: Source) -> upload_stores.StoreQuestion | None:
    """What to ask before an upload set's gold is attached to the judgment store of its
    name, which holds another gold's judgments (:mod:`ragrecall_core.inputs.upload_stores`);
    ``None`` once its store is settled (settling it when nothing needs asking)."""
    manifest = upload_manifest(source.gold.parent)
    with _uploads_written(manifest):
        return upload_stores.open_question(manifest, source.gold)


def choose_store(source: Source, choice: str) -> None:
    """Keep the answer to :func:`store_question` with the upload set (its manifest)."""
    manifest = upload_manifest(source.gold.parent)
    with _uploads_written(manifest):
        upload_stores.choose(manifest, choice)


UPLOAD_KEY_LENGTH = 16
UPLOAD_KEY = re.compile(f"[0-9a-f]{{{UPLOAD_KEY_LENGTH}}}")
DATA_PARAM = "URL parameter data"


def upload_key(source: Source) -> str:
    """The key of an upload set :func:`save_uploads` kept (its folder's name)."""
    return source.gold.parent.name


def open_upload(key: str) -> Source:
    """The upload set saved under ``key`` (a link's ``?data=``), checked strictly: the key
    is hex of fixed length, never a path; the record beside the folder names plain files
    inside it. Anything else, or nothing saved under the key, is an input error naming it."""
    if not UPLOAD_KEY.fullmatch(key):
        expected = f"{UPLOAD_KEY_LENGTH} lowercase hexadecimal digits (the key of uploaded data)"
        raise InputError([Problem(DATA_PARAM, None, redact_text(key), expected)])
    folder = uploads_folder() / key
    record = upload_manifest(folder)
    if not record.is_file() or not folder.is_dir():
        expected = (
            f"uploaded data saved on this server (nothing under {redact_path(uploads_folder())})"
        )
        raise InputError([Problem(DATA_PARAM, None, key, expected)])
    return _source_of_record(record, folder)


def _source_of_record(record: Path, folder: Path) -> Source:
    """The files :func:`save_uploads` recorded, each a plain name of a file in ``folder``."""
    where = redact_path(record)  # the uploads folder is under home, whose path may hold a secret
    try:
        manifest = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        said = getattr(error, "strerror", None) or redact_text(str(error))  # OSError: no path
        raise InputError([Problem(where, None, said, "a JSON object")]) from None
    problems: list[Problem] = []

    def file(name) -> Path | None:
        if isinstance(name, str) and Path(name).name == name and name not in ("", ".", ".."):
            if (folder / name).is_file():
                return folder / name
        problems.append(
            Problem(where, None, redact_path(str(name)), f"a file in {redact_path(folder)}")
        )
        return None

    if not isinstance(manifest, dict):
        raise InputError([Problem(where, None, redact_text(str(manifest)), "a JSON object")])
    names = {role: manifest.get(role) for role in ("gold", "runs", "grades", "corpus")}
    for role in ("runs", "grades"):
        if not isinstance(names[role], list):
            problems.append(
                Problem(where, None, redact_text(str(names[role])), f"a list of {role}")
            )
            names[role] = []
    source = Source(
        gold=file(names["gold"]),
        runs=tuple(file(n) for n in names["runs"]),
        grades=tuple(file(n) for n in names["grades"]),
        corpus=None if names["corpus"] is None else file(names["corpus"]),
    )
    if not source.runs:
        problems.append(Problem(where, None, "[]", "at least one run file"))
    # a choice of store needs its gold's digest; a set saved before either has neither
    if manifest.get("store") not in (None, *upload_stores.CHOICES):
        shown = redact_text(str(manifest.get("store")))
        problems.append(Problem(where, None, shown, "store: shared or separate"))
    digest = manifest.get("gold_sha256")
    if (manifest.get("store") or digest is not None) and not (
        isinstance(digest, str) and GOLD_DIGEST.fullmatch(digest)
    ):
        shown = redact_text(str(digest))
        problems.append(Problem(where, None, shown, "gold_sha256: 64 hex digits"))
    if problems:
        raise InputError(problems)
    return source


def _require_distinct_names(uploads: Sequence) -> None:
    """Uploads are saved under their names: a name that is no file name, or two files of one
    name (one would replace the other), is refused."""
    problems, seen = [], set()
    for f in uploads:
        name = Path(f.name).name
        if name in ("", ".", "..") or "\x00" in name:
            problems.append(Problem("uploaded files", None, f.name, "a file name"))
        elif name in seen:
            problems.append(Problem("uploaded files", None, name, "one file of each name"))
        seen.add(name)
    if problems:
        raise InputError(problems)


@remembered(max_entries=4)
def _query_tables(key: str, ks: tuple[int, ...], policy: Policy, rule: str, _ws: Workspace):
    """The query table at every k the sidebar offers, built in one pass (issue 13: a new k
    is a slice, not a rescoring); shared by every session, read-only."""
    return build_query_tables(_ws, ks, policy, rule=rule)


def every_k_tables(ctx: Context) -> None:
    """Build the query tables at every k the sidebar offers for ``ctx``'s view (the launcher
    does so behind the first page, which needs one k: at 10,000 x 100 x 4 one k costs about
    a third of every k), so a change of k is a slice."""
    offered = k_choices(max(ctx.facts.depths.values() or [1]))
    _query_tables(ctx.key, offered, ctx.policy, ctx.state.pass_rule, ctx.ws)


@remembered(max_entries=16)
def _query_table(key: str, k: int, policy: Policy, rule: str, _ws: Workspace) -> QueryTable:
    """Shared, not copied (cache_data would unpickle 40k rows on every rerun): read-only.

    A k the sidebar offers is sliced from :func:`_query_tables` once those are built
    (:func:`every_k_tables`); until then, and for any other k (a link's ``?k=7``), it is
    built on its own: the same table (``tests/test_query_tables_all_k.py``). With
    ``rank_bin``, the Ranks histogram's bin of each answerable query's first relevant rank
    (bins up to the workspace's longest list), so a bar click filters like any group."""
    depth = max(facts_of(key, _ws).depths.values() or [1])
    offered = k_choices(depth)
    if k in offered and _query_tables.was_built(key, offered, policy, rule):
        built = _query_tables(key, offered, policy, rule, _ws).at(k)
    else:  # the measures at k once: the Overview's, if it read them first
        built = build_query_table(
            _ws, k, policy, rule=rule, measured=_measure_rows(key, k, policy, _ws)
        )
    answerable = built.table["relevant"] > 0  # the histogram's rows; no bin otherwise
    built.table["rank_bin"] = bin_labels(built.table["FirstRank"], depth).where(answerable)
    return built


def _table_built(key: str, k: int, policy: Policy, rule: str, depth: int) -> bool:
    """Whether :func:`_query_table` of these would be read or sliced, not built: its own
    table or every offered k's was built."""
    offered = k_choices(depth)
    every_k = k in offered and _query_tables.was_built(key, offered, policy, rule)
    return every_k or _query_table.was_built(key, k, policy, rule)


@st.cache_resource(show_spinner=False, max_entries=16)
def _measure_rows(key: str, k: int, policy: Policy, _ws: Workspace) -> MeasureRows:
    """The query table's leading columns and measures at ``k`` alone (:func:`build_measure_rows`:
    the Overview's rows before the table is built). Shared, read-only."""
    return build_measure_rows(_ws, k, policy)


@st.cache_data(show_spinner=False, max_entries=8)
def _latest_verdicts(key: str, version: str, _ws: Workspace) -> pd.DataFrame:
    """The meeting's current verdicts, keyed by :func:`verdicts.verdicts_version`."""
    return verdicts.latest_verdicts(_ws)


@st.cache_resource(show_spinner=False, max_entries=16)
def _table_with_verdicts(
    key: str, k: int, policy: Policy, rule: str, version: str, _ws: Workspace
) -> pd.DataFrame:
    """The scored query table with the verdict columns attached. Shared, read-only. A new
    verdict changes only ``version``: the table is re-joined (a merge), never rescored."""
    table = _query_table(key, k, policy, rule, _ws).table
    return verdicts.attach_verdicts(table, _latest_verdicts(key, version, _ws))


@st.cache_data(show_spinner=False, max_entries=48)
def _summary(
    key: str,
    k: int,
    policy: Policy,
    filters: tuple,
    runs: tuple,
    _rows: pd.DataFrame,
    measures: tuple,
) -> pd.DataFrame:
    return summary_with_ci(_rows, list(measures))


def _detail(
    key: str, run: str, query_id: str, k: int, policy: Policy, _ws: Workspace
) -> QueryDetail:
    """The query's detail, each chunk with its model judges' marks (shown apart); cached by
    :meth:`Context.detail`."""
    return with_judge_marks(_ws, query_detail(_ws, run, query_id, k, policy), policy.judge)


@st.cache_resource(show_spinner=False, max_entries=512)
def _view_result(name: str, view: str, _build: Callable[[], object]) -> object:
    """What ``_build`` returns for view ``view`` (small values: see :attr:`Context.view_key`),
    built once and shared by every session and rerun: read-only."""
    return _build()


# ---------------------------------------------------------------- the context
@dataclass
class Context:
    """What every page needs: the workspace, its key, the view, and cached frames."""

    ws: Workspace
    key: str
    source: Source
    state: ViewState
    options: ViewOptions
    default_state: ViewState
    colors: dict[str, str]
    facts: WorkspaceFacts
    store: StoreStatus
    # the page shown (a key of dashboard_state.PAGE_FIELDS): its URL carries its own state
    page: str | None = None

    @property
    def files_key(self) -> str:
        """The content key of the input files without the judgment store's version (see
        :func:`open_source`): the cache key of what no stored grade can change."""
        return files_key_of(self.key)

    @property
    def depths(self) -> dict[str, int]:
        """The longest ranked list of each run."""
        return self.facts.depths

    @cached_property
    def policy(self) -> Policy:
        """The evaluation policy chosen in the sidebar: every cached computation takes it."""
        return self.state.policy()

    @cached_property
    def view_key(self) -> tuple:
        """The view every page's numbers follow, as small values (cheap to hash on each
        rerun, unlike the frames built from them): the content key (the stored grades'
        version in it), k, the policy, the pass rule, the split, type and section filters
        and the runs in charts."""
        s = self.state
        policy = repr(self.policy)
        return (self.key, s.k, policy, s.pass_rule, s.split, s.query_type, s.section, s.runs)

    def view_ids(self) -> tuple[str, ...] | None:
        """The query ids under the sidebar's split, type and section filters (``None``: no
        filter), looked up once per view."""
        s = self.state

        def build() -> tuple[str, ...] | None:
            ids = view_query_ids(self.ws, s.split, s.query_type, s.section)
            return None if ids is None else tuple(ids)

        return self.memo("view_ids", build)

    def memo(self, name: str, build: Callable[[], object], *more) -> object:
        """``build()``, computed once per view (:attr:`view_key`, and ``more``: small values
        of what else it reads) and shared by reruns and sessions: read-only. A rerun that
        changes nothing in the view reads it instead of filtering and formatting again."""
        # one string: streamlit hashes it in one step, a tuple value by value
        return _view_result(name, repr((*self.view_key, *more)), build)

    def query_table(self) -> QueryTable:
        with st.spinner(f"Scoring every run at k = {self.state.k} …"):
            s = self.state
            return _query_table(self.key, s.k, self.policy, s.pass_rule, self.ws)

    def verdicts_version(self) -> str:
        """Changes whenever a verdict is stored ('unusable' when the store cannot be read)."""
        return "unusable" if self.store.problem else verdicts.verdicts_version(self.ws)

    def verdicts(self) -> pd.DataFrame:
        """The meeting's current verdict per (run, query)."""
        if self.store.problem:
            return pd.DataFrame(columns=verdicts.COLUMNS)
        return _latest_verdicts(self.key, self.verdicts_version(), self.ws)

    def table_with_verdicts(self) -> pd.DataFrame:
        """:meth:`query_table`'s rows with ``verdict``, ``verdict_note``, ``verdict_owner``."""
        self.query_table()  # scored under the spinner when it is not cached yet
        s = self.state
        version = self.verdicts_version()
        if self.store.problem:
            return verdicts.attach_verdicts(self.query_table().table, self.verdicts())
        return _table_with_verdicts(self.key, s.k, self.policy, s.pass_rule, version, self.ws)

    def record_verdict(
        self,
        run: str,
        query_id: str,
        reason: str,
        note: str = "",
        owner: str = "",
        by: str = "",
        seen: tuple[str, ...] | None = None,
    ) -> None:
        """Store the meeting's verdict (InputError when a value or the store is refused,
        VerdictChanged when the stored one is not ``seen``); the cached rows pick it up on
        the next run through :meth:`verdicts_version`."""
        verdicts.record_verdict(self.ws, run, query_id, reason, note, owner, by, seen=seen)

    def rows(
        self,
        runs: Sequence[str] | None = None,
        failing: bool | None = None,
        group_filters: bool = True,
    ) -> pd.DataFrame:
        """Per-query rows of ``runs`` (default: the selected runs) under the sidebar filters."""
        s = self.state
        filters = s.filters() if group_filters else self.query_filters()
        return filter_table(
            self.table_with_verdicts(),
            filters,
            list(runs or s.runs),
            s.failing_only if failing is None else failing,
        )

    def query_filters(self) -> dict[str, str]:
        """The sidebar's filters by a query's own fields (split, type, section)."""
        kept = ("split", "query_type", "section")
        return {c: v for c, v in self.state.filters().items() if c in kept}

    def measure_rows(self) -> tuple[pd.DataFrame, dict[str, list[str]]]:
        """The selected runs' rows under the split, type and section filters, with the
        query's own fields and the measures at k, and the evaluation's warnings at k: what
        :meth:`rows` (``failing=False, group_filters=False``) and :meth:`query_table` give
        for those columns. Read from the query table once it is built; until then (a fresh
        server's first page) from the measures alone (:func:`_measure_rows`), which is
        about a quarter of the table's build: the table is built behind the first page."""
        s = self.state
        depth = max(self.facts.depths.values() or [1])
        if _table_built(self.key, s.k, self.policy, s.pass_rule, depth):
            return self.rows(failing=False, group_filters=False), self.query_table().warnings
        measured = _measure_rows(self.key, s.k, self.policy, self.ws)
        rows = filter_table(measured.table, self.query_filters(), list(s.runs), False)
        return rows, measured.warnings

    def summary(self, rows: pd.DataFrame, measures: Sequence[str]) -> pd.DataFrame:
        s = self.state
        filters = tuple(
            sorted(
                (c, v) for c, v in s.filters().items() if c in ("split", "query_type", "section")
            )
        )
        return _summary(self.key, s.k, self.policy, filters, tuple(s.runs), rows, tuple(measures))

    def detail(self, run: str, query_id: str) -> QueryDetail:
        """The query's detail in ``run``: shared, read-only (not unpickled on each rerun)."""
        s = self.state
        return self.memo(
            "detail",
            lambda: _detail(self.key, run, query_id, s.k, self.policy, self.ws),
            run,
            query_id,
        )


def files_key_of(key: str) -> str:
    """A workspace key (:func:`open_source`: the input files' content key, then ``+`` and
    the judgment store's version) without the store's version."""
    return key.partition("+")[0]


def current() -> Context:
    """The context app.py built for this run (pages call this first)."""
    ctx = st.session_state.get(CTX)
    if ctx is None:
        st.error("Open the dashboard through app.py (streamlit run app.py).")
        st.stop()
    return ctx


@st.cache_data(show_spinner=False, max_entries=8)
def facts_of(key: str, _ws: Workspace) -> WorkspaceFacts:
    """What the workspace holds (filter values, run depths, counts), cached by content key."""
    return workspace_facts(_ws)


def view_options(ws: Workspace, facts: WorkspaceFacts, judges: Sequence[str] = ()) -> ViewOptions:
    """What the sidebar offers for ``ws``: its runs, the cutoffs its lists allow, its filters,
    and the model judges (:func:`judges_of`) whose grades may be counted."""
    return ViewOptions(
        runs=ws.run_names,
        k_choices=k_choices(max(facts.depths.values() or [0])),
        splits=facts.splits,
        query_types=facts.query_types,
        sections=facts.sections,
        judges=tuple(judges),
    )


@st.cache_data(show_spinner=False, max_entries=8)
def judges_of(key: str, _ws: Workspace) -> tuple[str, ...]:
    """The model judges whose grades ``ws`` holds; ``key`` changes with every stored grade."""
    return judge_names(_ws)


def options_of(key: str, ws: Workspace) -> tuple[WorkspaceFacts, ViewOptions]:
    """What ``ws`` holds and what the sidebar offers for it (cached by content key)."""
    facts = facts_of(key, ws)
    return facts, view_options(ws, facts, judges_of(key, ws))


def first_context(source: Source) -> Context:
    """The context of a first visit of ``source`` (the default view, no session): its
    workspace opened, nothing scored yet."""
    ws, key, store = open_source(source)
    facts, options = options_of(key, ws)
    state = ViewState().fit(options)
    return Context(
        ws=ws,
        key=key,
        source=source,
        state=state,
        options=options,
        default_state=state,
        colors=run_colors(ws.run_names),
        facts=facts,
        store=store,
    )


def missing_notes(facts: WorkspaceFacts) -> list[str]:
    """What the workspace lacks, in one compact line for the pages to show (issue 29: four
    lines repeated on every page pushed each page's content down); none when nothing is."""
    parts = []
    if not facts.corpus_chunks:
        parts.append("No corpus: no chunk text or sections")
    if not facts.has_query_text:
        parts.append("no query text: ids only")
    if not facts.grades:
        parts.append("no manual grades")
    if not (facts.query_types or facts.sections or facts.splits):
        parts.append("no type, section or split filters")
    if not parts:
        return []
    line = " · ".join(parts)
    return [line[0].upper() + line[1:] + "."]


def new_selection(name: str, value) -> bool:
    """Whether a chart / table selection differs from the one this session saw last time.

    A selection stays in the widget's state across reruns; acting only on a change
    keeps buttons and page switches from being overridden by a stale selection.
    """
    key = f"_seen_{name}"
    changed = st.session_state.get(key) != value
    st.session_state[key] = value
    return changed and bool(value)
