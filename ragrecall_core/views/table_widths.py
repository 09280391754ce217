"""Column widths that fit their text: an id column cut to "2024-137…" let two rows read
the same id (issue 29); a width from the longest value shows each id whole."""

from __future__ import annotations

from collections.abc import Iterable

# the dataframe's 14 px font: about 8 px per character of an id (digits, dashes, letters),
# plus the cell's padding and the sort arrow of its header
CHARACTER_PX = 8
PADDING_PX = 28


def text_width(values: Iterable, least: int = 60, most: int = 320) -> int:
    """Pixels that show the longest of ``values`` whole, within ``least`` and ``most`` (a
    longer value is cut, with the full text on hover; so may the header be)."""
    longest = max((len(str(v)) for v in values), default=0)
    wanted = CHARACTER_PX * longest + PADDING_PX
    return max(least, min(most, wanted))
