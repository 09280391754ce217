"""Attacks on every input path: one test module per family of hostile input.

Each test plays the attack first (a crafted file, a crafted option, a crafted
link) and asserts that no number, gate result or output changes because of it,
that nothing secret leaves, and that the user gets exit 2 with one line per
problem instead of a traceback.
"""
