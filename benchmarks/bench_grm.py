"""GRM fitting: humeval's analytic-gradient marginal likelihood against a generic optimiser and girth.

    python benchmarks/bench_grm.py [--comparisons 6400]

On comparisons simulated from the GRM (30 judges, 300 segments, 10 systems + baseline):

- humeval: GRM().fit — L-BFGS on the Gauss–Hermite marginal likelihood with analytic gradients,
  then MAP abilities;
- the same objective optimised without gradients (L-BFGS-B with finite differences, as a generic
  optimiser would): timed for a few iterations and scaled to the iterations humeval needed;
- girth's ``grm_mml`` (marginal maximum likelihood for the classical GRM): judges as items,
  (system, segment) pairs as persons, the judgment (1 lose, 2 tie, 3 win) as the response and
  missing cells as ``INVALID_RESPONSE``. Not the same model (one discrimination and thresholds per
  judge instead of per-judge discrimination and per-segment thresholds, no priors) but the peer a
  user would reach for; on a 30 × (system·segment) matrix.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy.optimize import minimize

from humeval.ranking import GRM
from humeval.simulate import simulate_grm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comparisons", type=int, default=6400)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    c, truth = simulate_grm(n_comparisons=args.comparisons, random_state=0)
    start = time.perf_counter()
    model = GRM(baseline="base").fit(c)
    ours = time.perf_counter() - start
    iterations = model.optimizer_.nit

    system, segment, judge, u, judges, segments, _ = model._prepare(c)
    x_nodes, w_nodes = np.polynomial.hermite.hermgauss(20)
    nodes, log_w = np.sqrt(2) * model.sigma * x_nodes, np.log(w_nodes / np.sqrt(np.pi))
    data = (system, segment, judge, u)
    value_only = lambda x: model._negative_marginal(x, data, nodes, log_w, len(c.systems))[0]
    x0 = np.concatenate([np.full(len(judges), np.log(1.7)), np.full(len(segments), -0.5), np.zeros(len(segments))])
    probe = 3
    start = time.perf_counter()
    minimize(value_only, x0, method="L-BFGS-B", options={"maxiter": probe})
    per_iteration = (time.perf_counter() - start) / probe
    generic = per_iteration * iterations

    import girth
    persons = system * len(segments) + segment
    matrix = np.full((len(judges), len(c.systems) * len(segments)), girth.INVALID_RESPONSE, dtype=int)
    matrix[judge, persons] = u + 1
    matrix = matrix[:, (matrix != girth.INVALID_RESPONSE).any(axis=0)]
    start = time.perf_counter()
    girth.grm_mml(matrix)
    theirs = time.perf_counter() - start

    print(f"GRM, {len(u):,} comparisons with the baseline, {len(judges)} judges, {len(segments)} segments "
          f"({len(x0)} parameters in the marginal likelihood)")
    print(f"humeval (analytic gradients, {iterations} L-BFGS iterations)   {ours:8.2f} s")
    print(f"same objective, finite-difference gradients (scaled)         {generic:8.1f} s   "
          f"{generic / ours:6.0f}x humeval's time")
    print(f"girth grm_mml on the {matrix.shape[0]} x {matrix.shape[1]:,} judge x (system, segment) matrix"
          f"   {theirs:8.2f} s   {theirs / ours:6.1f}x humeval's time")


if __name__ == "__main__":
    main()
