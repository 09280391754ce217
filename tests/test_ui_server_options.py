"""`ragrecall ui` and a server started in this folder (``streamlit run app.py``, the browser
tests, the benchmarks) run with the same streamlit options: the ones the launcher passes
as flags are the ones ``.streamlit/config.toml`` sets."""

from __future__ import annotations

import tomllib
from pathlib import Path

from ragrecall_core import cli
from tests.samples import shared_samples

ROOT = Path(__file__).resolve().parent.parent


def launched_options(monkeypatch) -> dict[str, str]:
    """The streamlit options ``ragrecall ui`` passes to its server, by name."""
    commands: list[list[str]] = []
    monkeypatch.setattr(cli, "serve", lambda command: commands.append(command) or 0)
    args = cli.build_parser().parse_args(["ui", str(shared_samples())])
    assert cli.cmd_ui(args) == 0
    (command,) = commands
    flags = command[command.index("ragrecall_app.serve") + 1 : command.index("--")]
    pairs = zip(flags[::2], flags[1::2], strict=True)
    return {name.removeprefix("--"): value for name, value in pairs}


def configured_options() -> dict[str, str]:
    """``.streamlit/config.toml``'s options as streamlit's dotted names, as flag text."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    return {
        f"{section}.{name}": str(value).lower() if isinstance(value, bool) else str(value)
        for section, options in config.items()
        for name, value in options.items()
    }


def test_the_launcher_and_the_folder_config_agree(monkeypatch):
    launched = launched_options(monkeypatch)
    configured = configured_options()
    # the address and port are the launcher's own; every other option is in both
    own = ("server.address", "server.port")
    assert {k: v for k, v in launched.items() if k not in own} == configured


def test_the_charts_bundle_is_served(monkeypatch):
    # the charts load static/plotly-ragrecall.min.js from the app's static files
    assert launched_options(monkeypatch)["server.enableStaticServing"] == "true"
    assert configured_options()["server.enableStaticServing"] == "true"
    assert (ROOT / "static" / "plotly-ragrecall.min.js").is_file()


def test_no_garbage_collection_after_each_script_run(monkeypatch):
    # a full collection after every run held the interpreter's lock 0.1-0.2 s per click
    assert launched_options(monkeypatch)["runner.postScriptGC"] == "false"
    assert configured_options()["runner.postScriptGC"] == "false"
