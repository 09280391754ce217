"""Settings every test shares."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# Every property test's settings but its number of examples, which each sets itself
# (``@settings(max_examples=N)``): the same examples on every run (no database, derandomized),
# no deadline (a run's load takes its time), and fixtures shared across examples on purpose.
settings.register_profile(
    "ragrecall",
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile("ragrecall")


@pytest.fixture(scope="session", autouse=True)
def ragrecall_home(tmp_path_factory):
    """ragrecall's own folder (uploads, judgment stores of loose files, the load cache) is a
    temporary one: no test writes into the real ``~/.ragrecall``, and no cache filled by an
    earlier run answers a test. A test that needs another sets its own."""
    previous = os.environ.get("RAGRECALL_HOME")
    os.environ["RAGRECALL_HOME"] = str(tmp_path_factory.mktemp("ragrecall-home"))
    yield
    if previous is None:
        os.environ.pop("RAGRECALL_HOME", None)
    else:
        os.environ["RAGRECALL_HOME"] = previous


# Tests that start a server, a browser or a framework: tens of seconds each. The README's
# test command runs them all; `pytest -m "not slow"` runs the rest in a few minutes.
SLOW_FOLDERS = ("browser",)
SLOW_MODULES = ("test_ui_signals.py", "test_capture_frameworks.py", "test_warm_up.py")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: starts a server, a browser or a framework")


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = item.path
        if path.parent.name in SLOW_FOLDERS or path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
