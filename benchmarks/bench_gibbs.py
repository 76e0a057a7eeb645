"""IRT-Gaussian Gibbs fit: humeval's compiled sweeps against its numpy sweeps and a plain-Python reference sampler.

    python benchmarks/bench_gibbs.py [--comparisons 10000] [--iterations 200]

Both samplers run the same model (Hopkins & May 2013, §7; the paper's hyperparameters) with the
same block updates on the same simulated comparisons: the reference loops over comparisons,
items and systems one at a time, as a straightforward research script would. The reference is
timed on fewer sweeps and scaled (it is linear in sweeps); the script prints both times, the
ratio, and the Spearman correlation between the two samplers' ability estimates; humeval's former
vectorised numpy sweep (``IRTGaussian._sweep_numpy``: truncated normals by the inverse CDF, where
the compiled sweep samples them by rejection) runs too, with the Spearman correlation of the two
fits' abilities (other draws of the same posterior; ``tests/ranking/test_irt_sweep.py`` compares
the posteriors within Monte-Carlo error on long chains).
"""

from __future__ import annotations

import argparse
import functools
import math
import random
import time

import numpy as np
from scipy.stats import spearmanr

from humeval.ranking import IRTGaussian
from humeval.ranking.irt import _Gibbs, item_index
from humeval.simulate import simulate_competition


def _phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _phi_inv(p):
    from statistics import NormalDist
    return NormalDist().inv_cdf(min(max(p, 1e-300), 1 - 1e-16))


def _truncated(rng, mean, sd, lo, hi):
    a, b = (lo - mean) / sd, (hi - mean) / sd
    flip = a > 0
    if flip:
        a, b = -b, -a
    pa, pb = _phi(a), _phi(b)
    z = min(max(_phi_inv(pa + rng.random() * (pb - pa)), a), b)
    return mean + sd * (-z if flip else z)


def reference_fit(comparisons, sweeps, sigma0=1.0, sigma_obs=1.0, sigma_a=0.5, radius=0.4, seed=0):
    """Plain-Python Gibbs sampler of the same model; returns the mean abilities over all sweeps."""
    rng = random.Random(seed)
    items, author = item_index(comparisons)
    items, author, outcome = items.tolist(), author.tolist(), comparisons.outcome.tolist()
    n_sys, n_items = len(comparisons.systems), len(author)
    mu, q = [0.0] * n_sys, [0.0] * n_items
    o = [[radius + 0.5 if p == 1 else -radius - 0.5 if p == 2 else 0.0, 0.0] for p in outcome]
    inf = math.inf
    total_mu = [0.0] * n_sys
    for _ in range(sweeps):
        for c, p in enumerate(outcome):
            for side, other in ((0, 1), (1, 0)):
                x = o[c][other]
                win, lose = p == (1 if side == 0 else 2), p == (2 if side == 0 else 1)
                lo, hi = (x + radius, inf) if win else (-inf, x - radius) if lose else (x - radius, x + radius)
                o[c][side] = _truncated(rng, q[items[c][side]], sigma_obs, lo, hi)
        sums, counts = [0.0] * n_items, [0] * n_items
        for c in range(len(outcome)):
            for side in (0, 1):
                sums[items[c][side]] += o[c][side]
                counts[items[c][side]] += 1
        for i in range(n_items):
            precision = 1 / sigma_a ** 2 + counts[i] / sigma_obs ** 2
            mean = (mu[author[i]] / sigma_a ** 2 + sums[i] / sigma_obs ** 2) / precision
            q[i] = rng.gauss(mean, 1 / math.sqrt(precision))
        sums, counts = [0.0] * n_sys, [0] * n_sys
        for i in range(n_items):
            sums[author[i]] += q[i]
            counts[author[i]] += 1
        for s in range(n_sys):
            precision = 1 / sigma0 ** 2 + counts[s] / sigma_a ** 2
            mu[s] = rng.gauss(sums[s] / sigma_a ** 2 / precision, 1 / math.sqrt(precision))
            total_mu[s] += mu[s]
    return np.array(total_mu) / sweeps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comparisons", type=int, default=10_000)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--reference-sweeps", type=int, default=20)
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()}")
    sim = simulate_competition(n_systems=12, n_items=2000, n_judgments=args.comparisons, design="pairs", random_state=0)
    c = sim.comparisons
    IRTGaussian(iterations=2, burn_in=0).fit(c.take(np.arange(100)))  # warm-up imports
    start = time.perf_counter()
    model = IRTGaussian(iterations=args.iterations, random_state=0).fit(c)
    ours = time.perf_counter() - start
    numpy_model = IRTGaussian(iterations=args.iterations, random_state=0)
    numpy_model._sweep = numpy_model._sweep_numpy  # the vectorised numpy sweep the compiled one replaced,
    numpy_model._sweeps = functools.partial(_Gibbs._sweeps, numpy_model)  # one sweep per call
    start = time.perf_counter()
    numpy_model.fit(c)
    vectorised = time.perf_counter() - start
    start = time.perf_counter()
    reference = reference_fit(c, args.reference_sweeps)
    theirs = (time.perf_counter() - start) * args.iterations / args.reference_sweeps
    rho = spearmanr(model.scores_, reference).statistic
    rho_numpy = spearmanr(model.scores_, numpy_model.scores_).statistic
    print(f"IRT-Gaussian, {len(c):,} comparisons, {args.iterations} sweeps, 12 systems")
    print(f"humeval (compiled sweep)     {ours:8.2f} s")
    print(f"humeval's numpy sweep        {vectorised:8.2f} s   {vectorised / ours:6.1f}x the compiled sweep's time "
          f"(other draws of the same posterior: Spearman {rho_numpy:.3f} between the two fits' abilities)")
    print(f"plain-Python reference       {theirs:8.2f} s  (timed on {args.reference_sweeps} sweeps, scaled)"
          f"   {theirs / ours:6.0f}x humeval's time")
    print(f"Spearman between the two samplers' abilities: {rho:.3f}; "
          f"humeval vs the simulated truth: {spearmanr(model.scores_, sim.truth.abilities).statistic:.3f}")


if __name__ == "__main__":
    main()
