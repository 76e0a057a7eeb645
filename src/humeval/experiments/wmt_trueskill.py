"""WMT15 and WMT16's TrueSkill rankings exactly as the organisers' scripts computed them.

``wmt_trueskill(comparisons, year=2016)`` runs the official procedure end to end: 1,000 runs of
Sakaguchi, Post & Van Durme's (2014) active-sampling TrueSkill, then the rank ranges and
clusters of their ``cluster.py -by-rank``. What each step does, and where it was read (public
repositories: the scripts the WMT15/16 READMEs tell to run):

- **What a run replays.** WMT15 (``mjpost/wmt15``, ``scripts/run-1000.sh``:
  ``cat data/wmt15.$lang.csv | ./wmt-trueskill/src/infer_TS.py -n 2 -d 0 -s 2``): every run
  reads *all* the comparisons; the runs differ only by active sampling's random choices.
  WMT16 (``cfedermann/wmt16``, ``scripts/run-1000.sh``: ``cat $file |
  $basedir/scripts/sample-with-replacement | …/infer_TS.py -n 2 -d 0 -s 2``): every run reads N
  lines drawn with replacement from the file's N pairwise lines (``sample-with-replacement``:
  ``[random.choice(inlines) for i in range(len(inlines))]``), i.e. a bootstrap of comparisons.
- **One run** (``keisks/wmt-trueskill``, ``src/infer_TS.py``, ``estimate_by_number``): with
  ``-d 0``, ``data_points = num_rankings / len(combinations([0, 0], 2)) + 1``: N + 1 active
  matches for N comparisons, β = σ · (N + 1) / 40 with σ = 0.5, μ = 0, τ = 0, draw probability
  0.25. Each match (``src/scripts/next_comparison.py``, ``get``): the system with the largest σ
  — the list of (σ², name) sorted in reverse, so on equal σ the largest name (at the start all
  are equal) — against an opponent drawn with probability ∝ 1/exp(|μ_s − μ_t|), then
  ``random.choice`` of the observed judgments of that pair (either order), a draw when the ranks
  are equal.
- **Ranks and clusters** (``keisks/wmt-trueskill``, ``eval/cluster.py``; the WMT15/16 READMEs
  run it with ``-by-rank``): in every run a system's rank is its position in the list of
  (μ, σ², name) sorted in reverse (``rank_by_mu``); per system the ranks of all runs are sorted,
  α = ``int(math.ceil((n - n * 1.0 * conf) / 2.0))`` are dropped at each end (``[alpha:-alpha]``,
  conf = 0.95: 25 of 1,000) and the range is the first and last kept; the systems are listed by
  their mean μ over the runs (``sort_by_mu`` on (mean, ``np.std``, name), reversed), and a cluster
  boundary falls after system i when its worst rank is better than the best rank of every
  system below it (``check_boundary``: no ``worst_rank >= h``). The number the scripts print
  beside each system is that mean μ.

humeval's own ``bootstrap(TrueSkill(order="active"), …)`` (``rank -m trueskill --order active
--bootstrap 1000``) resamples for every year and plays N matches: for WMT15 its ranges are
therefore wider than the official ones (a bootstrap's spread on top of active sampling's),
which is why this procedure is its own function.

The comparisons are those of the per-pair CSV files the runs read, in which systems that shared
one displayed output are tied: read WMT15/16 files with ``keep_shared_outputs=True`` (``rank
--wmt-trueskill`` does). The READMEs' clustering command (``cluster.py -by-rank
results/$lang/ts/*/*.json``) hands the first run's file to the ``langpair`` argument, so if it
was run literally 999 runs were clustered; α is 25 for 999 runs as for 1,000, so that changes
the ranks of one run only, and it is not imitated.

Not reproduced bit for bit: Python 2's Mersenne Twister and ``random.choice`` (humeval draws
from its own counter-based generator, so the official partitions are reproduced in
distribution: at a boundary the official file is one draw of 1,000 runs, and so is ours); the
opponent is drawn among the systems with a judgment against the chosen one (the script draws
among all and fails with an ``IndexError`` on a pair without judgments).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons
from humeval.experiments.bootstrap import rank_clusters
from humeval.ranking.base import check_comparisons

RESAMPLES = {2015: False, 2016: True}  # does each run read a resample of the comparisons? (run-1000.sh)
SIGMA, DRAW_PROBABILITY = 0.5, 0.25  # infer_TS.py: param_sigma, draw_rate (mu 0, tau 0)


@dataclass
class WMTTrueSkillResult:
    """The runs of ``wmt_trueskill``: μ and σ of every system in every run (runs × systems, NaN
    where a resample left a system out), the matches each run played and the year's rule."""

    systems: tuple[str, ...]
    mu: np.ndarray
    sigma: np.ndarray
    year: int
    matches: np.ndarray
    confidence: float = 0.95

    @property
    def n(self) -> int:
        return len(self.mu)

    def rank_samples(self) -> np.ndarray:
        """Every system's rank in every run as ``cluster.py``'s ``rank_by_mu`` gives it: its
        position (1 = best) in the run's (μ, σ², name) sorted in reverse; NaN where absent."""
        names = np.argsort(np.argsort(np.array(self.systems, dtype=object)))  # position of each name
        ranks = np.full(self.mu.shape, np.nan)
        for r in range(self.n):
            present = np.flatnonzero(~np.isnan(self.mu[r]))
            # lexsort sorts by the last key first, ascending: negate for the reverse sort
            order = present[np.lexsort((-names[present], -self.sigma[r, present] ** 2, -self.mu[r, present]))]
            ranks[r, order] = np.arange(1, len(order) + 1)
        return ranks

    def table(self) -> pd.DataFrame:
        """Per system, in ``cluster.py``'s order: ``score`` (the mean μ over the runs, the number
        the scripts print and sort by), ``std`` (``np.std`` of μ), ``rank_lo``/``rank_hi`` (the
        trimmed rank range), ``cluster`` (1 = top), ``runs`` (runs that ranked it)."""
        ranks = self.rank_samples()
        rows = []
        for i, name in enumerate(self.systems):
            present = ~np.isnan(self.mu[:, i])
            if not present.any():
                continue
            mu = self.mu[present, i]
            lo, hi = wmt_rank_range(ranks[present, i], self.confidence)
            rows.append((float(np.mean(mu)), float(np.std(mu)), name, lo, hi, int(present.sum())))
        rows.sort(reverse=True)  # sort_by_mu: (mean, std, name), reversed
        table = pd.DataFrame([(name, mean, std, lo, hi, runs) for mean, std, name, lo, hi, runs in rows],
                             columns=["system", "score", "std", "rank_lo", "rank_hi", "runs"]).set_index("system")
        table["cluster"] = rank_clusters(table["rank_lo"].to_numpy(), table["rank_hi"].to_numpy())
        return table

    def note(self) -> str:
        what = ("each on a resample of the comparisons (WMT16: sample-with-replacement)" if RESAMPLES[self.year]
                else "each on all the comparisons (WMT15: no resample; runs differ by active sampling only)")
        alpha = wmt_alpha(self.n, self.confidence)
        return (f"WMT{self.year % 100}'s TrueSkill procedure: {self.n} active-sampling runs {what}, "
                f"N + 1 = {int(self.matches.max()):,} matches each (β = 0.5 · matches / 40); "
                "score = mean μ over the "
                f"runs (what the rows are sorted by); rank = cluster.py -by-rank's range ({alpha} of {self.n} sorted "
                "ranks dropped at each end); clusters by its check_boundary")


def wmt_alpha(n: int, confidence: float) -> int:
    """How many ranks ``cluster.py`` drops at each end of n sorted ranks:
    ``int(math.ceil((n - n * 1.0 * conf) / 2.0))``, floating point as the script computes it."""
    return int(math.ceil((n - (n * 1.0 * confidence)) / 2.0))  # cluster.py, the line computing alpha


def wmt_rank_range(ranks: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """``cluster.py``'s rank range: sort, keep ``[alpha:-alpha]``, report the first and last kept
    (with α = 0 the script's ``[0:-0]`` is empty and it fails; here all are kept)."""
    r = np.sort(np.asarray(ranks, dtype=float))
    alpha = wmt_alpha(len(r), confidence)
    kept = r[alpha:len(r) - alpha] if alpha else r
    if not len(kept):
        raise ValueError(f"{len(r)} runs are too few for a {confidence:.0%} rank range")
    return float(kept[0]), float(kept[-1])


def wmt_trueskill(comparisons: Comparisons, year: int = 2016, n: int = 1000, confidence: float = 0.95,
                  random_state=None, jobs: int = 1, progress=None) -> WMTTrueSkillResult:
    """Run WMT15's (``year=2015``) or WMT16's (``year=2016``) TrueSkill procedure on one track's
    pairwise ``comparisons``: ``n`` active-sampling runs as ``run-1000.sh`` made them (see the
    module). Run r draws from its own seed (``random_state`` seeds them all), in compiled code,
    ``jobs`` threads (0 = all cores); the numbers do not depend on ``jobs``."""
    from humeval.ranking import _trueskill_kernel as kernel
    from humeval.ranking.trueskill import _play_seed, compiled_threads, draw_margin, in_blocks
    if year not in RESAMPLES:
        raise ValueError(f"year must be one of {sorted(RESAMPLES)} (the TrueSkill scripts read), not {year!r}")
    comparisons = check_comparisons(comparisons)
    if comparisons.weighted:
        raise ValueError("the WMT scripts replay single judgments: weighted comparisons (counts) are not what "
                         "they read")
    systems = tuple(comparisons.systems)
    size = len(comparisons)
    rng = np.random.default_rng(random_state)
    seeds = rng.integers(1, 2 ** 63, n, dtype=np.int64)
    play_seeds = np.array([_play_seed(np.random.default_rng(int(seed))) for seed in seeds], dtype=np.int64)
    a, b, outcome = (x.astype(np.int64) for x in (comparisons.a, comparisons.b, comparisons.outcome))
    unit_start, unit_order = np.arange(size + 1, dtype=np.int64), np.arange(size, dtype=np.int64)
    # next_comparison.get sorts (σ², name) in reverse: on equal σ the largest name plays first
    priority = np.argsort(np.argsort(np.array(systems, dtype=object))).astype(np.int64)
    resample = RESAMPLES[year]
    sigma = np.empty((n, len(systems)))

    def play(run):
        mu_run, sigma_run = kernel.bootstrap_active_play(
            len(systems), 0.0, SIGMA, a, b, outcome, unit_start, unit_order, size, seeds[run], play_seeds[run],
            -1, np.nan, draw_margin(DRAW_PROBABILITY, 1.0), 0.0, 1, resample, priority)  # N + 1 matches
        sigma[run] = sigma_run
        return mu_run

    with compiled_threads(jobs):
        mu = in_blocks(play, n, len(systems), progress)
    return WMTTrueSkillResult(systems, mu, sigma, year, np.full(n, size + 1), confidence)
