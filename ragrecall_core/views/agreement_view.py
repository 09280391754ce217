"""What the Agreement page says: its lines, the pairs table's headers and the disagreement
picker's labels. The page (``pages/agreement.py`` over :mod:`ragrecall_app.agreement`) only
lays them out.

>>> filters_caption(["q1", "q2"]).split(". ")[0]
"Pairs and disagreements: the 2 queries under the sidebar's filters"
>>> filters_caption(None)
''
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import pandas as pd

from ragrecall_core.output.literal import as_words, yes_no
from ragrecall_core.output.text import plural
from ragrecall_core.views.formats import SHARE

INTRO = (
    "How far annotators agree, where they disagree and how each disagreement was settled; "
    "all grades to download, a graded sheet to import, and what the gold set may lack."
)
PAIRS_CAPTION = (
    "On the chunks both annotators graded: the share of identical grades, Cohen's kappa "
    "(agreement beyond chance; 1 = perfect, 0 = chance) and linear-weighted kappa (a 2 vs 0 "
    "disagreement costs twice a 2 vs 1)."
)
# the pairs table's columns as the page names them
PAIR_COLUMNS = {
    "annotator_a": "annotator A",
    "annotator_b": "annotator B",
    "items": "shared chunks",
    "identical": "identical share",
    "kappa": "Cohen's kappa",
    "kappa_linear": "linear-weighted kappa",
}
# as_words formats of the pairs table (by its headers as shown): a share as a percent
PAIR_FORMATS = {"identical share": SHARE}
# the judges' table's headers, short so that its eleven columns fit 1600 px (JUDGE_LEGEND
# gives the long ones)
JUDGE_HEADERS = {
    "shared chunks": "pairs",
    "Cohen's kappa": "kappa",
    "linear-weighted kappa": "linear kappa",
    "precision (relevant)": "precision",
    "chunks it calls relevant": "its relevant",
    "recall (relevant)": "recall",
    "chunks humans call relevant": "humans' relevant",
    "Kendall's tau (run ranking)": "Kendall's tau",
    "runs ranked": "runs",
}
JUDGE_LEGEND = (
    "pairs: chunks both graded; its relevant: chunks the judge calls relevant; humans' "
    "relevant: chunks the humans call relevant; runs: runs ranked for Kendall's tau."
)
# a list (disagreements, gold gap candidates) longer than this stays a grid, drawn only as
# far as it is scrolled: one escaped table of thousands of rows is slower to send and draw
LONG_LIST = 200
# nothing to compare is no agreement: a neutral line, not a green one
NOTHING_SHARED = "Nothing graded by two annotators yet: no disagreement to review."
IMPORT_CAPTION = (
    "Columns query_id, chunk_id, grade (2/1/0), harmful, reason, annotator (a row "
    "without an annotator takes the file name). The file is checked first; nothing "
    "is imported if it has any problem."
)
GAPS_CAPTION = (
    "Chunks reviewers graded relevant that the gold set lacks, relevant grades on no-answer "
    "queries, and gold chunks a reviewer flagged harmful. Download them as a proposed gold "
    "update to review; the gold file is never rewritten."
)
# an uploaded file's name when it has none ("." and ".." name no file)
UNNAMED_UPLOAD = "grades.csv"


def filters_caption(view_ids: Collection[str] | None) -> str:
    """What the sidebar's filters narrow on this page, or ``''`` when nothing is filtered."""
    if view_ids is None:
        return ""
    return (
        f"Pairs and disagreements: the {plural(len(view_ids), 'query', 'queries')} under the "
        "sidebar's filters. "
        "All grades (export / import) and gold gap candidates do not follow the sidebar's "
        "filters: they cover every query."
    )


def shown_grades(frame: pd.DataFrame) -> pd.DataFrame:
    """A disagreement's grades or resolutions as a static table shows them: the harmful flag
    as a word, a resolution's time to the second (never "True", "NaT" or microseconds).

    >>> shown_grades(pd.DataFrame({"grade": [2], "harmful": [True]})).to_dict("records")
    [{'grade': 2, 'harmful': 'yes'}]
    """
    shown = frame.assign(harmful=frame["harmful"].map(yes_no))
    return as_words(shown, {"created_at": ("{:%Y-%m-%d %H:%M:%S}", "")})


def disagreements_caption(items: pd.DataFrame) -> str:
    """How many chunks were graded differently, how many are open, and what resolving does."""
    open_n = int((items["status"] == "open").sum())
    return (
        f"{plural(len(items), 'chunk')} graded differently (grade or harmful flag); "
        f"{open_n} open. "
        "A resolution is recorded beside the annotators' grades, which stay as they were; "
        "evaluation uses the latest resolution."
    )


def disagreement_labels(items: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """``query · chunk`` label -> (query id, chunk id), the open disagreements first.

    >>> items = pd.DataFrame({"query_id": ["q1", "q2"], "chunk_id": ["a", "b"],
    ...                       "status": ["resolved", "open"]})
    >>> list(disagreement_labels(items))
    ['q2 · b', 'q1 · a']
    """
    ordered = items.sort_values("status", key=lambda c: c != "open", kind="stable")
    return {f"{r.query_id} · {r.chunk_id}": (r.query_id, r.chunk_id) for r in ordered.itertuples()}


def grades_caption(graded: int) -> str:
    return (
        f"{graded} current grades (grades files and the Judge page; the latest per "
        "annotator and chunk). CSV cells that a spreadsheet would run as a formula are prefixed "
        "with '."
    )


def upload_file_name(name: str) -> str:
    """The name an uploaded grades file is saved under: its last path part (it names a row's
    annotator when the row has none), :data:`UNNAMED_UPLOAD` when that is no file name.

    >>> upload_file_name("../../anna.csv"), upload_file_name("..")
    ('anna.csv', 'grades.csv')
    """
    base = Path(name).name
    return base if base.strip(".") else UNNAMED_UPLOAD
