"""ragrecall's own persistent folder, which the load cache and the judgment store share."""

from __future__ import annotations

import os
from pathlib import Path

HOME_VARIABLE = "RAGRECALL_HOME"


def ragrecall_home() -> Path:
    """ragrecall's own persistent folder: ``$RAGRECALL_HOME``, else ``~/.ragrecall``."""
    return Path(os.environ.get(HOME_VARIABLE) or Path.home() / ".ragrecall").expanduser()
