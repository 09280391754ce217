"""``import ragrecall``: the public API of :mod:`ragrecall_core` under the tool's own name.

The names load on first use, as in :mod:`ragrecall_core`, so importing this costs no pandas.
"""

from ragrecall_core import __all__, __dir__, __getattr__, __version__  # noqa: F401
from ragrecall_core.errors import InputError, Problem  # noqa: F401
