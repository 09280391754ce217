"""The paired randomization (sign-flip) test of a mean delta, for many measures at once.

Under the null hypothesis that baseline and candidate are exchangeable within each
query, every delta is as likely to have the opposite sign. The two-sided p-value is the
share of sign assignments whose ``|sum of deltas|`` reaches the observed one:

* exactly, over all ``2**m`` assignments of a measure's ``m`` nonzero deltas, when there
  are at most ``n_permutations`` of them (a zero delta is the same under either sign);
* otherwise from ``n_permutations`` random assignments, counting the observed one
  (``(extreme + 1) / (n_permutations + 1)``), with a fixed seed. Permutation ``p``
  draws ``ceil(n / 32)`` uint32 words from one generator; bit ``i % 32`` of word
  ``i // 32`` set means query ``i``'s delta changes sign. Every measure sees the same
  assignments (rows = queries; a NaN delta is outside that measure's test).

The words are drawn in blocks (numpy's generator yields the same uint32 stream whatever
the block shape), and each block's flipped sums come from per-byte lookup tables, so a
test of 10,000 queries x 9,999 permutations takes a fraction of a second in bounded memory.
"""

from __future__ import annotations

import numpy as np

from ragrecall_core.analysis.bootstrap import SEED

PERMUTATIONS = 9999
BLOCK_BYTES = 4_000_000  # random bytes held at once
# sums that differ by less than this share of the largest possible sum are ties: the
# vectorised sums and a plain loop's add the same numbers in different orders
TIE_TOLERANCE = 1e-9
BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(float)  # (256, 8)


def sign_flip_p_values(
    deltas: np.ndarray, n_permutations: int = PERMUTATIONS, seed: int = SEED
) -> np.ndarray:
    """Two-sided p-value of each column's mean delta; NaN for a column with no value."""
    deltas = np.asarray(deltas, dtype=float).reshape(len(deltas), -1)
    filled = np.where(np.isnan(deltas), 0.0, deltas)
    nonzero = (filled != 0).sum(axis=0)
    p_values = np.full(deltas.shape[1], np.nan)
    sampled = []
    for column in range(deltas.shape[1]):
        if np.isnan(deltas[:, column]).all():
            continue
        if 2 ** int(nonzero[column]) <= n_permutations:
            p_values[column] = exact_p_value(filled[:, column])
        else:
            sampled.append(column)
    if sampled:
        p_values[sampled] = sampled_p_values(filled[:, sampled], n_permutations, seed)
    return p_values


def exact_p_value(deltas: np.ndarray) -> float:
    """The share of all sign assignments of the nonzero deltas as extreme as observed."""
    nonzero = deltas[deltas != 0]
    patterns = np.arange(2 ** len(nonzero))[:, None] >> np.arange(len(nonzero))
    signs = 1.0 - 2.0 * (patterns & 1)
    sums = signs @ nonzero
    return float(np.mean(is_extreme(sums, nonzero.sum(), np.abs(nonzero).sum())))


def is_extreme(sums: np.ndarray, observed: float, largest: float) -> np.ndarray:
    """``|sum| >= |observed|``, up to the rounding of sums added in another order."""
    return np.abs(sums) >= np.abs(observed) - TIE_TOLERANCE * max(largest, 1.0)


def sampled_p_values(deltas: np.ndarray, n_permutations: int, seed: int) -> np.ndarray:
    """Monte Carlo p-values from ``n_permutations`` random sign assignments (see above).

    Each block of assignments is drawn once and looked up in every measure's table
    (``256 * n`` floats per measure: 2.5 MB at 10,000 queries).
    """
    words = -(-len(deltas) // 32)
    tables = [byte_table(column, 4 * words) for column in deltas.T]
    table_rows = np.arange(4 * words) * 256  # where each byte position's table starts
    observed, largest = deltas.sum(axis=0), np.abs(deltas).sum(axis=0)
    extreme = np.zeros(len(tables), dtype=np.int64)
    rng = np.random.default_rng(seed)
    block = max(1, BLOCK_BYTES // (4 * words))
    for start in range(0, n_permutations, block):
        rows = min(block, n_permutations - start)
        drawn = rng.integers(0, 2**32, size=(rows, words), dtype=np.uint32)
        positions = drawn.astype("<u4", copy=False).view(np.uint8) + table_rows
        for column, table in enumerate(tables):
            sums = observed[column] - 2.0 * np.take(table, positions).sum(axis=1)
            extreme[column] += is_extreme(sums, observed[column], largest[column]).sum()
    return (extreme + 1) / (n_permutations + 1)


def byte_table(deltas: np.ndarray, n_bytes: int) -> np.ndarray:
    """``n_bytes * 256`` sums: at ``256 * j + v``, the sum of the deltas of queries
    ``8j .. 8j+7`` whose bit is set in byte value ``v``."""
    padded = np.zeros(n_bytes * 8)
    padded[: len(deltas)] = deltas
    return (padded.reshape(n_bytes, 8) @ BYTE_BITS.T).ravel()
