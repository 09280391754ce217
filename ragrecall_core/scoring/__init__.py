"""Turning judgments and ranked lists into measure values: the prepared evaluation,
SQL per measure family, evaluate()."""
