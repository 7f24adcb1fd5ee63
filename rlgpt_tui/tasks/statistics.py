"""Interval statistics of the measures: Crafter's score, a Wilson interval for a success rate
and a bootstrap interval for a score."""

from __future__ import annotations

import math

import numpy as np


def crafter_score(success_rates: dict[str, float] | np.ndarray) -> float:
    """Crafter's score: geometric mean of (1 + success rate in %) over achievements, minus 1."""
    rates = list(success_rates.values()) if isinstance(success_rates, dict) else success_rates
    rates = np.asarray(rates, dtype=float) * 100.0
    return float(math.exp(np.mean(np.log1p(rates))) - 1.0)


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


def bootstrap_score_interval(
    achieved: np.ndarray, resamples: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """95% percentile interval of Crafter's score, resampling episodes with replacement.

    ``achieved``: (n, 22) achievements unlocked per episode."""
    n = len(achieved)
    if n == 0:
        return 0.0, 100.0
    rng = np.random.default_rng(seed)
    unlocked = achieved.astype(np.float64)
    scores = []
    for start in range(0, resamples, 100):  # weights in chunks: (100, n) at a time
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=min(100, resamples - start))
        rates = weights @ unlocked / n * 100.0
        scores.append(np.exp(np.log1p(rates).mean(axis=1)) - 1.0)
    low, high = np.percentile(np.concatenate(scores), [2.5, 97.5])
    return float(low), float(high)
