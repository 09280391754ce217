"""Settings every test shares."""

from __future__ import annotations

import os

import pytest


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
