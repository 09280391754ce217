"""The sidebar's counts keep people's grades and model judges' grades apart: a judge's
grades file in ``grades/`` (annotator ``judge:NAME``) is no manual grade."""

from __future__ import annotations

import json
from pathlib import Path

from ragrecall_core import Workspace
from ragrecall_core.inputs.workspace import workspace_facts
from tests.dashboard_support import app, no_exception
from tests.samples import shared_samples

SAMPLES = shared_samples()


def annotators(path: Path) -> list[str]:
    return [json.loads(line)["annotator"] for line in path.read_text().splitlines() if line]


def test_facts_count_people_and_judges_apart():
    rows = [a for f in sorted((SAMPLES / "grades").glob("*.jsonl")) for a in annotators(f)]
    judges = [a for a in rows if a.startswith("judge:")]
    assert judges and len(judges) < len(rows)  # the samples ship both kinds
    facts = workspace_facts(Workspace.open(SAMPLES))
    assert facts.grades == len(rows) - len(judges)
    assert facts.judge_grades == len(judges)


def test_the_sidebar_names_judge_grades_apart(monkeypatch):
    at = app(SAMPLES, monkeypatch)
    no_exception(at)
    facts = workspace_facts(Workspace.open(SAMPLES))
    caption = " ".join(c.value for c in at.sidebar.caption)
    assert f"{facts.grades} manual grades" in caption, caption
    assert f"{facts.judge_grades} judge grades" in caption, caption
