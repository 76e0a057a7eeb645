import numpy as np

from humeval.data import Comparisons


def comparisons(rows, systems=("A", "B", "C"), items=None):
    """Comparisons from (a, b, outcome) rows of system names (and an optional item per row)."""
    index = {s: i for i, s in enumerate(systems)}
    a = [index[r[0]] for r in rows]
    b = [index[r[1]] for r in rows]
    kw = {}
    if items is not None:
        labels = tuple(sorted(set(items)))
        kw = {"item": [labels.index(x) for x in items], "items": labels}
    return Comparisons(a=a, b=b, outcome=[r[2] for r in rows], systems=systems, **kw)


# A beats B twice, B beats A once (as a), one tie; A beats C; B and C tie twice
HAND = [("A", "B", 1), ("A", "B", 1), ("B", "A", 1), ("A", "B", 0), ("A", "C", 1), ("B", "C", 0), ("C", "B", 0)]


def brute_force_cost(w):
    import itertools
    from humeval.ranking.feedback_arc import order_cost
    return min(order_cost(w, list(p)) for p in itertools.permutations(range(len(w))))


def random_tournament(n, rng):
    rows = []
    names = tuple(f"s{i}" for i in range(n))
    for _ in range(40 * n):
        i, j = rng.choice(n, 2, replace=False)
        rows.append((names[i], names[j], int(rng.integers(0, 3))))
    return comparisons(rows, names)


__all__ = ["HAND", "brute_force_cost", "comparisons", "np", "random_tournament"]


def assert_covariate_bootstrap_is_newton(model, c, unit=None, n=3, seed=11, atol=1e-7):
    """Each of the compiled covariate bootstrap's ``n`` resamples (``_style_kernel``) equals
    Newton's method refitted on the same reweighted rows (``_refit_rows``); returns the samples."""
    from humeval.ranking import _style_kernel
    seeds = np.random.default_rng(seed).integers(0, 2 ** 31 - 1, n)
    samples = model.bootstrap_scores(c, unit, n, np.random.default_rng(seed))
    a, b, counts, X, _, units, n_units = model._row_units(c, unit)
    for i, s in enumerate(seeds):
        times = _style_kernel.unit_counts(n_units, s)[units].astype(float)
        expected = model._refit_rows(a, b, counts * times[:, None], X, (model.theta_, model._phi, model._tie))
        np.testing.assert_allclose(samples[i], expected, atol=atol)
    return samples
