"""Serve the dashboard: ``python -m ragrecall_app.serve [streamlit run options] [-- app args]``.

Streamlit decides once per server, when the first browser session starts, whether the app
uses its old multipage mode (a ``pages/`` folder beside the main script). This project keeps
its page files in ``pages/`` but declares its pages with ``st.navigation`` in app.py, so the
first session of a fresh server ran in the old mode: its page list was the ``pages/`` file
names, a deep link such as ``/query-table`` was not among them, and the browser showed a
"Page not found" dialog over the right page. ``st.navigation`` turns that mode off, but only
once app.py has run. This launcher turns it off before the server starts, as app.py's first
``st.navigation`` call would.

It also begins the first page's work at once (:func:`warm_up`), so a fresh server's first
session only draws the page (issue 30), and the inputs' hashing first of all, beside
streamlit's own start (:func:`hash_inputs`). Before either, and before streamlit is
imported, it starts the child process that fills the load cache (:mod:`.cache_fill`): the
warm-up's open waits for it, then restores the workspace from the cache.
"""

from __future__ import annotations

import ast
import gc
import importlib
import os
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from ragrecall_app import cache_fill

APP = Path(__file__).resolve().parent.parent / "app.py"
# the page a first visit shows (app.py's default page)
FIRST_PAGE = APP.parent / "pages" / "overview.py"
RUNTIME_WAIT_S = 30
# set when the server has stopped: the warm-up ends at its next step
STOPPING = threading.Event()
# the launcher's own start of the inputs' hashing (hash_inputs), which the warm-up's
# open waits for rather than hash a file twice
HASHING: list[threading.Thread] = []
# the child filling the load cache (cache_fill.start), and the thread waiting for it, which
# the warm-up's open waits for too
FILLING: list = []
# what streamlit imports only during a session's first run, on the first page's clock
# (page_icon's emoji check: ~30 ms; material icon names; magic; the skills route)
FIRST_RUN_IMPORTS = (
    "streamlit.emojis",
    "streamlit.material_icon_names",
    "streamlit.runtime.scriptrunner.magic_funcs",
    "streamlit.web.skills",
)
# how long after the first page the collector waits at most for the sessions to be quiet
# (:func:`collect_startup`): sessions that keep running meanwhile leave their garbage
GC_OFF_S = 30.0
# the folders of a workspace whose files are inputs besides its own (Source.input_files)
INPUT_FOLDERS = ("runs", "grades", "qrels")


def main(argv: list[str] | None = None) -> int:
    """``streamlit run app.py`` with the old ``pages/`` mode off from the start, and the
    first page's work started at once (:func:`warm_up`)."""
    # the cyclic collector is off until the first page is drawn (:func:`collect_startup`)
    gc.disable()
    args = sys.argv[1:] if argv is None else argv
    # listed once: sized for the child here, hashed beside streamlit's start below
    inputs = named_inputs(args, dict(os.environ))
    small = inputs is not None and sum(map(_size, inputs)) <= cache_fill.MAX_INPUT_BYTES
    # first: the child's interpreter starts while streamlit is imported here
    child = cache_fill.start(args) if small else None
    # a daemon: it only waits for the child, and the server's exit must never wait for it
    filled = threading.Thread(
        target=cache_fill.wait, args=(child,), name="ragrecall-fill", daemon=True
    )
    filled.start()
    FILLING[:] = [filled]
    hashing = threading.Thread(target=hash_inputs, args=(inputs or [],), name="ragrecall-hash")
    hashing.start()
    HASHING[:] = [hashing]
    import streamlit.delta_generator
    from streamlit.web import cli

    old_pages_mode_off()
    skip_installed_components()
    # Streamlit's first element of a process asks whether it runs in a REPL, through
    # inspect.stack(): the source of every frame, every module's real path (0.1 s of the
    # first page). Under `streamlit run` the answer is no and its warning never shows.
    streamlit.delta_generator._use_warning_has_been_displayed = True
    sys.argv = ["streamlit", "run", str(APP), *args]
    # Not a daemon: the interpreter's exit waits for it, so it is never stopped inside
    # DuckDB's native code (a daemon thread killed there aborts the process: exit 134 on a
    # SIGTERM); the stop it is told of ends it at its next step.
    threading.Thread(target=warm_up, name="ragrecall-warm-up").start()
    try:
        return cli.main()
    finally:
        STOPPING.set()
        cache_fill.stop(child)


def old_pages_mode_off() -> None:
    """Turn streamlit's old ``pages/``-folder mode off before its server starts (see the
    module's docstring). Its switch is streamlit's own, not a public one: a streamlit without
    it leaves the mode as app.py's first ``st.navigation`` sets it (the first deep link after
    a start may then show "Page not found"), and the dashboard still starts."""
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:
        return
    if hasattr(PagesManager, "uses_pages_directory"):
        PagesManager.uses_pages_directory = False


def skip_installed_components() -> None:
    """Streamlit's runtime, before its server answers, scans every installed distribution's
    metadata for components a package declares (``streamlit.components.v2``'s manifests),
    parsing each METADATA file three times: 0.3 s of the interpreter the first page waits
    for, with this project's test extras installed (137 distributions). The dashboard uses
    no installed component: its one component, the charts', is declared in code
    (:mod:`ragrecall_app.chart`) and registered when first called, which the scan does not
    touch. The scan finds none; another streamlit without that module is left as it is."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:
        return
    manifest_scanner.scan_component_manifests = _no_installed_components


def _no_installed_components(max_workers: int | None = None) -> list:
    return []


def warm_up() -> None:
    """A fresh server's first page, begun while the server starts and the browser loads the
    page: once streamlit has set the app's own arguments (``sys.argv``, first thing in its
    bootstrap), hash the inputs and open the workspace app.py will open
    (:func:`preload`: no runtime, no pandas needed), and meanwhile import what app.py and
    its first page import; once streamlit's runtime exists (its caches are the sessions'),
    compile the two scripts, then score and build the first page into the caches its
    sessions share (:func:`warm_first_page`).

    Once the first page is drawn and the sessions are quiet, the garbage of the start is
    collected and what is left is frozen (:func:`collect_startup`), then the other pages are
    built. Nothing here is shown: a source that fails to open fails again in the first
    session, which shows its problems on the page."""
    try:
        if not wait_until(app_arguments_set):
            return
        from ragrecall_core.views.source import parse_source  # no pandas: a quick import

        source = parse_source(sys.argv[1:], os.environ, APP.parent / "data_samples")
        # begun before pandas and the dashboard's modules are imported (it needs none of
        # them); hashing and DuckDB's restore mostly leave the interpreter's lock free: the
        # other core imports meanwhile
        opening = threading.Thread(target=preload, args=(source,), name="ragrecall-open")
        opening.start()
        import_first_page([APP, FIRST_PAGE])
        import_quietly(FIRST_RUN_IMPORTS)
        opening.join()
        if not wait_until(runtime_started):
            return
        from streamlit.runtime import Runtime

        from ragrecall_app.script_cache import keep_unchanged

        # the first session runs both scripts first thing: compiled now, not after the work,
        # and kept when the last session leaves (:mod:`.script_cache`)
        scripts = getattr(Runtime.instance(), "_script_cache", None)  # streamlit's own
        if scripts is not None:
            keep_unchanged(scripts)
            for script in (APP, FIRST_PAGE):
                scripts.get_bytecode(str(script))
        ctx = warm_first_page(source)
        from ragrecall_app.page_warm import first_page_drawn, wait_for_quiet, warm_pages

        first_page_drawn(stop=STOPPING)
        wait_for_quiet(STOPPING, timeout_s=GC_OFF_S)
        collect_startup()
        warm_pages(ctx, stop=STOPPING)  # every k's tables and the other pages' results
    except Exception:  # noqa: BLE001 (left to the first session, which reports it)
        return
    finally:
        collect_startup()


def collect_startup() -> None:
    """Turn the cyclic collector back on (:func:`main` turns it off first thing), once: its
    collections during the start scanned the imports' objects again and again (streamlit,
    pandas and the dashboard: about 0.1 of the 0.8 CPU s of their imports) on the one
    interpreter the first page waits for. One full collection then takes the start's
    garbage, and what is left (the modules, the workspace, the caches) is frozen: the
    collector's later full passes, each a pause of every session's script, no longer scan
    it. Begun while no session's script runs (:func:`.page_warm.wait_for_quiet`, at most
    :data:`GC_OFF_S` after the first page) or when the warm-up ends; a second call does
    nothing."""
    if gc.isenabled():
        return
    gc.collect()
    gc.freeze()
    gc.enable()


def import_quietly(modules: Iterable[str]) -> None:
    """Import ``modules`` now, each that this streamlit has (another one may not)."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            continue


def hash_inputs(paths: list[Path]) -> None:
    """Hash ``paths``, the launcher's inputs (:func:`named_inputs`), on one thread, into the
    digests the load cache remembers (:func:`~ragrecall_core.inputs.load_cache.file_digest`).
    The launcher runs it first thing: the key of a fresh server's inputs (four 66 MB runs at
    10,000 queries: about 0.35 CPU s) then costs the first page nothing, where it waited
    for streamlit's start and the imports before. A file hashed here and not among the
    inputs costs its read; one among them not hashed here is hashed when the key is made; a
    file changed since is hashed again (a digest is remembered under the file's identity):
    the key is the same either way (``tests/test_warm_up.py``). Nothing here fails."""
    try:
        from ragrecall_core.inputs.load_cache import hash_beside

        hash_beside(paths, threads=1)  # the other core starts streamlit
    except Exception:  # noqa: BLE001, S110 (the key is made from the files all the same)
        pass


def named_inputs(argv: list[str], env: dict[str, str]) -> list[Path] | None:
    """The regular files the launcher's arguments or ``$RAGRECALL_WORKSPACE`` name (a
    folder: its files and those of its :data:`INPUT_FOLDERS`; none named: the default
    workspace's), or None when they cannot be listed (a name too long, a folder that cannot
    be read: the server's own open names the problem on the page)."""
    try:
        named = [Path(a) for a in argv if not a.startswith("-")]
        named += [Path(env["RAGRECALL_WORKSPACE"])] if env.get("RAGRECALL_WORKSPACE") else []
        named = [path for path in named if path.exists()] or [APP.parent / "data_samples"]
        return _files_of(named)
    except OSError:
        return None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _files_of(paths: list[Path]) -> list[Path]:
    """The regular files among ``paths`` and in the folders among them (and in their
    :data:`INPUT_FOLDERS`), hidden ones and judgment stores aside."""
    found = []
    for path in paths:
        if path.is_dir():
            folders = [path, *(path / name for name in INPUT_FOLDERS if (path / name).is_dir())]
            found += [file for folder in folders for file in sorted(folder.iterdir())]
        else:
            found.append(path)
    return [p for p in found if p.is_file() and not (p.name.startswith(".") or ".duckdb" in p.name)]


def preload(source) -> None:
    """Open the workspace of ``source`` ahead (:func:`.opened.open_ahead`: no pandas, no
    streamlit cache), once the launcher's own hashing has ended (a file is hashed once) and
    its child has filled the load cache (:mod:`.cache_fill`: then a restore); the warm-up's
    first read of it takes it. What fails is left to the first session."""
    try:
        from ragrecall_app import opened

        opened.open_ahead(source, after=[*HASHING, *FILLING])
    except Exception:  # noqa: BLE001, S110 (the first session opens it again and reports it)
        pass


def wait_until(ready) -> bool:
    """Whether ``ready()`` came true within :data:`RUNTIME_WAIT_S` (False too once the
    server is stopping)."""
    deadline = time.monotonic() + RUNTIME_WAIT_S
    while not ready():
        if time.monotonic() > deadline or STOPPING.wait(0.02):
            return False
    return True


def app_arguments_set() -> bool:
    """Whether streamlit's bootstrap has replaced the launcher's ``sys.argv`` (``streamlit
    run app.py ...``) by the app's own (``app.py`` and what follows ``--``)."""
    return sys.argv[:2] != ["streamlit", "run"]


def runtime_started() -> bool:
    from streamlit.runtime import Runtime
    from streamlit.runtime.runtime import RuntimeState

    return Runtime.exists() and Runtime.instance().state != RuntimeState.INITIAL


def warm_first_page(source):
    """The default Overview of ``source`` (loaded, its measures at the default k scored, its
    numbers and tables built) into the caches every session shares: a first visit only draws
    it. Its Harm@k and no-answer scores need the workspace, not the measures, and its
    intervals' resamples only the number of queries: they are built beside them, in threads
    of their own (the Overview's build then finds them, or waits for them). The query table
    itself (failure classes, grades, reasons, ranks: the other pages') is not built here but
    behind the first page (:func:`.page_warm.warm_pages`). Its context."""
    from ragrecall_app import analyses, context, overview_sections

    ctx = context.first_context(source)
    parts = (analyses.view_harm, analyses.view_no_answer, _resamples)
    beside = [threading.Thread(target=_quietly, args=(part, ctx)) for part in parts]
    for thread in beside:
        thread.start()
    try:
        overview_sections.view(ctx)
    finally:
        for thread in beside:
            thread.join()
    return ctx


def _resamples(ctx) -> None:
    """The bootstrap's resample counts of the default view's queries (every query: no filter
    is set), which depend on their number alone and are kept (a fifth of a second at 10,000
    queries): the Overview's intervals then only multiply."""
    from ragrecall_core.analysis.bootstrap import resample_counts

    if ctx.facts.queries:
        resample_counts(ctx.facts.queries)


def _quietly(part, ctx) -> None:
    """``part(ctx)``, one of the Overview's parts built into the shared caches ahead of its
    build (which finds it, or reports what failed)."""
    try:
        part(ctx)
    except Exception:  # noqa: BLE001, S110 (the Overview's build reports it)
        pass


def import_first_page(scripts: Iterable[Path]) -> None:
    """Import every module the top level of ``scripts`` imports (``import a.b``, ``from a
    import b``, a submodule ``b`` too), without running the scripts."""
    for script in scripts:
        for node in ast.parse(script.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    importlib.import_module(alias.name)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                module = importlib.import_module(node.module)
                for alias in node.names:
                    if not hasattr(module, alias.name):
                        importlib.import_module(f"{node.module}.{alias.name}")


if __name__ == "__main__":
    sys.exit(main())
