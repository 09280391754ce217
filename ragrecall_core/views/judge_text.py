"""What the Judge page says about its data: where the grades are stored, and whether there
is chunk text to judge at all (issue 29).

Blind judging shows the query and the chunk's text, nothing else: without text (TREC qrels
and a run, no corpus) a judge would grade "(no chunk text)", so the page refuses to start
and names what to provide. The judgment store of loose files sits beside the gold file,
which surprised people: the page says where it is for each kind of source.
"""

from __future__ import annotations

from ragrecall_core.inputs.home import HOME_VARIABLE, ragrecall_home, upload_store_file
from ragrecall_core.inputs.secrets import redact_path
from ragrecall_core.inputs.store import store_path
from ragrecall_core.inputs.workspace import Workspace

INTRO = (
    "Blind judging of the pool: the top d chunks of the chosen runs for each query, minus "
    "what the gold set or you already judged. You see the query and the chunk, never which "
    "run returned it, at what rank or with what score."
)
CORPUS_FORMATS = (
    "JSON lines, CSV or Parquet with a `chunk_id` and a `text` per chunk "
    "(`doc_id` and `section` optional)"
)


def chunks_with_text(workspace: Workspace) -> int:
    """How many corpus chunks have text to show a judge (0 without a corpus)."""
    sql = "SELECT count(*) FROM corpus WHERE text IS NOT NULL AND trim(text) <> ''"
    return workspace.cursor().execute(sql).fetchone()[0]


def no_text_refusal(is_folder: bool) -> str:
    """Why judging does not start without chunk text, and what to provide instead."""
    how = (
        "put it in the workspace folder as corpus.jsonl, corpus.csv or corpus.parquet"
        if is_folder
        else "open the dashboard with --corpus FILE beside --gold and --run (or upload it "
        "with the other files)"
    )
    return (
        "Blind judging is off: this data has no chunk text (no corpus, or a corpus without "
        "text), so a judge would see chunk ids only. Provide a corpus file, "
        f"{CORPUS_FORMATS}: {how}, then reload."
    )


def store_place(workspace: Workspace) -> str:
    """Where the grades made here are stored, and why there, for the workspace's kind."""
    path = store_path(workspace)
    if workspace.folder is not None:
        return f"Grades are stored in {redact_path(path)}, the workspace folder's judgment store."
    stores = ragrecall_home() / "stores"
    if path.parent.resolve() == stores.resolve():
        own = path.name != upload_store_file(workspace.gold.name)
        keyed = "the gold file's name" + (" and content (a store of its own)" if own else "")
        return (
            f"Grades are stored in {redact_path(path)}: uploaded files keep their grades under "
            f"${HOME_VARIABLE} ({redact_path(ragrecall_home())}), keyed by {keyed}."
        )
    return (
        f"Grades are stored in {redact_path(path)}: loose files (--gold) keep their grades "
        "beside the gold file, named after it."
    )
