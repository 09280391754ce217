"""The sidebar's data section (app.py): the folder field and the uploads sit in a popover,
whose widgets the browser draws only when it is opened (a first page does not fetch their
code), and a caption beside it names what is open."""

from __future__ import annotations

from tests.dashboard_support import app, hostile_workspace, no_exception
from tests.samples import shared_samples


def _popover_keys(at) -> list[list[str]]:
    """The widget keys inside the sidebar's popovers, per popover, in the sidebar's order."""
    found = []

    def walk(node) -> None:
        for block in node.children.values():
            if type(block).__name__ != "Block":
                continue
            if block.proto.WhichOneof("type") == "popover":
                found.append([c.key for c in block.children.values() if getattr(c, "key", None)])
            else:
                walk(block)

    walk(at.sidebar)
    return found


def _captions(at) -> list[str]:
    return [c.value for c in at.sidebar.get("caption")]


def test_the_folder_field_and_the_uploads_are_in_a_popover(monkeypatch):
    at = app(monkeypatch=monkeypatch)
    no_exception(at)
    policy, data = _popover_keys(at)  # the view's choices first, the data's after them
    assert data == ["side_ws", "side_up_gold", "side_up_runs", "side_up_grades", "side_up_corpus"]
    assert "side_rel" in policy
    assert at.text_input(key="side_ws").value == str(shared_samples())
    # the path as Markdown escapes it (every punctuation mark: a path with a dot too), read
    # back without its escapes
    shown = [c.replace("\\", "") for c in _captions(at)]
    assert "Workspace: " + str(shared_samples()) in shown


def test_a_folder_typed_in_opens_it_and_the_caption_names_it(tmp_path, monkeypatch):
    at = app(monkeypatch=monkeypatch)
    folder = hostile_workspace(tmp_path / "ws")
    at.text_input(key="side_ws").input(str(folder)).run()
    no_exception(at)
    assert any(c.startswith("2 queries · 1 run") for c in _captions(at))
    shown = [c for c in _captions(at) if c.startswith("Workspace: ")]
    assert len(shown) == 1 and "ws" in shown[0] and "<" not in shown[0]
