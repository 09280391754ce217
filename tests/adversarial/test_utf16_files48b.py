"""A UTF-16 file is refused in one line that says so (stop 48).

Windows tools (Excel's "Unicode text", PowerShell's ``>``) save UTF-16 with a byte order
mark. Read as UTF-8, every line of such a file failed, each shown as a long run of escaped
bytes (``\\xff\\xfeq\\x00u\\x00...``) that does not say what is wrong. Every input kind that
checks for UTF-8 now names the encoding and the fix in one problem, on line 1.
"""

from __future__ import annotations

import pytest

from tests.adversarial.test_unreadable_files import LINES, cli_rejects, problems_of, write_case

BOMS = {"le": ("utf-16-le", b"\xff\xfe", "FF FE"), "be": ("utf-16-be", b"\xfe\xff", "FE FF")}
CASES = [
    pytest.param(role, fmt, order, id=f"{role}-{fmt}-{order}")
    for role, formats in LINES.items()
    for fmt in formats
    for order in BOMS
]


@pytest.mark.parametrize(("role", "fmt", "order"), CASES)
def test_a_utf16_file_is_refused_saying_to_save_it_as_utf8(tmp_path, capsys, role, fmt, order):
    name, head, template = LINES[role][fmt]
    codec, bom, shown = BOMS[order]
    text = (head + template.replace(b"{bad}", b"fine")).decode("utf-8")
    paths = write_case(tmp_path, role, bom + text.encode(codec), name)

    problems = problems_of(paths)
    assert [(p.file, p.line) for p in problems] == [(str(paths[role]), 1)], problems
    (problem,) = problems
    assert problem.value == f"UTF-16 (a byte order mark {shown})", problem
    assert problem.expected == "UTF-8 text: save it as UTF-8", problem
    cli_rejects(capsys, paths, problems)


def test_a_latin1_file_starting_with_those_bytes_is_still_named_line_by_line(tmp_path):
    """Only a file *starting* with a byte order mark is called UTF-16."""
    name, head, template = LINES["grades"]["csv"]
    paths = write_case(tmp_path, "grades", head + template.replace(b"{bad}", b"\xff\xfe"), name)
    (problem,) = problems_of(paths)
    assert (problem.line, problem.expected) == (3, "UTF-8 text")
