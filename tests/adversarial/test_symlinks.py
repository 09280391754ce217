"""Symlinks inside a workspace that lead out of it.

A workspace is a folder the user shares; a link in it to a system file (or to a folder of
them) must be refused before anything is read, naming the link and its target, and none of
the target's content may appear in any output.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.errors import shortened
from tests.fixtures_regressions import write_workspace
from tests.helpers import run_cli, write_text

OUTSIDE_LINE = "root-secret-line:x:0:0"


def outside_file(tmp_path: Path) -> Path:
    """A 'system file' outside the workspace: 60 lines an error would echo if it were read."""
    return write_text(tmp_path / "outside" / "passwd", f"{OUTSIDE_LINE}\n" * 60)


def link(path: Path, target: Path) -> Path:
    if path.exists():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    return path


# where a workspace would read a file: every role, and the judgment store it writes to
LINKED_FILES = [
    "gold.jsonl",
    "runs/baseline.jsonl",
    "runs/candidate.config.json",
    "runs/extra.trec",
    "grades/anna.jsonl",
    "corpus.jsonl",
    "judgments.duckdb",
]


@pytest.mark.parametrize("name", LINKED_FILES)
def test_link_leaving_the_workspace_is_refused_and_not_read(tmp_path, capsys, name):
    folder = write_workspace(tmp_path / "ws")
    target = outside_file(tmp_path)
    linked = link(folder / name, target)

    with pytest.raises(InputError) as error:
        Workspace.open(folder)

    assert [(p.file, p.value) for p in error.value.problems] == [
        (str(linked), shortened(str(target)))
    ]
    code, out, err = run_cli(capsys, ["report", folder, "-o", tmp_path / "report.md"])
    assert code == 2
    assert [line for line in err.splitlines() if str(folder) in line] == [str(error.value)]
    assert OUTSIDE_LINE not in out + err and "Traceback" not in err
    assert not (tmp_path / "report.md").exists()


@pytest.mark.parametrize("folder_name", ["runs", "grades"])
def test_linked_folder_leaving_the_workspace_is_refused(tmp_path, folder_name):
    folder = write_workspace(tmp_path / "ws")
    outside = tmp_path / "outside"
    outside_file(tmp_path)
    write_text(outside / "r.jsonl", '{"id": "t01", "retrieved": []}\n')
    (folder / folder_name).rename(tmp_path / f"moved-{folder_name}")
    linked = link(folder / folder_name, outside)

    with pytest.raises(InputError) as error:
        Workspace.open(folder)

    assert [(p.file, p.value) for p in error.value.problems] == [
        (str(linked), shortened(str(outside)))
    ]


def test_dangling_link_leaving_the_workspace_is_refused(tmp_path):
    folder = write_workspace(tmp_path / "ws")
    linked = link(folder / "judgments.duckdb", tmp_path / "elsewhere" / "stolen.duckdb")

    with pytest.raises(InputError) as error:
        Workspace.open(folder)

    assert [p.file for p in error.value.problems] == [str(linked)]
    assert not (tmp_path / "elsewhere").exists()


def test_every_escaping_link_is_named_at_once(tmp_path):
    folder = write_workspace(tmp_path / "ws")
    target = outside_file(tmp_path)
    links = [link(folder / name, target) for name in ("runs/extra.jsonl", "corpus.jsonl")]

    with pytest.raises(InputError) as error:
        Workspace.open(folder)

    assert sorted(p.file for p in error.value.problems) == sorted(map(str, links))


def test_links_that_stay_inside_the_workspace_are_followed(tmp_path):
    folder = write_workspace(tmp_path / "ws")
    (folder / "runs" / "baseline.jsonl").rename(folder / "kept-baseline.jsonl")
    link(folder / "runs" / "baseline.jsonl", Path("..") / "kept-baseline.jsonl")

    workspace = Workspace.open(folder)

    assert workspace.run_names == ["baseline", "candidate"]


def test_a_workspace_opened_through_a_link_to_it_opens(tmp_path):
    folder = write_workspace(tmp_path / "ws")
    alias = link(tmp_path / "alias", folder)

    assert Workspace.open(alias).run_names == ["baseline", "candidate"]


def test_escaping_link_behind_a_linked_folder_inside_is_refused(tmp_path):
    folder = write_workspace(tmp_path / "ws")
    (folder / "runs").rename(folder / "real-runs")
    link(folder / "runs", Path("real-runs"))
    target = outside_file(tmp_path)
    link(folder / "real-runs" / "extra.jsonl", target)

    with pytest.raises(InputError) as error:
        Workspace.open(folder)

    problems = [(p.file, p.value) for p in error.value.problems]
    assert problems == [(str(folder / "runs" / "extra.jsonl"), shortened(str(target)))]


def test_symlink_loop_is_refused_not_followed(tmp_path):
    folder = write_workspace(tmp_path / "ws")
    (folder / "corpus.jsonl").unlink()
    link(folder / "corpus.jsonl", Path("loop-b"))
    link(folder / "loop-b", Path("corpus.jsonl"))

    with pytest.raises(InputError) as error:
        Workspace.open(folder)

    assert sorted(p.file for p in error.value.problems) == [
        str(folder / "corpus.jsonl"),
        str(folder / "loop-b"),
    ]
    assert {p.value for p in error.value.problems} == {"a symlink loop"}
