"""Small samples said out loud: a rate, a threshold or a comparison over a handful of
queries looks as firm as one over thousands, so below a stated minimum the page says so.

>>> small_sample_warning(3, NO_ANSWER_MINIMUM, "no-answer queries")[:53]
'Small sample: n = 3 no-answer queries (fewer than 10)'
>>> small_sample_warning(25, COMPARISON_MINIMUM, "compared queries") is None
True
"""

from __future__ import annotations

# below these counts a chosen threshold / a mean difference is too unstable to act on alone
NO_ANSWER_MINIMUM = 10
COMPARISON_MINIMUM = 20


def small_sample_warning(
    n: int, minimum: int, what: str, subject: str = "the result"
) -> str | None:
    """A sentence warning that ``subject`` rests on only ``n`` ``what`` (fewer than
    ``minimum``), or ``None`` when there are enough."""
    if n >= minimum:
        return None
    return (
        f"Small sample: n = {n} {what} (fewer than {minimum}): {subject} can change a lot "
        "with one more query."
    )


def rate_with_n(failing: int, total: int) -> str:
    """A rate with the counts it comes from, e.g. ``"40% (2 / 5)"``: no rate without its n."""
    share = f"{failing / total:.0%}" if total else "–"
    return f"{share} ({failing} / {total})"
