"""Serve the dashboard: ``python -m ragrecall_app.serve [streamlit run options] [-- app args]``.

Streamlit decides once per server, when the first browser session starts, whether the app
uses its old multipage mode (a ``pages/`` folder beside the main script). This project keeps
its page files in ``pages/`` but declares its pages with ``st.navigation`` in app.py, so the
first session of a fresh server ran in the old mode: its page list was the ``pages/`` file
names, a deep link such as ``/query-table`` was not among them, and the browser showed a
"Page not found" dialog over the right page. ``st.navigation`` turns that mode off, but only
once app.py has run. This launcher turns it off before the server starts, as app.py's first
``st.navigation`` call would.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from streamlit.runtime import Runtime
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.runtime import RuntimeState
from streamlit.web import cli

APP = Path(__file__).resolve().parent.parent / "app.py"
RUNTIME_WAIT_S = 30


def main(argv: list[str] | None = None) -> int:
    """``streamlit run app.py`` with the old ``pages/`` mode off from the start, and the
    first page's work started at once (:func:`warm_up`)."""
    PagesManager.uses_pages_directory = False
    sys.argv = ["streamlit", "run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    threading.Thread(target=warm_up, name="ragrecall-warm-up", daemon=True).start()
    return cli.main()


def warm_up() -> None:
    """A fresh server's first page, begun while the server starts and the browser loads the
    page: import what app.py imports, then, once streamlit's runtime exists (and ``sys.argv``
    holds the app's own arguments), open and score the workspace app.py will open, into the
    caches its sessions share (:func:`ragrecall_app.context.warm_up`).

    Nothing here is shown: a source that fails to open fails again in the first session,
    which shows its problems on the page."""
    try:
        deadline = time.monotonic() + RUNTIME_WAIT_S
        while not (Runtime.exists() and Runtime.instance().state != RuntimeState.INITIAL):
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)
        import plotly.graph_objects  # noqa: F401  (the pages' charts)

        from ragrecall_app import context
        from ragrecall_core.views.dashboard_state import parse_source

        context.warm_up(parse_source(sys.argv[1:], os.environ, APP.parent / "data_samples"))
    except Exception:  # noqa: BLE001 (left to the first session, which reports it)
        return


if __name__ == "__main__":
    sys.exit(main())
