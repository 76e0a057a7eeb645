"""Is system B's corpus score different from baseline A's? sacrebleu's paired tests (Post 2018,
``sacrebleu --paired-bs`` / ``--paired-ar``; ``sacrebleu.significance``), on per-segment sufficient
statistics so that BLEU, chrF and TER are recomputed from the resampled counts, and on any
segment-level score (the corpus score is then the mean: statistics (score, 1)).

- **paired bootstrap** (Koehn 2004, as Moses' ``bootstrap-hypothesis-difference-significance.pl``):
  draw B resamples of the segments with replacement (the same for both systems), d*_r =
  |score_B(r) − score_A(r)|; p = (1 + #{d*_r − mean(d*) > |score_B − score_A|}) / (B + 1).
- **approximate randomisation** (Riezler & Maxwell 2005; multeval): for each of B trials swap the
  two systems' statistics of each segment with probability ½; p = (1 + #{|score(X*) − score(Y*)| >
  |score_B − score_A|}) / (B + 1). Both two-sided.

The resampled sums are weights @ statistics (counts of each segment in a resample), so a test
costs one matrix product plus B score evaluations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TESTS = ("bs", "ar")
DEFAULT_RESAMPLES = {"bs": 1000, "ar": 10000}
CHUNK = 500


@dataclass
class PairedResult:
    baseline: float
    system: float
    p_value: float
    test: str
    n: int


def mean_statistics(scores) -> tuple[np.ndarray, callable]:
    """Statistics for a metric whose corpus score is the mean of its segment scores."""
    scores = np.asarray(scores, dtype=float)
    return np.column_stack([scores, np.ones(len(scores))]), lambda row: row[0] / row[1]


def _scores(score, sums: np.ndarray) -> np.ndarray:
    return np.array([score(row) for row in sums])


def paired_test(baseline_stats, system_stats, score, test: str = "bs", n: int | None = None,
                random_state=12345) -> PairedResult:
    """sacrebleu's paired bootstrap (``bs``) or approximate randomisation (``ar``) of a system
    against the baseline (module docstring). ``score`` maps summed statistics to the corpus score."""
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    a, b = np.asarray(baseline_stats, dtype=float), np.asarray(system_stats, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"the systems have statistics of shapes {a.shape} and {b.shape}; they must score the same segments")
    n = n or DEFAULT_RESAMPLES[test]
    rng = np.random.default_rng(random_state)
    score_a, score_b = float(score(a.sum(axis=0))), float(score(b.sum(axis=0)))
    observed = abs(score_b - score_a)
    segments = len(a)
    diffs = []
    for start in range(0, n, CHUNK):
        size = min(CHUNK, n - start)
        if test == "bs":
            draws = rng.integers(0, segments, size=(size, segments))
            weights = np.zeros((size, segments))
            np.add.at(weights, (np.repeat(np.arange(size), segments), draws.ravel()), 1.0)
            diffs.append(np.abs(_scores(score, weights @ b) - _scores(score, weights @ a)))
        else:
            keep = rng.integers(0, 2, size=(size, segments)).astype(float)
            x, y = keep @ a + (1 - keep) @ b, (1 - keep) @ a + keep @ b
            diffs.append(np.abs(_scores(score, x) - _scores(score, y)))
    diffs = np.concatenate(diffs)
    if test == "bs":
        diffs = diffs - diffs.mean()
    p = (np.sum(diffs > observed) + 1) / (n + 1)
    return PairedResult(score_a, score_b, float(p), test, n)
