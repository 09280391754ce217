"""How the dashboard writes a value of one kind in its tables, in one place: a share of
queries or chunks read as 0.9118 on one page and 91.2% on another.

Each is an :func:`~ragrecall_core.output.literal.as_words` format: (format spec, word for a
missing value).

>>> SHARE[0].format(0.9118)
'91.2%'
"""

# a share (0 to 1) as a percent to one decimal: 91.2%; none is a dash
SHARE = ("{:.1%}", "—")
