"""METEOR-NEXT alignment throughput and grid-search tuning time.

    python benchmarks/bench_meteor.py [--segments 10000] [--points 100000]

Data: MLQE-PE et-en post-editing (train+dev+test, MT against its post-edit, HTER as the human
score) from ../shared/data when present, else generated sentence pairs. Reports
- alignment: segments/s of ``Meteor.statistics`` (exact, stem, synonym if WordNet is installed);
- grid search: the compiled, axis-sharing kernel over a grid of about ``--points`` points;
- baselines measured in the same run on a few grid points and scaled to the whole grid:
  (a) the naive loop that re-aligns and re-scores every segment at every grid point,
  (b) scoring the stored statistics with numpy point by point (no re-alignment, no kernel).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from humeval.metrics.meteor import Meteor, Params, find_wordnet
from humeval.metrics.tuning import TuningSet, tune
from humeval.errors import InputError

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "mlqe-pe" / "et-en" / "post-editing"


def load(n):
    if DATA.is_dir():
        hyps, refs, human = [], [], []
        for split in ("train", "dev", "test20"):
            hyps += (DATA / f"{split}.mt").read_text(encoding="utf-8").splitlines()
            refs += (DATA / f"{split}.pe").read_text(encoding="utf-8").splitlines()
            human += [float(x) for x in (DATA / f"{split}.hter").read_text().split()]
        return hyps[:n], refs[:n], np.array(human[:n]), "MLQE-PE et-en (mt vs pe, HTER)"
    rng = np.random.default_rng(0)
    vocab = [f"w{k}" for k in range(500)] + ["the", "a", "of", ",", "."] * 20
    refs = [" ".join(rng.choice(vocab, rng.integers(8, 30))) for _ in range(n)]
    hyps = [" ".join(w for w in r.split() if rng.random() > 0.2) for r in refs]
    human = np.array([len(h) / len(r) for h, r in zip(hyps, refs)]) + rng.normal(0, 0.1, n)
    return hyps, refs, -human, "generated pairs"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=10_000)
    parser.add_argument("--points", type=int, default=100_000)
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()}")
    hyps, refs, human, source = load(args.segments)
    try:
        find_wordnet()
        matchers = ("exact", "stem", "synonym")
    except InputError:
        matchers = ("exact", "stem")
    scorer = Meteor(matchers=matchers, tokenize="none")
    print(f"{len(hyps):,} segments of {source}; matchers {', '.join(matchers)}")

    start = time.perf_counter()
    stats = scorer.statistics(hyps, refs)
    align_s = time.perf_counter() - start
    print(f"alignment: {align_s:.1f} s = {len(hyps) / align_s:,.0f} segments/s "
          f"({stats.searches['beam']} of {len(hyps):,} pairs needed the beam fallback)")

    # a grid of about --points points: 11 α × 7 β × 11 γ × 2 δ × w_stem × w_synonym
    side = max(2, int(round((args.points / (11 * 7 * 11 * 2)) ** (1 / (len(matchers) - 1)))))
    w = np.linspace(0, 1, side)
    grid = {"alpha": np.linspace(0, 1, 11), "beta": np.linspace(0, 3, 7), "gamma": np.linspace(0, 1, 11),
            "delta": [0.5, 0.75], "w_stem": w, "w_synonym": w if "synonym" in matchers else [0.0], "w_paraphrase": [0.0]}
    data = TuningSet("bench", stats, human=human, higher_is_better=False)
    tune(data, {k: v[:2] for k, v in grid.items()})  # compile once (cached on disk afterwards)
    start = time.perf_counter()
    result = tune(data, grid)
    grid_s = time.perf_counter() - start
    print(f"grid search: {result.points:,} points × {len(hyps):,} segments in {grid_s:.2f} s "
          f"(best r with −HTER {result.value:.3f} at {result.best})")

    sample = [Params(a, 1.0, 0.5, 0.5, (1.0, 0.5, 0.5, 0.0)) for a in (0.2, 0.5, 0.8)]
    start = time.perf_counter()
    for p in sample:
        data.objective(scorer.score(scorer.statistics(hyps, refs), p).segment)
    naive_per_point = (time.perf_counter() - start) / len(sample)
    start = time.perf_counter()
    for p in sample:
        data.evaluate(p)
    numpy_per_point = (time.perf_counter() - start) / len(sample)
    naive_total, numpy_total = naive_per_point * result.points, numpy_per_point * result.points
    print(f"naive re-align per point: {naive_per_point:.2f} s/point → {naive_total / 3600:,.1f} h for the grid "
          f"= {naive_total / grid_s:,.0f}× the kernel")
    print(f"numpy scoring of stored statistics: {numpy_per_point * 1e3:.1f} ms/point → {numpy_total:,.0f} s "
          f"= {numpy_total / grid_s:,.0f}× the kernel")


if __name__ == "__main__":
    main()
