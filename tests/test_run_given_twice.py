"""A run file given twice (``compare gold a.jsonl a.jsonl``) is said to be the same file, not
a name clash with itself."""

from __future__ import annotations

from ragrecall_core.cli import main
from tests.samples import shared_samples

SAMPLES = shared_samples()


def test_the_same_run_file_twice_is_named_as_given_twice(capsys):
    run = SAMPLES / "runs" / "bm25.jsonl"
    code = main(["compare", str(SAMPLES / "gold.jsonl"), str(run), str(run)])
    err = capsys.readouterr().err
    assert code == 2
    assert "given twice" in err and "not already used by" not in err


def test_two_files_of_one_name_still_clash_by_name(tmp_path, capsys):
    other = tmp_path / "bm25.jsonl"
    other.write_bytes((SAMPLES / "runs" / "bm25.jsonl").read_bytes())
    run = SAMPLES / "runs" / "bm25.jsonl"
    code = main(["compare", str(SAMPLES / "gold.jsonl"), str(run), str(other)])
    assert code == 0  # a clash of stems: the second one is named after its folder or made free
    capsys.readouterr()
