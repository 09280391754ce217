"""How a chunk's mark reads on screen: one symbol and word per mark, on every page."""

from __future__ import annotations

from ragrecall_core.scoring.prepared import HARMFUL, NOT_RELEVANT, RELEVANT, UNJUDGED

MARK_TEXT = {
    RELEVANT: "✓ relevant",
    NOT_RELEVANT: "✗ judged not relevant",
    HARMFUL: "⚠ harmful",
    UNJUDGED: "? unjudged",
}
