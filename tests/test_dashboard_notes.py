"""The dashboard's notes say what is true (stop 51).

- The policy note said "reviewers' grades on" beside numbers no reviewer's grade touched
  (the sidebar counting 0 manual grades). It now words them as the command line's policy
  line does (:meth:`Policy.describe` with ``reviewed``), from the same core text.
- The Agreement page showed the identical share as 0.9118; shares read as percents there
  as on the No-answer page, in one format.
- The No-answer page read its direction warnings (a rankless run read backwards) again for
  each k: they are facts of the loaded runs, read once per data load.
"""

from __future__ import annotations

import inspect
import json
import uuid
from collections import Counter

from ragrecall_app import render
from ragrecall_app.render import escape_markdown
from ragrecall_core.analysis import no_answer as no_answer_module
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.views import agreement_view, no_answer_text
from ragrecall_core.views.formats import SHARE
from tests.dashboard_support import app, no_exception, samples_workspace, tables

NO_ANSWER = "pages/no_answer.py"
AGREEMENT = "pages/agreement.py"


def without_reviewers(tmp_path, monkeypatch):
    """data_samples without the reviewers' grades files: the model judge's stay, and they are
    no reviewer's grades."""
    folder = samples_workspace(tmp_path, monkeypatch)
    for name in ("anna.jsonl", "boris.jsonl"):
        (folder / "grades" / name).unlink()
    return folder


def policy_line(at):
    (line,) = [c for c in at.caption if c.value.startswith("Policy")]
    return line


def test_the_note_says_no_reviewer_grade_was_loaded(tmp_path, monkeypatch):
    at = app(without_reviewers(tmp_path, monkeypatch), monkeypatch).switch_page(NO_ANSWER).run()
    no_exception(at)
    line = policy_line(at)
    assert line.value == escape_markdown("Policy: " + Policy().summary(reviewed=False))
    assert "used (none loaded)" in Policy().summary(reviewed=False)
    assert line.proto.help == escape_markdown(Policy().describe(reviewed=False))


def test_the_note_says_used_when_reviewers_graded(tmp_path, monkeypatch):
    at = app(samples_workspace(tmp_path, monkeypatch), monkeypatch).switch_page(NO_ANSWER).run()
    no_exception(at)
    line = policy_line(at)
    assert line.value == escape_markdown("Policy: grade >= 1 · chunk · reviewers' grades used")
    assert line.proto.help == escape_markdown(Policy().describe(reviewed=True))


def test_the_short_line_words_grades_as_the_sentence_does():
    """One wording: the short line's grades are the sentence's (describe's) words."""
    for policy in (Policy(), Policy(manual_grades=False), Policy(judge="judge:minilm")):
        for reviewed in (True, False):
            said = policy.describe(reviewed).split("reviewers' grades = ")[1].split(";")[0]
            assert f"reviewers' grades {said}" in policy.summary(reviewed)
    assert "ignored (gold only)" in Policy(manual_grades=False).summary(reviewed=False)
    assert "judge:minilm" in Policy(judge="judge:minilm").summary()


def test_the_dashboard_keeps_no_copy_of_the_policy_words():
    assert "reviewers' grades" not in inspect.getsource(render)


def test_the_identical_share_reads_as_a_percent(tmp_path, monkeypatch):
    at = app(samples_workspace(tmp_path, monkeypatch), monkeypatch).switch_page(AGREEMENT).run()
    no_exception(at)
    pairs = next(t for t in tables(at) if "identical share" in t.columns)
    assert pairs["identical share"].tolist() == ["91.2%"]  # 0.9118 on data_samples
    assert isinstance(pairs["Cohen's kappa"].iloc[0], float)  # the kappas stay numbers


def test_shares_have_one_format():
    assert agreement_view.PAIR_FORMATS["identical share"] == SHARE
    assert no_answer_text.PICKED_FORMATS["false confidence"] == SHARE
    assert no_answer_text.PICKED_FORMATS["answerable coverage"] == SHARE


def test_direction_warnings_are_read_once_per_data_load(tmp_path, monkeypatch):
    """A k change, another run set or a filter reads no direction warning again."""
    folder = samples_workspace(tmp_path, monkeypatch)
    chunk = {"chunk_id": f"unread#{uuid.uuid4().hex}", "doc_id": "unread", "text": "x"}
    with (folder / "corpus.jsonl").open("a") as corpus:  # files no earlier test loaded
        corpus.write(json.dumps(chunk) + "\n")
    calls: Counter = Counter()
    real = no_answer_module.direction_warnings

    def counted(workspace, policy, runs):
        calls.update(runs if runs is not None else ["<every run>"])
        return real(workspace, policy, runs)

    monkeypatch.setattr(no_answer_module, "direction_warnings", counted)
    from ragrecall_app import analyses

    monkeypatch.setattr(analyses, "direction_warnings", counted, raising=False)
    at = app(folder, monkeypatch).switch_page(NO_ANSWER).run()
    no_exception(at)
    first = Counter(calls)
    assert first and set(first.values()) == {1}
    for k in (10, 3, 5):
        at.pills(key="side_k").select(k).run()
        no_exception(at)
    at = app(folder, monkeypatch, params={"split": "test", "k": "10"}).switch_page(NO_ANSWER).run()
    no_exception(at)
    assert calls == first


def test_the_overview_policy_says_no_reviewer_grade_was_loaded(tmp_path, monkeypatch):
    folder = samples_workspace(tmp_path, monkeypatch)
    for name in ("anna.jsonl", "boris.jsonl"):
        (folder / "grades" / name).unlink()
    at = app(folder, monkeypatch)
    no_exception(at)
    assert Policy().describe(reviewed=False) in [t.value for t in at.text]
    assert "reviewers' grades = used (none loaded)" in Policy().describe(reviewed=False)


def test_the_overview_policy_says_used_when_reviewers_graded(tmp_path, monkeypatch):
    at = app(samples_workspace(tmp_path, monkeypatch), monkeypatch)
    no_exception(at)
    assert Policy().describe(reviewed=True) in [t.value for t in at.text]
