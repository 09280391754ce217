"""What a retriever returns, read as a ranked list, with no dependency on the library.

The whole result may be:

- a pandas DataFrame (PyTerrier's ``qid, docno, score, rank``): ids from the id key's
  column, else the first of ``chunk_id``, ``docno``, ``doc_id``, ``id``; scores from
  ``score``; ordered by its ``rank`` column, else by score (descending, ties by id
  descending, as trec_eval), else as its rows come;
- a ``{id: score}`` mapping (or a pandas Series of scores by id): ranked by score as
  trec_eval ranks;
- any other iterable of entries, in its order. An entry is a chunk id; an ``(id or
  document, score)`` pair; a named tuple or a mapping (read by its keys, then its
  ``metadata``); an object with ``.node`` (LlamaIndex ``NodeWithScore``: the node, and
  ``.score``); an object with ``metadata`` (LangChain ``Document``, LlamaIndex ``TextNode``).

The id: with ``id_key``, that key and only it (in the mapping, else its ``metadata``); by
default ``chunk_id`` then ``id`` (in the mapping or metadata), then the object's own id
(``.id``, ``.node_id``, ``.id_``). The score: the pair's second value, ``.score``, else the
first of :data:`SCORE_KEYS` in the mapping or metadata. A score must be a finite number
(not a bool, not a string); an id a non-empty string. A duplicate keeps its first place.
"""

from __future__ import annotations

import math
import reprlib
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragrecall_core.analysis.capture_calls import QueryFailed

DEFAULT_ID_KEYS = ("chunk_id", "id")
OWN_ID_ATTRIBUTES = ("id", "node_id", "id_")
FRAME_ID_COLUMNS = ("chunk_id", "docno", "doc_id", "id")
SCORE_KEYS = ("score", "relevance_score", "similarity_score")
SHOWN = reprlib.Repr()
SHOWN.maxstring = SHOWN.maxother = 80


def shown(value: Any) -> str:
    """A short, safe picture of a value the retriever returned (its repr may fail)."""
    try:
        return SHOWN.repr(value)
    except Exception:
        return f"a {type(value).__name__}"


def read_at_most(k: int) -> int:
    """Entries read from one result: duplicates aside, an endless stream must end."""
    return 10 * k + 1000


@dataclass
class Ranked:
    items: list[dict] = field(default_factory=list)  # chunk_id, rank, score
    duplicates: list[str] = field(default_factory=list)


def read_results(result: Any, k: int, id_key: str | None = None) -> Ranked:
    """The first ``k`` distinct ids of ``result`` as seed-format items; a later duplicate is
    dropped and named. Raises :class:`QueryFailed` for what cannot be read."""
    entries = entries_of(result, id_key)
    ranked = Ranked()
    seen: set[str] = set()
    # an endless stream of one id must end: read a bounded number of entries
    for read, entry in enumerate(entries):
        if len(ranked.items) == k or read >= read_at_most(k):
            break
        chunk_id, score = item_of(entry, id_key)
        if chunk_id in seen:
            if chunk_id not in ranked.duplicates:
                ranked.duplicates.append(chunk_id)
            continue
        seen.add(chunk_id)
        ranked.items.append({"chunk_id": chunk_id, "rank": len(ranked.items) + 1, "score": score})
    return ranked


def ranked_list(result: Any, k: int, id_key: str | None = None) -> list[dict]:
    return read_results(result, k, id_key).items


def entries_of(result: Any, id_key: str | None) -> Iterable:
    pandas = sys.modules.get("pandas")  # a DataFrame result means pandas is imported
    if pandas is not None and isinstance(result, pandas.DataFrame):
        return frame_entries(result, id_key)
    if pandas is not None and isinstance(result, pandas.Series):
        numeric = pandas.api.types.is_numeric_dtype(result)
        if numeric and not pandas.api.types.is_bool_dtype(result):  # scores by id
            return scored_mapping_entries(dict(result.items()))
        return list(result)
    if isinstance(result, Mapping):
        return scored_mapping_entries(result)
    if isinstance(result, (str, bytes)) or not isinstance(result, Iterable):
        raise QueryFailed(f"a list of results, got {type(result).__name__}")
    return result


def frame_entries(frame: Any, id_key: str | None) -> list[tuple[str, Any]]:
    columns = [c for c in frame.columns if isinstance(c, str)]
    wanted = (id_key,) if id_key else FRAME_ID_COLUMNS
    id_column = next((c for c in wanted if c in columns), None)
    if id_column is None:
        expected = " or ".join(wanted)
        raise QueryFailed(f"a {expected} column in the frame, got columns {shown(columns)}")
    scores = frame["score"] if "score" in columns else [None] * len(frame)
    pairs = list(zip(frame[id_column], scores, strict=True))
    if "rank" in columns:
        ranks = [checked_score(r, "rank") for r in frame["rank"]]
        if any(r is None for r in ranks):
            raise QueryFailed("a rank for every row of the frame")
        order = sorted(range(len(pairs)), key=ranks.__getitem__)
        return [pairs[i] for i in order]
    if "score" in columns:
        return trec_eval_order([(checked_id(i), checked_score(s)) for i, s in pairs])
    return pairs


def scored_mapping_entries(mapping: Mapping) -> list[tuple[str, float]]:
    pairs = [(checked_id(i), checked_score(s)) for i, s in mapping.items()]
    if any(score is None for _, score in pairs):
        raise QueryFailed("a score for every id of an {id: score} mapping")
    return trec_eval_order(pairs)


def trec_eval_order(pairs: list[tuple[str, float | None]]) -> list[tuple[str, float | None]]:
    """Score descending, ties by id descending (trec_eval's order); no score sorts last."""
    scored = sorted(
        (p for p in pairs if p[1] is not None), key=lambda p: (p[1], p[0]), reverse=True
    )
    return scored + [p for p in pairs if p[1] is None]


def item_of(entry: Any, id_key: str | None) -> tuple[str, float | None]:
    """One returned result as ``(chunk id, score or None)``, recognised by its shape."""
    if isinstance(entry, str):
        return checked_id(entry), None
    fields = getattr(type(entry), "_fields", None)
    if isinstance(entry, tuple) and fields is not None:  # a named tuple
        entry = dict(zip(fields, entry, strict=True))
    if isinstance(entry, tuple) and len(entry) == 2:
        chunk_id, _ = item_of(entry[0], id_key)
        return chunk_id, checked_score(entry[1])
    if isinstance(entry, Mapping):
        metadata = entry.get("metadata")
        places = [entry, metadata] if isinstance(metadata, Mapping) else [entry]
        return id_from(places, id_key, None), score_from(places, None)
    node = getattr(entry, "node", None)
    if node is not None:  # LlamaIndex NodeWithScore
        chunk_id, score = item_of(node, id_key)
        own = getattr(entry, "score", None)
        return chunk_id, checked_score(own) if own is not None else score
    metadata = getattr(entry, "metadata", None)
    if metadata is None:
        metadata = getattr(entry, "meta", None)  # Haystack
    if isinstance(metadata, Mapping):
        own_score = getattr(entry, "score", None)
        score = checked_score(own_score) if own_score is not None else score_from([metadata])
        return id_from([metadata], id_key, entry), score
    if id_key is None and own_id(entry) is not None:
        return checked_id(own_id(entry)), checked_score(getattr(entry, "score", None))
    raise QueryFailed(f"a chunk id, (id, score), a dict or a document, got {type(entry).__name__}")


def own_id(entry: Any) -> Any:
    for name in OWN_ID_ATTRIBUTES:
        value = getattr(entry, name, None)
        if value is not None and not callable(value):
            return value
    return None


def id_from(places: list[Mapping], id_key: str | None, entry: Any) -> str:
    keys = (id_key,) if id_key else DEFAULT_ID_KEYS
    for key in keys:
        for place in places:
            if place.get(key) is not None:
                return checked_id(place[key])
    if id_key:
        present = sorted({str(key) for place in places for key in place})
        raise QueryFailed(f"an id under {id_key!r} in the metadata, which has {shown(present)}")
    if entry is not None and own_id(entry) is not None:
        return checked_id(own_id(entry))
    raise QueryFailed(f"an id under chunk_id or id, got {shown(places[0])}")


def score_from(places: list[Mapping], default: Any = None) -> float | None:
    for key in SCORE_KEYS:
        for place in places:
            if place.get(key) is not None:
                return checked_score(place[key])
    return default


def checked_id(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise QueryFailed(f"a non-empty string chunk id, got {shown(value)}")
    return value


def checked_score(value: Any, what: str = "score") -> float | None:
    """A finite number as a float; a bool, a string or anything else is refused."""
    if value is None:
        return None
    is_bool = isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", "") == "b"
    if is_bool or isinstance(value, (str, bytes)) or not hasattr(type(value), "__float__"):
        raise QueryFailed(f"a numeric {what}, got {shown(value)}")
    try:
        number = float(value)  # numpy and torch scalars too
    except Exception:
        raise QueryFailed(f"a numeric {what}, got {shown(value)}") from None
    if not math.isfinite(number):
        raise QueryFailed(f"a finite {what}, got {shown(value)}")
    return number
