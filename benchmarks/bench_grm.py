"""GRM fitting: humeval's analytic-gradient marginal likelihood against a generic optimiser and girth.

    python benchmarks/bench_grm.py [--comparisons 6400,25600,100000,1000000]

On comparisons simulated from the GRM (30 judges, 300 segments, 10 systems + baseline):

- humeval: GRM().fit — L-BFGS on the Gauss–Hermite marginal likelihood with analytic gradients
  (the compiled kernel on distinct cells), then MAP abilities; one evaluation also timed against
  the numpy per-judgment reference;
- the same objective optimised without gradients (L-BFGS-B with finite differences, as a generic
  optimiser would): timed for a few iterations and scaled to the iterations humeval needed;
- girth's ``grm_mml`` (marginal maximum likelihood for the classical GRM): judges as items,
  (system, segment) pairs as persons, the judgment (1 lose, 2 tie, 3 win) as the response and
  missing cells as ``INVALID_RESPONSE``. Not the same model (one discrimination and thresholds per
  judge instead of per-judge discrimination and per-segment thresholds, no priors) but the peer a
  user would reach for; on a 30 × (system·segment) matrix. The judges' discriminations, which both
  fit, are compared with the simulated truth (Pearson r) and with each other.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy.optimize import minimize

from humeval.ranking import GRM
from humeval.ranking.grm import marginal_cells
from humeval.simulate import simulate_grm
from humeval.threads import threads_in_use


def one_size(n_comparisons: int):
    c, truth = simulate_grm(n_comparisons=n_comparisons, random_state=0)
    start = time.process_time()
    model = GRM(baseline="base").fit(c)
    ours = time.process_time() - start
    iterations, evaluations = model.optimizer_.nit, model.optimizer_.nfev

    system, segment, judge, u, judges, segments, _ = model._prepare(c)
    x_nodes, w_nodes = np.polynomial.hermite.hermgauss(20)
    nodes, log_w = np.sqrt(2) * model.sigma * x_nodes, np.log(w_nodes / np.sqrt(np.pi))
    n = len(c.systems)
    cells = marginal_cells(system, segment, judge, u, len(judges), len(segments))
    x0 = np.concatenate([np.full(len(judges), np.log(1.7)), np.full(len(segments), -0.5), np.zeros(len(segments))])
    per_eval = {}
    for name, objective, data in (("compiled cells", model._negative_marginal_cells, cells),
                                  ("numpy per judgment", model._negative_marginal, (system, segment, judge, u))):
        objective(x0, data, nodes, log_w, n)  # compiled once
        repeat = 20 if name == "compiled cells" else 3
        start = time.process_time()
        for _ in range(repeat):
            objective(x0, data, nodes, log_w, n)
        per_eval[name] = (time.process_time() - start) / repeat

    value_only = lambda x: model._negative_marginal_cells(x, cells, nodes, log_w, n)[0]
    probe = 3
    start = time.process_time()
    minimize(value_only, x0, method="L-BFGS-B", options={"maxiter": probe})
    generic = (time.process_time() - start) / probe * iterations

    import girth
    persons = system * len(segments) + segment
    matrix = np.full((len(judges), n * len(segments)), girth.INVALID_RESPONSE, dtype=int)
    matrix[judge, persons] = u + 1
    matrix = matrix[:, (matrix != girth.INVALID_RESPONSE).any(axis=0)]
    start = time.process_time()
    fitted = girth.grm_mml(matrix)
    theirs = time.process_time() - start
    # the estimates compared: both fit one discrimination per judge, each on its own latent scale
    # (girth's persons are (system, segment) pairs; humeval's θ scale is set by its N(0, σ²) prior
    # over the few simulated systems, whose realised spread is not σ: at 100,000 judgments
    # θ̂ ≈ 1.45 θ + 0.36 with r 0.9998, so â ≈ a / 1.45), so the scale-free Pearson r is the measure
    true_a = truth.sensitivity.reindex(judges).to_numpy()
    ours_a, girth_a = model.judge_sensitivity_.reindex(judges).to_numpy(), np.asarray(fitted["Discrimination"])

    print(f"\nGRM, {len(u):,} comparisons with the baseline, {len(judges)} judges, {len(segments)} segments "
          f"({len(x0)} parameters; {len(cells.n):,} distinct (system, judge, segment, u) cells)")
    print(f"humeval fit: {iterations} L-BFGS iterations, {evaluations} evaluations, {ours:.2f} s CPU "
          f"({ours / iterations * 1e3:.1f} ms per iteration)")
    print(f"  one evaluation: compiled cells {per_eval['compiled cells'] * 1e3:.2f} ms, the numpy per-judgment "
          f"reference {per_eval['numpy per judgment'] * 1e3:.2f} ms "
          f"({per_eval['numpy per judgment'] / per_eval['compiled cells']:.0f}x)")
    print(f"same objective, finite-difference gradients (scaled)   {generic:9.1f} s   {generic / ours:7.0f}x humeval")
    print(f"girth grm_mml, {matrix.shape[0]} x {matrix.shape[1]:,} judge x (system, segment) matrix"
          f"   {theirs:7.2f} s   ratio girth / humeval {theirs / ours:5.2f}x")
    print(f"judge discrimination, Pearson r with the simulated truth: humeval {np.corrcoef(ours_a, true_a)[0, 1]:.3f}, "
          f"girth {np.corrcoef(girth_a, true_a)[0, 1]:.3f}; humeval with girth {np.corrcoef(ours_a, girth_a)[0, 1]:.3f} "
          f"(each on its own latent scale)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comparisons", default="6400,25600,100000,1000000", help="comma-separated sizes")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    print(f"threads: {threads_in_use()}; CPU seconds (time.process_time)")
    for size in args.comparisons.split(","):
        one_size(int(size))


if __name__ == "__main__":
    main()
