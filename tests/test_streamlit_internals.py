"""The launcher leans on a few of streamlit's own (not public) switches. A streamlit without
them must still start the dashboard: each is skipped when it is missing."""

from __future__ import annotations

import sys

from ragrecall_app import serve


def test_old_pages_mode_is_turned_off(monkeypatch):
    from streamlit.runtime.pages_manager import PagesManager

    monkeypatch.setattr(PagesManager, "uses_pages_directory", None)
    serve.old_pages_mode_off()
    assert PagesManager.uses_pages_directory is False


def test_a_streamlit_without_the_pages_switch_still_starts(monkeypatch):
    monkeypatch.setitem(sys.modules, "streamlit.runtime.pages_manager", None)  # ImportError
    serve.old_pages_mode_off()


def test_a_streamlit_without_the_component_scan_still_starts(monkeypatch):
    monkeypatch.setitem(sys.modules, "streamlit.components.v2.manifest_scanner", None)
    monkeypatch.setitem(sys.modules, "streamlit.components.v2", None)
    serve.skip_installed_components()


def test_first_run_imports_missing_from_a_streamlit_are_skipped():
    serve.import_quietly(["streamlit.no_such_module_anywhere", "json"])
    assert "json" in sys.modules
