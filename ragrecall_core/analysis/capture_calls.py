"""Calling a retriever: which method, how k reaches it, sync or async, and what it raised.

What is called, in this order of preference:

1. a function, a bound method or a ``functools.partial`` is called as it is;
2. an object's first method of ``invoke``, ``retrieve``, ``get_relevant_documents``,
   ``search``, ``__call__``; when the object has only the async twin (``ainvoke``,
   ``aretrieve``, ``aget_relevant_documents``, ``asearch``), that one. An object with both
   is called through the sync method (``--concurrency`` runs it in threads): pass the
   async method itself (``retriever.ainvoke``) to have it awaited instead.

An ``async def`` is awaited on one event loop, at most ``concurrency`` at once (a client
bound to its loop works); a plain function returning an awaitable has it awaited in its
worker thread.

k reaches the retriever through the first known knob: a ``k=`` or ``top_k=`` parameter
the method names, else the object's ``k``, ``search_kwargs["k"]``, ``similarity_top_k`` or
``top_k`` attribute, set on a shallow copy (or, when the object cannot be copied, set for
the capture and restored after). The user's object is left as it was.

Whatever the retriever raises is one failed query, ``SystemExit`` included; only
``KeyboardInterrupt`` stops the capture. The message kept is cut to :data:`MAX_ERROR`
characters, then redacted.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import importlib.metadata
import inspect
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs.configs import redact_text

METHODS = ("invoke", "retrieve", "get_relevant_documents", "search", "__call__")
ASYNC_TWINS = {
    "invoke": "ainvoke",
    "retrieve": "aretrieve",
    "get_relevant_documents": "aget_relevant_documents",
    "search": "asearch",
}
K_PARAMETERS = ("k", "top_k")
K_ATTRIBUTES = ("k", "search_kwargs", "similarity_top_k", "top_k")
CANCEL_GRACE = 1.0  # seconds the calls still running get to end when the capture does
MAX_ERROR = 2048  # characters of a retriever's error message kept (cut after redaction)


class QueryFailed(Exception):
    """What one query's call produced that is not a ranked list (kept in the run, not raised)."""


@dataclass
class Target:
    """What is called for each query, and how k reached it (``None``: it did not)."""

    call: Callable
    is_async: bool
    k_knob: str | None
    arguments: tuple[str, ...]  # of query_id, k, top_k: those the call names


# --- which method ----------------------------------------------------------------------------


def attribute(obj: Any, name: str) -> Any:
    """``getattr`` that treats a failing property as absent (the object is the user's)."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def is_plain_call(obj: Any) -> bool:
    return inspect.isroutine(obj) or isinstance(obj, functools.partial)


def method_name(obj: Any) -> str | None:
    """The name of the method of ``obj`` that is called, in the documented order."""
    for name in METHODS:
        if callable(attribute(obj, name)):
            return name
        twin = ASYNC_TWINS.get(name)
        if twin and callable(attribute(obj, twin)):
            return twin
    return None


def owner_and_method(retriever: Any) -> tuple[Any, str | None]:
    """The object a k setting lives on and the method to call on it (``None``: the
    retriever is a plain function, called as it is)."""
    if inspect.isclass(retriever):
        expected = f"a retriever object or function, not the class: create a {retriever.__name__}"
        raise InputError([Problem("--retriever", None, retriever.__name__, expected)])
    if inspect.ismethod(retriever) and not inspect.isclass(retriever.__self__):
        return retriever.__self__, retriever.__name__
    if is_plain_call(retriever):
        return None, None
    name = method_name(retriever)
    if name is None:
        expected = "a callable, or an object with " + ", ".join(METHODS) + " (or async twins)"
        raise InputError([Problem("--retriever", None, type(retriever).__name__, expected)])
    return retriever, name


def is_coroutine_call(call: Callable) -> bool:
    """An ``async def`` (or async generator), or an object whose ``__call__`` is one."""
    return any(
        test(candidate)
        for candidate in (call, attribute(call, "__call__"))
        for test in (inspect.iscoroutinefunction, inspect.isasyncgenfunction)
    )


def named_parameters(call: Callable) -> tuple[str, ...]:
    """Which of ``query_id``, ``k``, ``top_k`` the call names (``**kwargs`` names none)."""
    try:
        parameters = inspect.signature(call).parameters
    except (TypeError, ValueError):
        return ()
    return tuple(name for name in ("query_id", *K_PARAMETERS) if name in parameters)


# --- k ---------------------------------------------------------------------------------------


def k_attribute(owner: Any) -> str | None:
    for name in K_ATTRIBUTES:
        value = attribute(owner, name)
        if name == "search_kwargs" and isinstance(value, dict):
            return name
        if isinstance(value, int) and not isinstance(value, bool):
            return name
    return None


def with_k(owner: Any, name: str, k: int) -> Any:
    """The value ``name`` gets to ask for ``k`` results."""
    return {**getattr(owner, name), "k": k} if name == "search_kwargs" else k


def knob_label(name: str) -> str:
    return "search_kwargs['k']" if name == "search_kwargs" else name


@contextmanager
def resolved(retriever: Any, k: int) -> Iterator[Target]:
    """The :class:`Target` for ``retriever`` with ``k`` forwarded; a retriever whose k had
    to be set on the object itself gets it back when the capture ends."""
    owner, name = owner_and_method(retriever)
    call = retriever if name is None else getattr(owner, name)
    parameters = named_parameters(call)
    knob = next((f"{p}=" for p in K_PARAMETERS if p in parameters), None)
    setting = k_attribute(owner) if owner is not None and knob is None else None
    restore: tuple[str, Any] | None = None
    if setting is not None:
        knob = knob_label(setting)
        try:
            clone = copy.copy(owner)
            setattr(clone, setting, with_k(owner, setting, k))
            call = getattr(clone, name)
        except Exception:  # not copyable: set on the object, given back below
            try:
                before = getattr(owner, setting)
                setattr(owner, setting, with_k(owner, setting, k))
                restore = (setting, before)
            except Exception:  # it refuses k: not forwarded, and said so
                knob = None
    try:
        yield Target(call, is_coroutine_call(call), knob, parameters)
    finally:
        if restore is not None:
            setattr(owner, *restore)


@contextmanager
def process_state_kept() -> Iterator[None]:
    """The working folder and the standard streams as they were before the retriever ran
    (one that closes or replaces them cannot break the summary)."""
    folder, streams = os.getcwd(), (sys.stdout, sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = streams
        with suppress(OSError):
            os.chdir(folder)


def arguments_for(target: Target, query_id: str, k: int) -> dict[str, Any]:
    offered = {"query_id": query_id, "k": k, "top_k": k}
    return {name: offered[name] for name in target.arguments}


# --- calling ---------------------------------------------------------------------------------


def await_here(awaitable: Any) -> Any:
    """An awaitable a plain function returned, awaited on a loop of this worker thread."""

    async def wait() -> Any:
        return await awaitable

    return asyncio.run(wait())


def call_sync(target: Target, text: str, arguments: dict, timeout: float | None) -> Any:
    """The call, or :class:`QueryFailed` after ``timeout`` seconds. Python cannot stop a
    thread: a call that overruns is left to finish in a daemon thread, its result dropped."""

    def call() -> Any:
        result = target.call(text, **arguments)
        return await_here(result) if inspect.isawaitable(result) else result

    if timeout is None:
        return call()
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:  # re-raised in the caller's thread below
            outcome["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise QueryFailed(timeout_text(timeout))
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


async def first_of(results: Any, limit: int) -> list:
    """The first ``limit`` results an async generator yields (an endless one must end)."""
    kept: list = []
    async for result in results:
        kept.append(result)
        if len(kept) >= limit:
            break
    return kept


async def call_async(
    target: Target, text: str, arguments: dict, timeout: float | None, limit: int
) -> Any:
    """The awaited call (an async generator's first ``limit`` results), or
    :class:`QueryFailed` after ``timeout`` seconds."""

    async def call() -> Any:
        result = target.call(text, **arguments)
        if hasattr(result, "__aiter__"):
            return await first_of(result, limit)
        return await result if inspect.isawaitable(result) else result

    if timeout is None:
        return await call()
    # not wait_for: it waits for the cancelled call to end, forever if the call ignores it
    task = asyncio.ensure_future(call())
    try:
        finished, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if not finished:
        task.cancel()  # left to end on its own; the loop is closed without waiting for it
        raise QueryFailed(timeout_text(timeout))
    return task.result()


def timeout_text(timeout: float | None) -> str:
    return f"timed out after {timeout:g} s"


def run_on_new_loop(main: Callable[[], Any]) -> Any:
    """``main()`` on a new event loop. Unlike ``asyncio.run``, closing it does not wait
    for the calls still running (a timed-out call that ignores its cancellation)."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(main())
    finally:
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:  # a moment for the well-behaved ones to end
            loop.run_until_complete(asyncio.wait(pending, timeout=CANCEL_GRACE))
        for task in pending:  # the others are dropped: no "destroyed but pending" noise
            task._log_destroy_pending = False
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


def run_loop(main: Callable[[], Any]) -> Any:
    """:func:`run_on_new_loop`; from inside a running loop (a notebook), in a thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run_on_new_loop(main)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = run_on_new_loop(main)
        except BaseException as error:
            outcome["error"] = error

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# --- what it raised --------------------------------------------------------------------------


def error_text(message: str) -> str:
    """A retriever's message as kept: redacted (a failed connection often names its URL
    and credentials), then cut to :data:`MAX_ERROR` characters. In that order: a secret cut
    in two first leaves a head no redaction rule knows."""
    return redact_text(message)[:MAX_ERROR]


def describe(error: BaseException) -> str:
    """``Type: message`` of whatever the retriever raised, even when printing it fails."""
    if isinstance(error, QueryFailed):
        return error_text(str(error))
    name = type(error).__name__
    try:
        message = str(error)
    except BaseException:  # a hostile __str__
        return f"{name} (its message could not be read)"
    if not isinstance(message, str):
        return f"{name} (its message could not be read)"
    return error_text(f"{name}: {message[:MAX_ERROR]}" if message else name)


# --- what it is --------------------------------------------------------------------------------


def defining_module(retriever: Any) -> str:
    """The module that defines the retriever: its class's for an object or bound method."""
    if inspect.ismethod(retriever):
        retriever = retriever.__self__
    if isinstance(retriever, functools.partial):
        retriever = retriever.func
    if inspect.isroutine(retriever) or inspect.isclass(retriever):
        return attribute(retriever, "__module__") or ""
    return type(retriever).__module__ or ""


def retriever_name(retriever: Any) -> str:
    if inspect.ismethod(retriever) or is_plain_call(retriever) or inspect.isclass(retriever):
        name = attribute(retriever, "__qualname__") or type(retriever).__name__
    else:
        name = type(retriever).__qualname__
    return f"{defining_module(retriever) or '?'}:{name}"


def retriever_version(retriever: Any) -> tuple[str | None, str | None]:
    """``(distribution, version)`` of the package that defines the retriever: the first
    ``__version__`` from its module up to the top-level package, else the installed
    distribution that holds the module."""
    module = defining_module(retriever)
    parts = module.split(".") if module else []
    for end in range(len(parts), 0, -1):
        version = attribute(sys.modules.get(".".join(parts[:end])), "__version__")
        if isinstance(version, str):
            return parts[0], version
    distribution = owning_distribution(module)
    if distribution is None:
        return None, None
    return distribution.metadata["Name"], distribution.version


def owning_distribution(module: str) -> importlib.metadata.Distribution | None:
    """The installed distribution whose files hold ``module``: the one named like its
    top-level package, else (several share a namespace package such as ``llama_index``)
    the one listing the module's file. A module outside site-packages has none."""
    path = str(attribute(sys.modules.get(module), "__file__") or "")
    if "-packages" not in path:
        return None
    top = module.split(".")[0]
    wanted = {module.replace(".", "/") + ".py", module.replace(".", "/") + "/__init__.py"}
    try:
        candidates = [importlib.metadata.distribution(top)]
    except importlib.metadata.PackageNotFoundError:
        names = importlib.metadata.packages_distributions().get(top, [])
        candidates = [importlib.metadata.distribution(name) for name in dict.fromkeys(names)]
    for distribution in candidates:
        if any(str(file) in wanted for file in distribution.files or []):
            return distribution
    return None
