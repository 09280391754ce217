"""The one way to put a name into SQL when it cannot be a constant.

ragrecall's SQL is built from constants and generated names; file content is bound as
parameters, and keys or headers from files stay data (see :mod:`ragrecall_core.inputs.corpus`).
Should a name ever have to come from elsewhere, it goes through :func:`quote_identifier`
and nowhere else.
"""

from __future__ import annotations


def quote_identifier(name: str) -> str:
    """``name`` as exactly one DuckDB identifier, whatever it holds: inside double quotes,
    each double quote doubled (SQL's rule), so no text can end the name early.

    >>> quote_identifier('m" := 1)) --')
    '"m"" := 1)) --"'
    """
    if not name or "\x00" in name:
        raise ValueError(f"an SQL identifier must be non-empty and hold no NUL: {name!r}")
    return '"' + name.replace('"', '""') + '"'
