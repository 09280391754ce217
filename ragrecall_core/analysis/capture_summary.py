"""What a capture tells: how many queries failed and why, short lists, duplicates, ids
absent from the corpus, and how k reached the retriever."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ragrecall_core.errors import one_line
from ragrecall_core.inputs.secrets import redact_path

FIRST = 5  # query or chunk ids named in a summary line
# the fewest queries with a result for "every query with a result got the same list" to be said
SAME_LIST_FROM = 3
REASONS = 5  # distinct error messages shown in a summary


def first_few(ids: list[str]) -> str:
    more = ", ..." if len(ids) > FIRST else ""
    return ", ".join(ids[:FIRST]) + more


def queries_word(n: int) -> str:
    return "query" if n == 1 else "queries"


@dataclass
class CaptureResult:
    run: Path
    config: Path
    queries: int
    k: int = 20
    resumed: int = 0
    errors: dict[str, str] = field(default_factory=dict)
    restarted_because: str | None = None
    short: dict[str, int] = field(default_factory=dict)  # query -> its list's length < k
    no_result: list[str] = field(default_factory=list)  # answerable queries given []
    duplicates: dict[str, list[str]] = field(default_factory=dict)  # query -> ids repeated
    k_forwarded_as: str | None = None
    retrieved_ids: int = 0  # distinct ids over every list
    not_in_corpus: list[str] = field(default_factory=list)
    corpus: Path | None = None
    longest: int = 0  # the longest list captured
    none_graded: bool = False  # no retrieved id is a chunk the gold grades
    one_list: bool = False  # every query with a result got the same list
    written: bool = False
    progress: Path | None = None
    earlier_run: bool = False  # a run was at ``run`` before and is left as it was

    def to_text(self) -> str:
        lines = []
        if self.restarted_because:
            lines.append(f"started over: {self.restarted_because}")
        if self.resumed:
            lines.append(f"resumed: {self.resumed} queries were captured before")
        lines += self.failure_lines()
        if self.written:
            lines.append(f"captured {self.queries} queries into {redact_path(self.run)}")
            lines.append(f"config written to {redact_path(self.config)}")
        lines += self.warning_lines()
        # ids, paths and a retriever's messages are file text: each line stays one line
        return "\n".join(one_line(line) for line in lines) + "\n"

    def failure_lines(self) -> list[str]:
        if not self.errors:
            return []
        n = len(self.errors)
        if self.written:
            outcome = "kept as empty lists with an error field"
        else:
            outcome = (
                "no run written; the same command retries them "
                f"(progress in {redact_path(self.progress)})"
            )
        lines = [f"{n} of {self.queries} {queries_word(self.queries)} failed: {outcome}"]
        if not self.written and self.earlier_run:
            lines.append(earlier_run_line(self.run))
        by_reason: dict[str, list[str]] = {}
        for query_id, reason in self.errors.items():
            by_reason.setdefault(reason, []).append(query_id)
        ranked = Counter({reason: len(ids) for reason, ids in by_reason.items()}).most_common()
        for reason, count in ranked[:REASONS]:
            lines.append(f"  {count} x {reason} ({first_few(by_reason[reason])})")
        if len(ranked) > REASONS:
            lines.append(f"  and {len(ranked) - REASONS} other errors")
        return lines

    def warning_lines(self) -> list[str]:
        lines = []
        if self.k_forwarded_as:
            lines.append(f"k={self.k} forwarded to the retriever as {self.k_forwarded_as}")
        else:
            lines.append(
                f"k={self.k} not forwarded: the retriever has no known k setting "
                "(a k= or top_k= parameter, or a k, search_kwargs, similarity_top_k or top_k "
                "attribute); its lists are cut at k"
            )
        if self.short:
            n = len(self.short)
            lines.append(
                f"{n} {queries_word(n)} returned fewer than {self.k} results: "
                + first_few(list(self.short))
            )
        if self.no_result:
            n = len(self.no_result)
            lines.append(
                f"{n} answerable {queries_word(n)} returned no result: " + first_few(self.no_result)
            )
        if self.duplicates:
            n = len(self.duplicates)
            lines.append(
                f"{n} {queries_word(n)} returned a chunk twice (its first place kept): "
                + first_few(list(self.duplicates))
            )
        if self.one_list:
            lines.append(
                "every query with a result got the same list: does the query text reach the search?"
            )
        if self.none_graded:
            lines.append(
                f"none of the {self.retrieved_ids} retrieved ids is a chunk the gold grades: "
                "every measure will be 0 (is --id-key the metadata key that holds your chunk "
                "ids?)"
            )
        if self.not_in_corpus:
            n, total = len(self.not_in_corpus), self.retrieved_ids
            lines.append(
                f"{n} of {total} retrieved ids ({n / total:.0%}) are not in the corpus "
                f"{redact_path(self.corpus)}: {first_few(self.not_in_corpus)} (is --id-key the "
                "metadata key that holds your chunk ids?)"
            )
        return lines


def earlier_run_line(run: Path) -> str:
    """What a capture that wrote nothing says of the run already at its output: it is kept
    (nothing saved is lost), and it is not this capture's."""
    return f"{redact_path(run)} is an earlier capture, left as it was: not this one"


class CaptureFailed(Exception):
    """More queries failed than allowed; ``result`` holds what was captured and why not."""

    def __init__(self, result: CaptureResult):
        super().__init__(result.to_text())
        self.result = result


def summarise(result: CaptureResult, lines: list[dict], chunk_ids: set | None, gold) -> None:
    """Failures, short lists, answerable queries without a result, duplicates, ids absent
    from the corpus (``chunk_ids``, None: no corpus) and whether any id is one the gold
    grades (``gold``: :class:`~ragrecall_core.analysis.capture.GoldFacts`), per query."""
    result.errors = {line["id"]: line["error"] for line in lines if "error" in line}
    answered = [line for line in lines if "error" not in line]
    result.no_result = [
        line["id"] for line in answered if not line["retrieved"] and line["id"] in gold.answerable
    ]
    result.short = {
        line["id"]: len(line["retrieved"]) for line in answered if len(line["retrieved"]) < result.k
    }
    result.duplicates = {
        line["id"]: line["_duplicates"] for line in answered if "_duplicates" in line
    }
    retrieved = dict.fromkeys(i["chunk_id"] for line in answered for i in line["retrieved"])
    result.retrieved_ids = len(retrieved)
    result.longest = max((len(line["retrieved"]) for line in answered), default=0)
    found = [tuple(i["chunk_id"] for i in line["retrieved"]) for line in answered]
    found = [ids for ids in found if ids]
    result.one_list = len(found) >= SAME_LIST_FROM and len(set(found)) == 1
    result.none_graded = bool(retrieved and gold.graded) and gold.graded.isdisjoint(retrieved)
    if chunk_ids is not None:
        result.not_in_corpus = [chunk for chunk in retrieved if chunk not in chunk_ids]
