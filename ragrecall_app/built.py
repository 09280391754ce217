"""Shared results that know what they have built.

A result every session shares (``st.cache_resource``) is sometimes wanted only if it is
already built: a slice of every k's tables when those exist, else the one k alone. Streamlit
cannot be asked whether an entry is cached without building it, so :func:`remembered` keeps
the arguments each call was made with beside the cache: the one home of that question. An
entry evicted since is built again by the next read, as any cache miss is.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import streamlit as st


def remembered(max_entries: int) -> Callable[[Callable[..., Any]], Any]:
    """``st.cache_resource`` (shared, read-only, at most ``max_entries``), with
    ``was_built(*args)``: whether a call with these arguments has been made. As with
    streamlit, a parameter whose name starts with ``_`` is not part of the key, so
    ``was_built`` takes the others, in order."""

    def wrap(build: Callable[..., Any]) -> Callable[..., Any]:
        cached = st.cache_resource(show_spinner=False, max_entries=max_entries)(build)
        signature = inspect.signature(build)
        made: set[tuple] = set()

        @functools.wraps(build)
        def read(*args):
            value = cached(*args)
            named = signature.bind(*args).arguments
            made.add(tuple(v for name, v in named.items() if not name.startswith("_")))
            return value

        read.was_built = lambda *args: args in made
        read.clear = cached.clear
        return read

    return wrap
