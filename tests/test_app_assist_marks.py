"""AppTest (issue 32): a model judge's grades are shown as their own mark, apart from the
humans' grades, in the reading view and the Compare dialog; on the Judge page a human never
sees the judge's grade of the pair they are grading (judging stays blind).

The workspace of tests/test_assist_judge.py: q1 and q2, runs old [A B C] and new [D B E],
A relevant to q1 and C to q2 in the gold set, anna graded (q1, B) 0. The judge
``judge:letters`` graded q1's B 1, D 2 and E 0 and q2's D 2, each with a reason.
"""

from __future__ import annotations

import re

from tests.dashboard_support import app, no_exception, unescaped_text
from tests.helpers import write_jsonl
from tests.test_assist_judge import assist_workspace

NAME = "judge:letters"
REASON = "JUDGE-REASON-SEEN"
GRADES = {("q1", "B"): 1, ("q1", "D"): 2, ("q1", "E"): 0, ("q2", "D"): 2}


def judged_folder(folder, name: str = NAME):
    folder = assist_workspace(folder)
    rows = [
        {"query_id": q, "chunk_id": c, "grade": g, "annotator": name, "reason": f"{REASON} {c}"}
        for (q, c), g in GRADES.items()
    ]
    write_jsonl(folder / "grades" / "judge.jsonl", rows)
    return folder


def cards(at) -> list[str]:
    return [h.value for h in at.html]


def card_of(cards_shown: list[str], chunk_id: str, heading: str) -> str:
    found = [c for c in cards_shown if f"<code>{chunk_id}</code>" in c and heading in c]
    assert len(found) == 1, (chunk_id, heading, found)
    return found[0]


def judge_mark(card: str) -> str | None:
    """The text of the card's judge mark (its own element), None without one."""
    m = re.search(r'<span class="rr-judge"[^>]*>(.*?)</span>', card)
    return None if m is None else m.group(1)


def test_the_reading_view_shows_the_judges_grade_apart_from_the_humans(tmp_path, monkeypatch):
    at = app(judged_folder(tmp_path / "ws"), monkeypatch, params={"q": "q1", "focus": "new"})
    at.switch_page("pages/queries.py").run()
    no_exception(at)
    shown = cards(at)
    d, b, e = (card_of(shown, c, f"#{r} · ") for c, r in (("D", 1), ("B", 2), ("E", 3)))
    assert judge_mark(d).endswith("judge:letters 2") and judge_mark(e).endswith("judge:letters 0")
    # B: anna's grade 0 decides its mark; the judge's 1 is shown apart, not counted
    assert "✗ judged not relevant" in b and judge_mark(b).endswith("judge:letters 1")
    # D: unjudged by any human, so unjudged for the measures, though the judge says 2
    assert "? unjudged" in d
    gold = card_of(shown, "A", "(gold)")
    assert judge_mark(gold) is None  # no judge grade, no mark
    assert any("shown, not counted" in unescaped_text(m.value) for m in at.markdown)


def test_counted_the_mark_says_its_grade_counts(tmp_path, monkeypatch):
    params = {"q": "q1", "focus": "new", "judge": NAME}
    at = app(judged_folder(tmp_path / "ws"), monkeypatch, params=params)
    at.switch_page("pages/queries.py").run()
    no_exception(at)
    d = card_of(cards(at), "D", "#1 · ")
    assert "✓ relevant" in d and judge_mark(d).endswith("judge:letters 2")
    assert any("judge:letters counted" in unescaped_text(m.value) for m in at.markdown)


def test_the_compare_dialog_shows_the_judge_mark(tmp_path, monkeypatch):
    params = {"base": "old", "cand": "new", "cq": "q1"}
    at = app(judged_folder(tmp_path / "ws"), monkeypatch, params=params)
    at.switch_page("pages/compare.py").run()
    no_exception(at)
    shown = cards(at)
    assert judge_mark(card_of(shown, "D", "#1 · ")).endswith("judge:letters 2")
    assert judge_mark(card_of(shown, "A", "#1 · ")) is None
    assert any("shown, not counted" in unescaped_text(m.value) for m in at.markdown)


def test_a_hostile_judge_name_is_shown_as_text(tmp_path, monkeypatch):
    name = "judge:<img src=x onerror=alert(1)>"
    at = app(judged_folder(tmp_path / "ws", name), monkeypatch, params={"q": "q1", "focus": "new"})
    at.switch_page("pages/queries.py").run()
    no_exception(at)
    d = card_of(cards(at), "D", "#1 · ")
    assert "<img" not in d and "judge:&lt;img src=x onerror=alert(1)&gt; 2" in judge_mark(d)


def main_text(at) -> str:
    """Everything the Judge page's main area shows: text, widgets' labels and options,
    tables."""
    main = at.main
    parts = [
        e.value
        for kind in ("text", "markdown", "caption", "html", "info")
        for e in getattr(main, kind)
    ]
    parts += [e.value for e in (*main.warning, *main.success, *main.error)]
    parts += [b.label for b in main.button]
    parts += [str(o) for p in at.get("pills") for o in p.options]
    parts += [df.value.to_string() for df in main.dataframe]
    parts += [str(e.proto) for e in at.get("progress")]
    return "\n".join(str(p) for p in parts)


def test_the_judge_page_never_shows_the_judges_grade_of_the_pair_being_graded(
    tmp_path, monkeypatch
):
    folder = judged_folder(tmp_path / "ws")
    # shown or counted: blind either way
    for human, params in (("carla", {}), ("dora", {"judge": NAME})):
        at = app(folder, monkeypatch, params=params).switch_page("pages/judge.py").run()
        at.text_input(key="judge_annotator").input(human).run()
        no_exception(at)
        seen = []
        while (m := re.search(r"Chunk id: (\S+)", main_text(at).replace("\\", ""))) and len(
            seen
        ) < 10:
            chunk = m.group(1)
            seen.append(chunk)
            shown = main_text(at)
            assert "judge:letters" not in shown and REASON not in shown, (chunk, shown)
            at.button(key="judge_grade_0").click().run()
            no_exception(at)
        assert {"B", "D", "E"} <= set(seen)  # the judge-graded pairs came up, blind
