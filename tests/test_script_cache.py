"""Streamlit's compiled scripts outlive the last session's leaving while their files are
unchanged (ragrecall_app.script_cache), and the launcher's warm-up keeps the runtime's so."""

from __future__ import annotations

import os
import types

from streamlit.runtime.scriptrunner.script_cache import ScriptCache

from ragrecall_app import serve
from ragrecall_app.script_cache import keep_unchanged


def script(tmp_path, text: str = "x = 1\n"):
    path = tmp_path / "page.py"
    path.write_text(text, encoding="utf-8")
    return str(path)


def value_of(code) -> int:
    found: dict = {}
    exec(code, found)  # noqa: S102 (the test's own script)
    return found["x"]


def test_streamlit_s_own_clear_compiles_the_script_again(tmp_path):
    """The premise: streamlit's cache, emptied as the last session leaves, compiles again."""
    cache, path = ScriptCache(), script(tmp_path)
    first = cache.get_bytecode(path)
    cache.clear()
    assert cache.get_bytecode(path) is not first


def test_an_unchanged_script_is_kept_when_the_cache_is_emptied(tmp_path):
    cache, path = ScriptCache(), script(tmp_path)
    assert keep_unchanged(cache)
    first = cache.get_bytecode(path)
    cache.clear()
    assert cache.get_bytecode(path) is first


def test_a_script_edited_since_it_was_compiled_is_compiled_again(tmp_path):
    cache, path = ScriptCache(), script(tmp_path)
    keep_unchanged(cache)
    first = cache.get_bytecode(path)
    with open(path, "w", encoding="utf-8") as file:
        file.write("x = 22\n")
    stat = os.stat(path)  # the same size and second would not hide it: the ns and size differ
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    cache.clear()
    again = cache.get_bytecode(path)
    assert again is not first
    assert value_of(again) == 22


def test_a_removed_or_replaced_script_is_dropped(tmp_path):
    cache, path = ScriptCache(), script(tmp_path)
    keep_unchanged(cache)
    cache.get_bytecode(path)
    os.remove(path)
    cache.clear()
    assert os.path.abspath(path) not in cache._cache
    script(tmp_path, "x = 3\n")  # a new file (a new inode) under the same name
    assert value_of(cache.get_bytecode(path)) == 3


def test_a_script_compiled_before_the_cache_was_kept_is_dropped(tmp_path):
    """No stamp was taken when it was compiled: it cannot be known unchanged."""
    cache, path = ScriptCache(), script(tmp_path)
    first = cache.get_bytecode(path)
    keep_unchanged(cache)
    cache.clear()
    assert cache.get_bytecode(path) is not first


def test_a_cache_without_streamlit_s_fields_is_left_as_it_is():
    other = types.SimpleNamespace(get_bytecode=len, clear=list)
    assert not keep_unchanged(other)
    assert other.clear is list


def test_the_warm_up_keeps_the_runtime_s_compiled_scripts(monkeypatch, tmp_path):
    """The launcher's warm-up, once streamlit's runtime exists, keeps its cache's scripts
    (app.py and the first page, compiled there) across the last session's leaving."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.runtime import RuntimeState

    runtime = types.SimpleNamespace(
        _script_cache=ScriptCache(), state=RuntimeState.ONE_OR_MORE_SESSIONS_CONNECTED
    )
    monkeypatch.setattr(Runtime, "exists", staticmethod(lambda: True))
    monkeypatch.setattr(Runtime, "instance", staticmethod(lambda: runtime))
    monkeypatch.setattr(serve, "import_first_page", lambda scripts: None)
    monkeypatch.setattr(serve, "preload", lambda source: None)

    def no_first_page(source):
        raise RuntimeError("the test stops here")

    monkeypatch.setattr(serve, "warm_first_page", no_first_page)
    monkeypatch.setattr(serve.sys, "argv", [str(serve.APP), str(tmp_path)])
    serve.warm_up()
    compiled = runtime._script_cache.get_bytecode(str(serve.APP))
    runtime._script_cache.clear()
    assert runtime._script_cache.get_bytecode(str(serve.APP)) is compiled
    assert str(serve.FIRST_PAGE) in runtime._script_cache._cache
