"""ragrecall_app.built.remembered: a shared cache that says which arguments it has built
(the one home of "is this already built?", which three module-level sets answered)."""

from __future__ import annotations

from ragrecall_app.built import remembered

BUILDS: list[tuple] = []


@remembered(max_entries=4)
def _square(key: str, k: int, _unhashed: object) -> int:
    BUILDS.append((key, k))
    return k * k


def test_a_call_is_remembered_by_its_keyed_arguments_and_built_once():
    _square.clear()
    BUILDS.clear()
    assert not _square.was_built("a", 3)
    assert _square("a", 3, object()) == 9
    assert _square.was_built("a", 3) and not _square.was_built("a", 4)
    assert _square("a", 3, object()) == 9  # the unhashed argument is not part of the key
    assert BUILDS == [("a", 3)]
