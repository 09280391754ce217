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

import sys
from pathlib import Path

from streamlit.runtime.pages_manager import PagesManager
from streamlit.web import cli

APP = Path(__file__).resolve().parent.parent / "app.py"


def main(argv: list[str] | None = None) -> int:
    """``streamlit run app.py`` with the old ``pages/`` mode off from the start."""
    PagesManager.uses_pages_directory = False
    sys.argv = ["streamlit", "run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
