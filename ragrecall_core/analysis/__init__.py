"""What the numbers mean: comparisons, the release gate, failure classes, no-answer,
pooling, agreement, gold gaps."""
