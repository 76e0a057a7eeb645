"""Simulated absolute ratings (DA sliders or Likert scales) with known truth.

Every rating r is one annotator j scoring system s's output for segment i. The latent quality
of that output is

    q_r = β_s + u_i,          β_s ~ N(0, σ_sys²) (system effect), u_i ~ N(0, σ_seg²) (segment ease)

- **Slider** (``levels=None``, e.g. DA 0–100): an honest annotator gives
  x_r = clip(μ + b_j + a_j (q_r + ε_r), lo, hi), ε_r ~ N(0, σ²), with bias b_j ~ N(0, σ_bias²)
  and scale a_j = exp(N(0, σ_logscale²)) (a harsh or lenient, narrow or wide slider user).
  With ``σ_logscale = 0`` and no clipping this is exactly the linear mixed model of
  ``humeval.ratings.mixed``.
- **Likert** (``levels=K``): y_r = 1 + #{k : θ_k + t_j < q_r + ε_r}, ε_r logistic, thresholds θ
  spread evenly over ±``spread`` and annotator shifts t_j ~ N(0, σ_bias²) (a positive shift =
  a harsher annotator): the cumulative-logit model of ``humeval.ratings.ordinal``,
  P(y ≤ k) = logistic(θ_k + t_j − q_r).

Quality controls, as in WMT's DA campaigns (Graham et al. 2013, 2017), in ``Ratings.kind``:

- ``BAD_REF``: a share ``bad_ref`` of the rows show a degraded copy of a system output, whose
  latent quality is lowered by ``bad_ref_drop`` (in latent units); honest annotators score it
  lower, random ones do not.
- ``REPEAT``: a share ``repeat`` of the rows show again an output the same annotator already
  scored as ``SYSTEM`` (same segment and system), scored afresh (new noise).

A share ``random_judges`` of the annotators ignore the output and click uniformly over the
scale (or the K levels). Design: each rating draws its annotator, segment and system uniformly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humeval.data.tables import Ratings

KINDS = ("BAD_REF", "REF", "REPEAT", "SYSTEM")  # sorted, as the readers' encode() orders them
SYSTEM, BAD_REF, REPEAT = KINDS.index("SYSTEM"), KINDS.index("BAD_REF"), KINDS.index("REPEAT")


@dataclass
class RatingsTruth:
    """What the simulation drew (indexed by the labels of ``Ratings``)."""

    effects: pd.Series  # system -> β_s (latent units)
    bias: pd.Series  # judge -> b_j (score units) or Likert shift t_j (logits)
    scale: pd.Series  # judge -> a_j (1 for Likert)
    ease: pd.Series  # segment -> u_i
    mean: float  # μ (slider) or 0 (Likert)
    sigma: float  # σ of ε (slider) or the logistic's scale 1 (Likert)
    thresholds: np.ndarray  # θ_1 < … < θ_{K−1} (Likert), empty for sliders
    random_judges: tuple[str, ...]
    bad_ref_drop: float

    def expected(self, system, item, judge) -> np.ndarray:
        """E[score] of honest annotator ``judge`` on (system, item) codes, before clipping (slider)."""
        b, a = self.bias.to_numpy()[judge], self.scale.to_numpy()[judge]
        return self.mean + b + a * (self.effects.to_numpy()[system] + self.ease.to_numpy()[item])


@dataclass
class RatingsSimulation:
    ratings: Ratings
    truth: RatingsTruth


def simulate_ratings(n_systems: int = 10, n_items: int = 200, n_judges: int = 30, n_ratings: int = 6000,
                     levels: int | None = None, mean: float = 60.0, sigma_system: float = 8.0,
                     sigma_segment: float = 8.0, sigma: float = 12.0, sigma_bias: float = 8.0,
                     sigma_logscale: float = 0.2, low: float = 0.0, high: float = 100.0,
                     spread: float = 2.0, bad_ref: float = 0.0, bad_ref_drop: float | None = None,
                     repeat: float = 0.0, random_judges: float = 0.0, track: str = "simulated",
                     random_state=None) -> RatingsSimulation:
    """Simulate ``n_ratings`` rows (controls included); see the module docstring.

    For Likert (``levels`` = K ≥ 2) the latent sigmas are in logits: pass e.g. ``sigma_system=1,
    sigma_segment=0.5, sigma_bias=0.5``; ``mean``, ``sigma``, ``sigma_logscale``, ``low``, ``high``
    are not used. ``bad_ref_drop`` defaults to 3 σ (slider) or 3 logits (Likert).
    """
    if n_systems < 1 or n_items < 1 or n_judges < 1 or n_ratings < 1:
        raise ValueError("need at least one system, segment, annotator and rating")
    for name, share in (("bad_ref", bad_ref), ("repeat", repeat), ("random_judges", random_judges)):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"{name} is a share between 0 and 1, not {share}")
    if bad_ref + repeat >= 1.0:
        raise ValueError("bad_ref + repeat must leave some SYSTEM rows (sum < 1)")
    if levels is not None and levels < 2:
        raise ValueError("a Likert scale needs at least 2 levels")
    rng = np.random.default_rng(random_state)
    likert = levels is not None
    systems = tuple(f"sys{i + 1:02d}" for i in range(n_systems))
    items = tuple(f"seg{i + 1:04d}" for i in range(n_items))
    judges = tuple(f"judge{i + 1:03d}" for i in range(n_judges))
    beta = rng.normal(0.0, sigma_system, n_systems)
    ease = rng.normal(0.0, sigma_segment, n_items)
    bias = rng.normal(0.0, sigma_bias, n_judges)
    scale = np.ones(n_judges) if likert else np.exp(rng.normal(0.0, sigma_logscale, n_judges))
    is_random = np.zeros(n_judges, dtype=bool)
    is_random[rng.choice(n_judges, int(round(random_judges * n_judges)), replace=False)] = True
    drop = bad_ref_drop if bad_ref_drop is not None else (3.0 if likert else 3.0 * sigma)

    kind = rng.choice([SYSTEM, BAD_REF, REPEAT], size=n_ratings, p=[1 - bad_ref - repeat, bad_ref, repeat])
    kind[0] = SYSTEM
    judge = rng.integers(0, n_judges, n_ratings)
    item = rng.integers(0, n_items, n_ratings)
    system = rng.integers(0, n_systems, n_ratings)
    _repeat_earlier(kind, judge, item, system, rng)
    latent = beta[system] + ease[item] - np.where(kind == BAD_REF, drop, 0.0)
    if likert:
        thresholds = np.linspace(-spread, spread, levels - 1)
        noisy = latent + rng.logistic(0.0, 1.0, n_ratings)
        score = 1 + ((thresholds[None, :] + bias[judge][:, None]) < noisy[:, None]).sum(axis=1)
        score = np.where(is_random[judge], rng.integers(1, levels + 1, n_ratings), score).astype(np.float64)
        scale_text, mu, noise_sd = f"1-{levels}", 0.0, 1.0
    else:
        thresholds = np.empty(0)
        noisy = mean + bias[judge] + scale[judge] * (latent + rng.normal(0.0, sigma, n_ratings))
        score = np.clip(noisy, low, high)
        if is_random.any():
            if not (np.isfinite(low) and np.isfinite(high)):
                raise ValueError("random judges click uniformly over the scale: give finite low and high")
            score = np.where(is_random[judge], rng.uniform(low, high, n_ratings), score)
        finite = np.isfinite(low) and np.isfinite(high)
        scale_text, mu, noise_sd = f"{low:g}-{high:g}" if finite else "", mean, sigma
    ratings = Ratings(item=item.astype(np.int32), system=system.astype(np.int32), judge=judge.astype(np.int32),
                      track=np.zeros(n_ratings, np.int32), criterion=np.zeros(n_ratings, np.int32),
                      kind=kind.astype(np.int8), score=score, systems=systems, items=items, judges=judges,
                      tracks=(track,), criteria=("Likert" if likert else "DA",), kinds=KINDS, scale=scale_text)
    truth = RatingsTruth(effects=pd.Series(beta, index=pd.Index(systems, name="system"), name="effect"),
                         bias=pd.Series(bias, index=pd.Index(judges, name="judge"), name="bias"),
                         scale=pd.Series(scale, index=pd.Index(judges, name="judge"), name="scale"),
                         ease=pd.Series(ease, index=pd.Index(items, name="item"), name="ease"),
                         mean=mu, sigma=noise_sd, thresholds=thresholds,
                         random_judges=tuple(np.array(judges)[is_random]), bad_ref_drop=drop)
    return RatingsSimulation(ratings, truth)


def _repeat_earlier(kind, judge, item, system, rng) -> None:
    """Point each REPEAT row at an earlier SYSTEM row of the same annotator (its segment and system);
    a REPEAT with no earlier SYSTEM row of its annotator becomes a SYSTEM row."""
    order = np.lexsort((np.arange(len(kind)), judge))  # by annotator, then time
    seen: list[int] = []
    current = -1
    for row in order:
        if judge[row] != current:
            current, seen = judge[row], []
        if kind[row] == REPEAT:
            if not seen:
                kind[row] = SYSTEM
            else:
                source = seen[rng.integers(0, len(seen))]
                item[row], system[row] = item[source], system[source]
                continue
        if kind[row] == SYSTEM:
            seen.append(row)
