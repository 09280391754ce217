"""Stand-ins with the shapes of ranx's and ir_measures' objects, which ragrecall recognises by
shape and never imports: the tests build them without installing either library."""

from __future__ import annotations

from collections import namedtuple

Qrel = namedtuple("Qrel", "query_id doc_id relevance iteration")  # ir_measures' fields
ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")


class Qrels:
    """ranx ``Qrels``'s shape: ``.qrels`` and ``to_dict()``."""

    def __init__(self, qrels: dict):
        self.qrels = qrels

    def to_dict(self) -> dict:
        return self.qrels


class Run:
    """ranx ``Run``'s shape: ``.run``, ``.name`` and ``to_dict()``."""

    def __init__(self, run: dict, name: str | None):
        self.run, self.name = run, name

    def to_dict(self) -> dict:
        return self.run
