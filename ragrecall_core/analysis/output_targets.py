"""Where a command writes (a gate's summary and JUnit file, a report) is never one of its
inputs: ``check GOLD RUN --junit GOLD`` wrote XML over the gold set, and the next job read it
as one. Checked once the inputs are loaded, before anything is written, by path, through
``..`` and symbolic links, and by file (a hard link)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from ragrecall_core.errors import Problem
from ragrecall_core.inputs.secrets import redact_path
from ragrecall_core.inputs.workspace import Workspace


def overwrite_problems(workspace: Workspace, targets: Mapping[str, Path | None]) -> list[Problem]:
    """``targets``: ``{option: path it writes}`` (``None``: not written); one problem per
    target that is an input of ``workspace`` (gold, qrels, runs, their configs, grades,
    corpus) or its judgment store, naming it, and per target an earlier one already writes."""
    return overwritten(targets, protected_files(workspace))


def protected_files(workspace: Workspace) -> list[tuple[str, Path]]:
    """What no output of a command on ``workspace`` may replace, each with its role: its
    inputs and its judgment store (with the files DuckDB keeps beside it)."""
    from ragrecall_core.inputs.db import store_files
    from ragrecall_core.inputs.store import store_path

    store = [("judgment store", path) for path in store_files(store_path(workspace))]
    return [*workspace.input_files(), *store]


def overwritten(
    targets: Mapping[str, Path | None], inputs: Sequence[tuple[str, Path]]
) -> list[Problem]:
    """:func:`overwrite_problems` of the files ``inputs`` (role, path)."""
    problems = []
    written: list[tuple[str, Path]] = []
    for option, target in targets.items():
        if target is None:
            continue
        replaced = next((i for i in inputs if same(target, i[1])), None)
        if replaced is not None:
            role, path = replaced
            expected = f"a file that is not an input (it is the {role} file {redact_path(path)})"
            problems.append(Problem(option, None, redact_path(target), expected))
        earlier = next((o for o, path in written if same(target, path)), None)
        if earlier is not None:  # the second write would replace the first
            expected = f"a file other than {earlier}'s (each output is a file of its own)"
            problems.append(Problem(option, None, redact_path(target), expected))
        written.append((option, target))
    return problems


def same(target: Path, path: Path) -> bool:
    """Whether writing ``target`` would write ``path``."""
    try:
        return os.path.samefile(target, path)
    except OSError:  # one of them does not exist (yet): the names they resolve to
        return Path(target).resolve() == Path(path).resolve()
