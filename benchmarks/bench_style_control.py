"""Style-controlled Bradley–Terry with 1,000 bootstrap resamples, against FastChat's recipe.

    python benchmarks/bench_style_control.py [--rows 1000000] [--big] [--systems 40]
                                             [--resamples 1000] [--peer-resamples 3]

Simulated battles (``simulate_battles``: a length bias β = 1 on the normalised length difference
(L_a − L_b)/(L_a + L_b)) plus three markdown-like features (header, list, bold count differences,
normalised the same way), all four z-scored as FastChat does. Both sides fit the same model:
x = θ_a − θ_b + βᵀz, ties as half a win.

- humeval: ``BradleyTerry(covariates=True)`` — Newton on the rows (θ and β jointly), then
  ``bootstrap_scores``: every resample redraws the battles and runs a compiled chord-Newton from
  the full-data fit (one pass over the rows per iteration), resamples spread over the cores.
- FastChat's recipe (``compute_style_control`` / ``get_bootstrap_result_style_control`` in
  fastchat/serve/monitor/elo_analysis.py, restated here without sklearn): a dense design matrix
  with ±ln 10 in the two models' columns and the style features, every battle twice (a tie = one
  win for each side), and per resample the resampled rows copied into a new matrix and a
  logistic regression refitted from zero by L-BFGS (sklearn's ``LogisticRegression`` default:
  lbfgs, C = 1, tol 1e-4, at most 100 iterations; here ``scipy.optimize.minimize`` with the same
  loss and stopping rule). Running 1,000 of those at 1M battles takes hours: ``--peer-resamples``
  of them are timed and the time of 1,000 extrapolated (linear in the number of resamples).
  At 10M (``--big``) the design matrix would take 2 × 10M × (systems + 4) × 8 bytes (6.9 GB at 40
  systems) plus a copy per resample, too much for a shared machine: its time is extrapolated
  from the 1M run (per-resample cost linear in rows), and so stated.

Printed: wall times, the speed ratio, and the two fits' largest score difference (Elo points).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from humeval.data import Comparisons
from humeval.ranking import BradleyTerry
from humeval.simulate import simulate_battles


def battles(rows: int, systems: int) -> Comparisons:
    sim = simulate_battles(n_systems=systems, n_battles=rows, beta=1.0, eta=0.2, random_state=0)
    c = sim.comparisons
    rng = np.random.default_rng(1)
    counts = rng.poisson(rng.uniform(0.5, 6, (systems, 3))[:, None, :], (systems, 2, 3))  # per system, 2 draws
    side_a = counts[c.a, 0] + rng.poisson(1.0, (rows, 3))
    side_b = counts[c.b, 1] + rng.poisson(1.0, (rows, 3))
    markdown = (side_a - side_b) / (side_a + side_b + 1.0)
    z = np.column_stack([c.covariates[:, 0], markdown])
    z = (z - z.mean(axis=0)) / z.std(axis=0)  # FastChat z-scores its style features
    return Comparisons(a=c.a, b=c.b, outcome=c.outcome, systems=c.systems, covariates=z,
                       covariate_names=("length", "header", "list", "bold"))


def fastchat_design(c: Comparisons):
    """FastChat's X, Y: every battle twice; model columns ±ln 10, then the style features."""
    n, p, k = len(c), len(c.systems), c.covariates.shape[1]
    X = np.zeros((2 * n, p + k))
    rows = np.arange(2 * n)
    X[rows, np.tile(c.a, 2)] = math.log(10)
    X[rows, np.tile(c.b, 2)] = -math.log(10)
    X[:, p:] = np.tile(c.covariates, (2, 1))
    Y = np.zeros(2 * n)
    Y[:n] = c.outcome == 1
    Y[n:] = (c.outcome == 1) | (c.outcome == 0)  # the second copy of a tie counts as an A win
    return X, Y


def logistic_lbfgs(X, Y, C=1.0):
    """sklearn's LogisticRegression(fit_intercept=False) objective and stopping rule, by L-BFGS."""
    def loss(w):
        z = X @ w
        value = -(Y * log_expit(z) + (1 - Y) * log_expit(-z)).sum() + 0.5 * w @ w / C
        return value, X.T @ (expit(z) - Y) + w / C
    return minimize(loss, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                    options={"maxiter": 100, "gtol": 1e-4}).x


def fastchat_bootstrap(c: Comparisons, X, Y, resamples: int, rng) -> float:
    """Seconds for ``resamples`` of FastChat's style-control bootstrap (rows resampled, copied, refitted)."""
    n = len(c)
    tie = c.outcome == 0
    start = time.perf_counter()
    for _ in range(resamples):
        idx = rng.integers(0, n, n)
        decided, tied = idx[~tie[idx]], idx[tie[idx]]
        tied = np.concatenate([tied, tied + n])
        logistic_lbfgs(np.concatenate([X[decided], X[decided], X[tied]]),
                       np.concatenate([Y[decided], Y[decided], Y[tied]]))
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--big", action="store_true", help="also 10× the rows (humeval only; the peer extrapolated)")
    parser.add_argument("--systems", type=int, default=40)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--peer-resamples", type=int, default=3, help="0: humeval only")
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()}")
    peer_per_row = None
    for rows in [args.rows] + ([10 * args.rows] if args.big else []):
        c = battles(rows, args.systems)
        start = time.perf_counter()
        model = BradleyTerry(covariates=True).fit(c)
        fit = time.perf_counter() - start
        model.bootstrap_scores(c, None, 2, np.random.default_rng(0))  # compile outside the timing
        start = time.perf_counter()
        samples = model.bootstrap_scores(c, None, args.resamples, np.random.default_rng(0))
        boot = time.perf_counter() - start
        ours = fit + boot
        print(f"{rows:,} battles, {args.systems} systems, 4 covariates: humeval fit {fit:.1f} s + "
              f"{args.resamples} resamples {boot:.1f} s = {ours:.1f} s "
              f"(score std {np.nanmean(samples.std(axis=0)) * 400 / math.log(10):.2f} Elo)")
        if args.peer_resamples == 0:
            continue
        if peer_per_row is None:
            X, Y = fastchat_design(c)
            start = time.perf_counter()
            w = logistic_lbfgs(X, Y)
            peer_fit = time.perf_counter() - start
            theirs = w[:args.systems] * math.log(10)
            theirs -= theirs.mean()
            gap = np.max(np.abs(theirs - model.scores_.to_numpy())) * 400 / math.log(10)
            beta_gap = np.max(np.abs(w[args.systems:] - model.coef_.to_numpy()))
            per = fastchat_bootstrap(c, X, Y, args.peer_resamples, np.random.default_rng(0)) / args.peer_resamples
            peer_per_row = (peer_fit / rows, per / rows)
            del X, Y
            print(f"  FastChat recipe: fit {peer_fit:.1f} s; {args.peer_resamples} resamples timed, {per:.1f} s each; "
                  f"1,000 extrapolated: {peer_fit + per * args.resamples:,.0f} s; fits differ by at most "
                  f"{gap:.2f} Elo (its C = 1 penalty), β by {beta_gap:.4f}")
            theirs_total = peer_fit + per * args.resamples
        else:
            theirs_total = (peer_per_row[0] + peer_per_row[1] * args.resamples) * rows
            print(f"  FastChat recipe (extrapolated from {args.rows:,} rows, linear in rows): {theirs_total:,.0f} s")
        print(f"  ratio FastChat / humeval: {theirs_total / ours:,.0f}x")


if __name__ == "__main__":
    main()
