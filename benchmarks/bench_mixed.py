"""The linear mixed model of ratings (``humeval.ratings.fit_mixed``) at scale, against statsmodels.

humeval fits system means + random annotator bias + random segment ease by REML on 1,000,000
ratings (30 systems, 1,000 annotators, 20,000 segments; the data of ``bench_ratings.py``). statsmodels'
``MixedLM`` (crossed random effects as variance components of one group, the way its docs fit
crossed designs) cannot take that size, so both are timed on ``--small`` ratings (default 3,000:
10 systems, 40 annotators, 150 segments) and the ratio printed is on that size; the script checks
the estimates agree there. Peak RSS is the process's ``ru_maxrss``; the 1M fit runs in a child
process so its peak is its own.

    python benchmarks/bench_mixed.py [--ratings 1000000] [--small 3000] [--skip-large]
"""

from __future__ import annotations

import argparse
import inspect
import multiprocessing as mp
import resource
import time

import numpy as np
import pandas as pd

from humeval.ratings import fit_mixed
from humeval.simulate import simulate_ratings

# simulate_ratings' defaults for the spreads the mixed model estimates
TRUTH = {name: inspect.signature(simulate_ratings).parameters[name].default
         for name in ("sigma", "sigma_bias", "sigma_segment")}


def simulate(n, n_systems, n_judges, n_segments, seed=0):
    """humeval's ratings simulator (system effects, annotator bias and scale, segment difficulty,
    0–100 slider) as code arrays: system, item, judge, score."""
    r = simulate_ratings(n_systems=n_systems, n_items=n_segments, n_judges=n_judges, n_ratings=n,
                         random_state=seed).ratings
    return r.system, r.item, r.judge, r.score


def large(n, queue):
    system, item, judge, score = simulate(n, 30, 1000, 20000)
    fit_mixed(score[:2000], system[:2000], item[:2000], judge[:2000])  # compile / load the kernels first
    t0 = time.perf_counter()
    fit = fit_mixed(score, system, item, judge)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put((seconds, peak, fit.sigma2, fit.var_judge, fit.var_segment))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ratings", type=int, default=1_000_000)
    ap.add_argument("--small", type=int, default=3000)
    ap.add_argument("--skip-large", action="store_true")
    args = ap.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()} (the large fit runs in a forked child with the same pools)")

    if not args.skip_large:
        queue = mp.get_context("fork").Queue()
        proc = mp.get_context("fork").Process(target=large, args=(args.ratings, queue))
        proc.start()
        seconds, peak, s2, vj, vs = queue.get()
        proc.join()
        print(f"humeval fit_mixed, {args.ratings:,} ratings (30 systems, 1,000 annotators, 20,000 segments): "
              f"{seconds:.1f} s, peak RSS {peak:,.0f} MiB; σ {np.sqrt(s2):.2f} (simulated {TRUTH['sigma']:g}, before "
              f"clipping to 0-100 and annotator scale), annotator s.d. {np.sqrt(vj):.2f} ({TRUTH['sigma_bias']:g}), "
              f"segment s.d. {np.sqrt(vs):.2f} ({TRUTH['sigma_segment']:g})")

    import statsmodels.formula.api as smf
    system, item, judge, score = simulate(args.small, 10, 40, 150, seed=1)
    fit_mixed(score[:200], system[:200], item[:200], judge[:200])  # load the compiled kernels first
    t0 = time.perf_counter()
    ours = fit_mixed(score, system, item, judge)
    t_ours = time.perf_counter() - t0
    df = pd.DataFrame({"score": score, "system": system, "item": item, "judge": judge, "group": 1})
    t0 = time.perf_counter()
    model = smf.mixedlm("score ~ 0 + C(system)", df, groups="group",
                        vc_formula={"judge": "0 + C(judge)", "item": "0 + C(item)"})
    ref = model.fit(reml=True)
    t_ref = time.perf_counter() - t0
    gap = np.max(np.abs(ours.system_means - ref.fe_params.to_numpy()))
    print(f"{args.small:,} ratings (10 systems, 40 annotators, 150 segments): humeval {t_ours:.3f} s, "
          f"statsmodels MixedLM {t_ref:.1f} s, ratio {t_ref / t_ours:,.0f}x; largest difference in system "
          f"means {gap:.1e} (REML log-likelihood {ours.loglik:.4f} vs {ref.llf:.4f})")


if __name__ == "__main__":
    main()
