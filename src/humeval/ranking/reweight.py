"""Weighting policies for unevenly sampled comparisons, and the "provisional" flag.

Arenas do not sample pairs uniformly: new or favoured models battle more, and a pair that is
shown a thousand times outweighs one shown fifty times in the fit (the "Leaderboard Illusion"
critique, Singh et al. 2025). Two corrections set ``Comparisons.weight``:

- ``pairs`` (arena-rank's): each comparison of the unordered pair {a, b} weighs
  1 / max(n_ab, floor), n_ab the pair's (weighted) count, so every pair with at least ``floor``
  comparisons counts the same in total and rarer pairs are not inflated beyond 1/floor each
  (default floor 50, arena-rank's);
- ``propensity`` (inverse probability weighting, Horvitz & Thompson 1952): a comparison that was
  sampled with probability π weighs 1/π, so the weighted sample stands for the population of
  comparisons the sampler chose from.

Both are rescaled so the weights sum to the number of comparisons they replace (Σ new = Σ old):
the likelihood keeps its size against the prior, and the fit does not change because of the
scale alone. The weights are fractional, so the bootstrap resamples comparisons as units, each
adding its weight (``bradley_terry.resample_counts``), and the analytic covariances weigh each
comparison's score by its weight.

``provisional`` flags systems with fewer than a threshold of comparisons (counted before any
reweighting: judgments, not weight), as LMArena marks preliminary scores. ``sibling_flags``
flags systems of a variant family (several versions of one model: gpt-4-0314 and gpt-4-0613)
with at least a threshold of variants on the board: a provider that tests many private variants
and keeps the best publishes a score selected for luck (the winner's curse of the "Leaderboard
Illusion", Singh et al. 2025: the maximum of k noisy estimates of equal abilities exceeds the
truth by about σ √(2 ln k)). ``variant_families`` gives each system its family, from a mapping or
guessed from the name (trailing dates, build numbers, ``v2``, ``preview``/``exp``/``latest``).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons

POLICIES = ("pairs", "propensity")
PAIR_FLOOR = 50.0  # arena-rank's floor


def with_weight(comparisons: Comparisons, weight: np.ndarray) -> Comparisons:
    """The same comparisons with new weights (every column, label and attribute kept)."""
    return comparisons.with_columns(weight=np.asarray(weight, dtype=float))


def _rescaled(comparisons: Comparisons, weight: np.ndarray) -> Comparisons:
    total = comparisons.weight.sum()
    return with_weight(comparisons, weight * (total / weight.sum()) if weight.sum() > 0 else weight)


def reweight_pairs(comparisons: Comparisons, floor: float = PAIR_FLOOR) -> Comparisons:
    """Weights w / max(n_ab, floor) per unordered pair {a, b}, rescaled to the old total (module doc)."""
    if not floor > 0:
        raise ValueError(f"the floor is a positive count, not {floor!r}")
    c = comparisons
    lo, hi = np.minimum(c.a, c.b).astype(np.int64), np.maximum(c.a, c.b).astype(np.int64)
    key = lo * max(len(c.systems), 1) + hi
    _, pair, = np.unique(key, return_inverse=True)
    count = np.bincount(pair, weights=c.weight)
    return _rescaled(c, c.weight / np.maximum(count[pair], floor))


def inverse_propensity(comparisons: Comparisons, probability) -> Comparisons:
    """Weights w / π per comparison (π its sampling probability, 0 < π ≤ 1), rescaled to the old total."""
    p = np.asarray(probability, dtype=float)
    if p.shape != (len(comparisons),):
        raise ValueError(f"{p.shape[0] if p.ndim else 0} probabilities for {len(comparisons)} comparisons")
    bad = ~((p > 0) & (p <= 1))
    if bad.any():
        first = int(np.nonzero(bad)[0][0])
        n = int(bad.sum())
        raise ValueError(f"{n:,} sampling probabilit{'y is' if n == 1 else 'ies are'} not in (0, 1] (the first, "
                         f"{p[first]:g}, at comparison {first + 1})")
    return _rescaled(comparisons, comparisons.weight / p)


def parse_policy(text: str) -> tuple[str, float | None]:
    """``"pairs"``, ``"pairs:FLOOR"`` or ``"propensity"`` → (policy, floor)."""
    name, _, floor = str(text).partition(":")
    name = name.strip().lower()
    if name not in POLICIES:
        raise ValueError(f"{text!r}: the policies are pairs[:FLOOR] and propensity")
    if name == "propensity":
        if floor:
            raise ValueError("propensity takes no floor")
        return name, None
    try:
        value = float(floor) if floor else PAIR_FLOOR
    except ValueError:
        raise ValueError(f"{text!r}: the floor is a number, e.g. pairs:50") from None
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{text!r}: the floor is a positive number, e.g. pairs:50")
    return name, value


def reweight(comparisons: Comparisons, policy: str) -> Comparisons:
    """Apply ``policy`` (``parse_policy``): with ``propensity`` the comparisons' current weights
    are the sampling probabilities (a file's --weight column) and become 1/π."""
    name, floor = parse_policy(policy)
    if name == "pairs":
        return reweight_pairs(comparisons, floor)
    ones = with_weight(comparisons, np.ones(len(comparisons)))
    return inverse_propensity(ones, comparisons.weight)


def provisional(comparisons: Comparisons, threshold: float) -> pd.Series:
    """Per system: True when it appears in fewer than ``threshold`` comparisons (rows, each
    counted once whatever its weight unless the weights are whole-number counts)."""
    c = comparisons
    counts = c.weight if np.all(c.weight == np.round(c.weight)) else np.ones(len(c))
    seen = np.bincount(c.a, weights=counts, minlength=len(c.systems)) + np.bincount(c.b, weights=counts,
                                                                                  minlength=len(c.systems))
    return pd.Series(seen < threshold, index=pd.Index(c.systems, name="system"), name="provisional")


# a trailing version part of a model name: a date or build number of 3+ digits (0314, 20240620,
# 2024-05-13, .2838), v2 / v1.5, or a release tag; sizes (70b) and generations (gpt-4) are kept
_VERSION = re.compile(r"[-_@:.](?:\d{4}-\d{2}(?:-\d{2})?|\d{3,8}|v\d+(?:\.\d+)*|preview|latest|exp|experimental|"
                      r"beta|alpha|snapshot)$", re.IGNORECASE)


def family_of(name: str) -> str:
    """The variant family a system name belongs to: the name without its trailing version parts
    (``gemini-1.5-pro-exp-0827`` → ``gemini-1.5-pro``; ``claude-3-5-sonnet-20240620`` →
    ``claude-3-5-sonnet``; ``llama-3-70b`` stays)."""
    family = str(name)
    while (shorter := _VERSION.sub("", family)) != family and shorter:
        family = shorter
    return family


def variant_families(systems, mapping: dict | None = None) -> pd.Series:
    """Per system its variant family: ``mapping[system]`` where given (a system it does not name
    is its own family), else guessed by ``family_of``."""
    systems = list(systems)
    family = [str(mapping.get(s, s)) if mapping is not None else family_of(s) for s in systems]
    return pd.Series(family, index=pd.Index(systems, name="system"), name="family")


def sibling_flags(families: pd.Series, siblings: int) -> pd.Series:
    """Per system: True when its family has at least ``siblings`` variants among ``families``
    (the systems on the board)."""
    if siblings < 2:
        raise ValueError(f"siblings counts variants of one family, at least 2, not {siblings!r}")
    size = families.map(families.value_counts())
    return (size >= siblings).rename("siblings")


def provisional_flags(comparisons: Comparisons, below: int | None = None, siblings: int | None = None,
                      mapping: dict | None = None) -> pd.DataFrame | None:
    """Per system why it is provisional (``provisional``: "few comparisons" below ``below``;
    ``sibling_flags``: "siblings" in a family of ``siblings`` or more variants, from ``mapping`` or
    guessed by ``family_of``) and, with ``siblings``, its family as "name (variants)"; None without
    either rule. ``rank --provisional/--siblings`` and the report show these columns."""
    if not below and not siblings:
        return None
    table = pd.DataFrame(index=pd.Index(comparisons.systems, name="system"))
    reasons = [pd.Series("", index=table.index)]
    if below:
        reasons.append(provisional(comparisons, below).map({True: "few comparisons", False: ""}))
    if siblings:
        families = variant_families(comparisons.systems, mapping)
        size = families.map(families.value_counts())
        reasons.append(sibling_flags(families, siblings).map({True: "siblings", False: ""}))
        table["family"] = families + " (" + size.astype(str) + ")"
    text = pd.concat(reasons, axis=1).apply(lambda row: ", ".join(r for r in row if r), axis=1)
    table.insert(0, "provisional", text)
    return table


def provisional_note(below: int | None = None, siblings: int | None = None, mapping: dict | None = None) -> str:
    """What the provisional column means under these rules (``provisional_flags``)."""
    parts = [f"fewer than {below:,} comparisons (few comparisons)"] if below else []
    if siblings:
        parts.append(f"a variant family with {siblings} or more variants on the board (siblings; family: name "
                     f"(variants), {'from --families' if mapping is not None else 'guessed from the names'})")
    return "provisional: " + "; ".join(parts)
