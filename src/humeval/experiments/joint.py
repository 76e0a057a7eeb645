"""Does fitting two protocols together help? Held-out log-likelihood per protocol (``ranking.joint``).

A share ``test_size`` of the comparisons and of the ratings is held out (drawn independently);
the joint model is fitted on the rest of both, and each protocol alone on its own rest: the
comparisons alone by the same model without ratings (Davidson with the same prior), the ratings
alone by the same model without comparisons (per-protocol Gaussian around a shrunk system
mean). Each protocol's held-out judgments are scored by the mean log-likelihood per judgment:
log P(outcome) of a comparison, log N(y; offset + slope θ, noise²) of a rating (in the file's
units). A positive ``gain`` says the other protocol's data improved this protocol's predictions;
a negative one says the two protocols disagree about the systems (or measure different things)
and the joint scale should not be used.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons, Ratings
from humeval.ranking.joint import JointModel, protocol_names, system_ratings


def _split(n: int, test_size: float, rng) -> tuple[np.ndarray, np.ndarray]:
    test = rng.random(n) < test_size
    if n >= 2 and (test.all() or not test.any()):
        test[:] = False
        test[rng.integers(n)] = True
    return np.nonzero(~test)[0], np.nonzero(test)[0]


def comparison_loglik(model, comparisons: Comparisons) -> np.ndarray:
    """log P(observed outcome) per comparison under a fitted preference model."""
    p = model.predict_proba(_names(comparisons, "a"), _names(comparisons, "b"))
    return np.log(p[np.arange(len(comparisons)), comparisons.outcome])


def _names(comparisons, side):
    return [comparisons.systems[i] for i in getattr(comparisons, side)]


def heldout_by_protocol(comparisons: Comparisons, ratings: Ratings, test_size: float = 0.2, l2: float = 1.0,
                        random_state=None) -> pd.DataFrame:
    """Per protocol ("comparisons" and each ratings criterion): held-out judgments, mean
    log-likelihood per judgment under the joint fit and under that protocol alone, the gain
    (joint − alone) and its standard error ``gain se`` = sd(d_i)/√n over the held-out judgments'
    paired differences d_i = log p_joint(i) − log p_alone(i) (NaN with fewer than two). Systems of
    a held-out judgment that its training part never saw are left out of the score and counted
    (``unseen``)."""
    if not 0 < test_size < 1:
        raise ValueError(f"test_size is a share in (0, 1), not {test_size!r}")
    rng = np.random.default_rng(random_state)
    ratings, _ = system_ratings(ratings)
    c_train, c_test = _split(len(comparisons), test_size, rng)
    r_train, r_test = _split(len(ratings), test_size, rng)
    train_c, test_c = comparisons.take(c_train), comparisons.take(c_test)
    train_r, test_r = ratings.take(r_train), ratings.take(r_test)
    joint = JointModel(l2=l2).fit(train_c, train_r)
    pairs_alone = JointModel(l2=l2).fit(train_c)
    ratings_alone = JointModel(l2=l2).fit(_no_comparisons(train_c), train_r)
    rows = []
    seen_c = set(train_c.systems[i] for i in np.unique(np.concatenate([train_c.a, train_c.b])))
    keep = np.array([test_c.systems[a] in seen_c and test_c.systems[b] in seen_c for a, b in zip(test_c.a, test_c.b)],
                    dtype=bool)
    kept = test_c.take(np.nonzero(keep)[0])
    rows.append(("comparisons", len(kept), int((~keep).sum()), *_paired(comparison_loglik(joint, kept),
                                                                        comparison_loglik(pairs_alone, kept))))
    together, alone = joint.rating_loglik(test_r), ratings_alone.rating_loglik(test_r)
    seen_r = set(train_r.systems[i] for i in np.unique(train_r.system))
    ok = np.array([test_r.systems[s] in seen_r for s in test_r.system], dtype=bool)
    names = protocol_names(test_r).astype(str)
    for protocol in joint.protocols_:
        mine = (names == protocol)
        use = mine & ok & np.isfinite(together) & np.isfinite(alone)
        rows.append((protocol, int(use.sum()), int((mine & ~use).sum()), *_paired(together[use], alone[use])))
    return pd.DataFrame(rows, columns=["protocol", "heldout", "unseen", "joint", "alone", "gain", "gain se"]
                        ).set_index("protocol")


def _paired(joint: np.ndarray, alone: np.ndarray) -> tuple[float, float, float, float]:
    """(mean joint, mean alone, mean difference, its standard error sd/√n; NaN where too few)."""
    if len(joint) == 0:
        return np.nan, np.nan, np.nan, np.nan
    diff = joint - alone
    se = float(np.std(diff, ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else np.nan
    return float(joint.mean()), float(alone.mean()), float(diff.mean()), se


def _no_comparisons(comparisons: Comparisons) -> Comparisons:
    """An empty comparisons table with the same systems (a ratings-only fit)."""
    return comparisons.take(np.zeros(0, dtype=np.int64))


HELDOUT_SHARE = 0.2  # the judgments held out per protocol by ``rank --joint`` and the report


def pair_tracks(comparisons: Comparisons, ratings: Ratings) -> dict:
    """Track → the ratings of that track, for each track of ``comparisons``; one track on each
    side pairs whatever the names. Raises ValueError naming tracks without ratings."""
    mine, theirs = comparisons.by_track(), ratings.by_track()
    if len(mine) == 1 and len(theirs) == 1:  # one campaign each: pair them whatever their track names
        return {next(iter(mine)): next(iter(theirs.values()))}
    missing = [t for t in mine if t not in theirs]
    if missing:
        raise ValueError(f"no ratings for the track(s) {', '.join(missing)} (the ratings' tracks: {', '.join(theirs)})")
    return {t: theirs[t] for t in mine}

