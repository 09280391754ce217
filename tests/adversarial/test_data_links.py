"""Links to uploaded data (issue #12): ``?data=<key>`` opens the saved upload set for
anyone on the same server; a key that is not one (a path, too long, not hex) or that names
nothing saved here is refused in one line naming it, and the sample workspace is not shown
in its place."""

from __future__ import annotations

import json

import pytest

from ragrecall_core.errors import InputError, shortened
from tests.dashboard_support import app, no_exception, table

GOLD = [
    {"id": "q1", "query": "upload only question", "relevant_ids": ["c1"], "section": "s"},
    {"id": "q2", "query": "second", "relevant_ids": ["c2"], "section": "s"},
]
RUN = [
    {"id": "q1", "retrieved": [{"chunk_id": "c1", "rank": 1, "score": 1.0}]},
    {"id": "q2", "retrieved": [{"chunk_id": "c9", "rank": 1, "score": 0.5}]},
]


class Upload:
    """What ``st.file_uploader`` returns, as far as save_uploads uses it."""

    def __init__(self, name: str, data: bytes):
        self.name, self._data = name, data

    def getvalue(self) -> bytes:
        return self._data


def _jsonl(rows) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _saved_key(home) -> str:
    from ragrecall_app.context import save_uploads, upload_key

    source = save_uploads(
        Upload("gold.jsonl", _jsonl(GOLD)), [Upload("mine.jsonl", _jsonl(RUN))], [], None
    )
    return upload_key(source)


def test_a_saved_upload_set_opens_again_by_its_key(home):
    from ragrecall_app.context import open_upload

    key = _saved_key(home)
    assert len(key) == 16 and int(key, 16) >= 0
    source = open_upload(key)
    assert source.gold.name == "gold.jsonl" and [p.name for p in source.runs] == ["mine.jsonl"]
    assert source.gold.parent.parent == home / "uploads"


@pytest.mark.parametrize(
    "key",
    [
        "../../etc",
        "..",
        "/etc/passwd",
        "a" * 17,
        "a" * 500,
        "abc",
        "ABCDEF0123456789",
        "g" * 16,
        "0123456789abcde/",
        "０" * 16,
        "0123456789abcdef\n",
        "",
    ],
)
def test_a_key_that_is_no_key_is_refused_and_names_the_value(home, key):
    from ragrecall_app.context import open_upload

    with pytest.raises(InputError) as error:
        open_upload(key)
    (problem,) = error.value.problems
    assert problem.file == "URL parameter data"
    assert problem.value == shortened(key)  # a long one keeps its head and end
    assert "hexadecimal" in problem.expected
    assert not (home / "uploads").exists()  # nothing looked up, nothing created


def test_an_unknown_key_says_the_data_is_not_on_this_server(home):
    from ragrecall_app.context import open_upload

    with pytest.raises(InputError) as error:
        open_upload("0123456789abcdef")
    (problem,) = error.value.problems
    assert problem.value == "0123456789abcdef" and "on this server" in problem.expected


def test_a_tampered_manifest_cannot_lead_out_of_its_folder(home):
    from ragrecall_app.context import open_upload

    key = _saved_key(home)
    manifest = home / "uploads" / f"{key}.json"
    record = json.loads(manifest.read_text())
    for bad in ("../../../etc/passwd", "/etc/passwd", "..", "missing.jsonl"):
        manifest.write_text(json.dumps({**record, "gold": bad}))
        with pytest.raises(InputError) as error:
            open_upload(key)
        assert any(p.value == bad for p in error.value.problems), bad
    manifest.write_text("{not json")
    with pytest.raises(InputError):
        open_upload(key)


def test_the_link_opens_the_uploaded_data_in_a_new_session(home, monkeypatch):
    key = _saved_key(home)
    at = app(monkeypatch=monkeypatch, params={"data": key})
    no_exception(at)
    assert at.query_params["data"] in (key, [key])
    headline = table(at)
    assert list(headline["run"]) == ["mine"]  # the upload's run, not the sample's


@pytest.mark.parametrize("key", ["../../etc", "0123456789abcdef", "f" * 300])
def test_a_link_whose_data_is_missing_says_so_instead_of_showing_the_samples(
    home, monkeypatch, key
):
    at = app(monkeypatch=monkeypatch, params={"data": key})
    assert not at.exception
    assert not at.dataframe  # no sample workspace in its place
    shown = " ".join(e.value for e in (*at.error, *at.code))
    assert "URL parameter data" in shown and shortened(key) in shown
    assert "Traceback" not in shown


def test_the_way_back_from_linked_data_is_the_workspace_folder(home, monkeypatch):
    key = _saved_key(home)
    at = app(monkeypatch=monkeypatch, params={"data": key})
    at.button(key="side_data_close").click().run()
    no_exception(at)
    assert "data" not in at.query_params
    assert "mine" not in set(table(at)["run"])
