"""A release gate whose threshold lies outside its measure's values can never fail (or never
pass): ``Recall@5>=-1`` passed every run. Such a requirement is refused in one line."""

from __future__ import annotations

import pytest

from ragrecall_core.analysis.gate import parse_requirement
from ragrecall_core.cli import main
from ragrecall_core.errors import InputError
from tests.samples import shared_samples

SAMPLES = shared_samples()


@pytest.mark.parametrize(
    "text",
    ["Recall@5>=-1", "Recall@5<=1.5", "MRR@10>1.2", "nDCG@10==2", "FirstRank<=0.5", "Hits@5>=-0.1"],
)
def test_a_threshold_outside_the_measures_values_is_refused(text):
    with pytest.raises(InputError) as refused:
        parse_requirement(text)
    (problem,) = refused.value.problems
    assert problem.value == text and "values" in problem.expected


@pytest.mark.parametrize(
    "text", ["Recall@5>=0", "Recall@5<=1", "Hit@5==1", "FirstRank<=3", "Hits@5>=12", "Harm@5<0.1"]
)
def test_a_threshold_among_the_measures_values_is_taken(text):
    assert str(parse_requirement(text)) == text


def test_check_names_every_such_threshold_at_once_and_exits_2(capsys):
    code = main(
        [
            "check",
            str(SAMPLES / "gold.jsonl"),
            str(SAMPLES / "runs" / "bm25.jsonl"),
            "--require",
            "Recall@5>=-1",
            "--require",
            "MRR@5>=1.5",
            "--require",
            "Hit@5>=0.5",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "Recall@5>=-1" in err and "MRR@5>=1.5" in err and "Hit@5>=0.5" not in err
    assert "Traceback" not in err
