"""The tool's version, in a module of its own so that any layer may name it without
importing the package's public API (which names every layer)."""

__version__ = "0.1.0"
