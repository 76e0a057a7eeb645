"""The Bradley–Terry family, fitted by maximum likelihood on sufficient statistics.

One pass over the data counts, for every ordered pair of systems (a shown first, b second),
the ties, a-wins and b-wins; everything after that costs the same for a thousand comparisons as
for ten million. With x = θ_a − θ_b (+ h, a first-position advantage, when ``position_effect``):

- ``BradleyTerry`` (Bradley & Terry 1952): P(a) = σ(x), ties counted as half a win each;
  ``predict_proba`` uses the training tie rate t: (t, (1 − t) σ(x), (1 − t) σ(−x)).
- ``Davidson`` (1970): P(a) ∝ e^{x/2}, P(b) ∝ e^{−x/2}, P(tie) ∝ ν.
- ``RaoKupper`` (1967): P(a) = σ(x − η), P(b) = σ(−x − η), P(tie) = the rest (η ≥ 0).

A Gaussian prior on the abilities is the default: θ_s ~ N(θ̄, 1/λ) with ``l2`` = λ = 1, i.e.
the penalty λ/2 Σ_s (θ_s − θ̄)² added to the negative log-likelihood (a MAP estimate). The
likelihood is unchanged by a common shift of θ, so at the optimum Σθ = 0 and the penalty is
λ/2 Σθ²: it pulls the scores toward their mean, never toward an arbitrary zero. Why a prior:
real training sets are often separated (a reference that never loses; WMT10 subsets of 100–800
comparisons) or disconnected, and then the maximum-likelihood scores are infinite. With the
prior an undefeated system that won k comparisons against average opponents settles where
k·e^{−θ} ≈ λθ (θ ≈ 1.7 for k = 10, λ = 1): finite, first, flagged ``never lost`` and with a
wide standard error; a part of the graph never compared with the rest is centred on the common
mean (flagged by ``components_`` and ``ranking()``). Why λ = 1: it is the N(0, 1) ability prior
of Hopkins & May's IRT model (and of Crowd-BT here), a standard deviation of one logit, about the
spread of MT systems' abilities; chosen by held-out perplexity on WMT10 (8 tracks × 5 trials):
at 100 training comparisons it predicts better than λ = 0.01 by 0.15–0.37 perplexity (2.61 vs
2.76–2.97), from 800 comparisons on the two agree within 0.003 (README). The prior's pull on θ_s
is λθ_s against a likelihood gradient that grows with the system's comparisons, so its effect
fades as data grow; with thousands of comparisons per system (arenas) it is negligible.
``l2=0`` gives maximum likelihood, and data that are not strongly connected are then refused
with the components named (``DisconnectedError``).

Newton's method with a line search on (θ, h, log ν or log η); the Hessian of θ is the weighted
graph Laplacian (+ λI), its null space without a prior (a common shift) fixed by Σθ = 0. The
tie parameter is kept within |log ν|, |log η| ≤ 10: data with nothing but ties would push it
to infinity (every comparison a tie), and all abilities then stay equal.

Scores are log-odds (natural units), mean zero over the rated systems, or zero at ``anchor``;
``scale="elo"`` reports 400/ln 10 Elo points per logit around 1000 (the arenas' convention).

Style control (covariates): with per-comparison feature differences z (``Comparisons.covariates``,
a − b) the models use x = θ_a − θ_b (+ h) + βᵀz, β fitted jointly with θ by the same Newton
iteration. β and h have no prior (``coef_l2=None``) unless the data separate them: when the
covariates (or the first position) predict the outcomes perfectly the maximum-likelihood
coefficients are infinite (Albert & Anderson 1984). That shows as an estimate beyond
``SEPARATED`` = 10 logits per RMS unit of the covariate, or a fit that stopped with the
objective still rising outwards in a coefficient (the solver never takes a worse point, so it
may stop short); which coefficients the data separate is then decided by linear programs on
the data (``ranking.separation``: those that separate the outcomes alone, else those a joint
separating direction moves), and one beyond ``SEPARATED`` is named in any case. They run as well
when the objective is flat outwards where a coefficient moves some comparison ``SEPARATED``
logits further (a rare feature: tiny RMS, so a modest estimate per RMS unit) or the last Newton
step still moved a parameter; a fit that ends still moving warns (``FitWarning``). A covariate
the data cannot tell apart from the others and the systems' identities (a copy, a linear
combination, a feature constant per system: ``separation.aliased_columns``) is left out of the
fit with a ``FitWarning``, its coefficient NaN, and named in ``aliased_``. The fit then puts the prior N(0, 1/``COEF_L2``) per RMS unit on
every fixed effect (the θ prior's one logit, on the covariate's typical size), refits, and warns
(``SeparationWarning``) naming them (``separated_``). A number for ``coef_l2`` puts that prior on them always; the scores and ``predict_proba`` hold z at zero. This is FastChat's
style control (its logistic regression on model indicators and z-scored style features) and
arena-rank's contextual Bradley–Terry, fitted exactly rather than by L-BFGS. ``coef_`` and
``coef_std_`` report β. Weights: every comparison counts by its ``weight`` (``pair_cells``), in
the tie rate as well; an integer weight k is k copies of the row. Analytic (Fisher and sandwich)
covariances and intervals: ``covariance``, ``intervals``, ``coefficients`` (``ranking.analytic``).
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from humeval.data.tables import Comparisons
from humeval.errors import DisconnectedError
from humeval.ranking.base import FitWarning, PreferenceModel, integral, pair_cells
from humeval.ranking.newton import newton_ascent, solve_or_least_squares
from humeval.ranking.links import LINKS, _bt, _davidson, _davidson_tie, _rao_kupper, _rao_kupper_tie  # noqa: F401

ELO_PER_LOGIT = 400.0 / np.log(10.0)
L2 = 1.0  # the default prior precision (see the module doc)
TIE_BOUND = 10.0  # |log ν|, |log η| at most this
SEPARATED = 10.0  # a fixed effect beyond 10 logits per RMS unit (odds e^10 ≈ 22,000) is separation, not an estimate
COEF_L2 = 1.0  # the prior precision per RMS unit put on the fixed effects of separated data
UNCONVERGED = 1e-6  # a last Newton step larger than this is no rounding noise (1.1e-10 seen at a million battles' weight)


def stalled(stats: dict) -> bool:
    """Whether ``newton_ascent`` stopped at ``max_iter`` with its last step still moving a
    parameter by more than ``UNCONVERGED`` (a fit that met its own ``tol`` has converged, however
    large the user set it)."""
    return not stats.get("converged", True) and stats.get("moved", 0.0) > UNCONVERGED


class SeparationWarning(FitWarning):
    """The covariates (or the position effect) separate the outcomes: their maximum-likelihood
    coefficients are infinite, so the fit put a N(0, 1) prior per RMS unit on them."""



class PairFit(NamedTuple):
    """The fitted state of a pair model that the covariance code reads (``ranking.analytic``;
    ``_PairModel.pair_fit``): the training ``comparisons``; the rated systems ``idx``; per cell
    the local codes ``la``, ``lb`` of its systems among the rated, the fixed-effect design ``F``
    (position effect, covariates; None without); the estimates ``theta`` (rated systems), ``phi``
    and ``tie`` (the log tie parameter, None without one); ``hessian``, the gauge-fixed negative
    Hessian of the log posterior; with scores, ``d1`` and ``tie_score`` (cells × 3): ∂ℓ/∂x and
    ∂ℓ/∂τ of one comparison of each outcome in each cell, and ``cell_of_row`` (per comparison its
    cell, −1 when left out); ``names`` of the parameters (θ's systems, then φ's, then the tie's)."""

    comparisons: Comparisons
    idx: np.ndarray
    la: np.ndarray
    lb: np.ndarray
    F: np.ndarray | None
    theta: np.ndarray
    phi: np.ndarray
    tie: float | None
    hessian: np.ndarray
    d1: np.ndarray | None
    tie_score: np.ndarray | None
    cell_of_row: np.ndarray | None
    names: list


def outer_sum(la, lb, F, w_uu, w_ut, w_tt, m):
    """Σ over cells of the weighted outer products of u = (e_a − e_b, F row) and the tie
    coordinate: [[Σ w_uu u uᵀ, Σ w_ut u], [·, Σ w_tt]] (the tie row only when w_ut is given).
    With w_uu = −d²ℓ/dx² it is the negative Hessian; with squared scores, the sandwich's meat."""
    k = 0 if F is None else F.shape[1]
    t = 0 if w_ut is None else 1
    S = np.zeros((m + k + t, m + k + t))
    S[:m, :m] = -np.bincount(la * m + lb, w_uu, m * m).reshape(m, m)  # Σ w over the cells of each (a, b)
    S[:m, :m] += S[:m, :m].T
    S[np.arange(m), np.arange(m)] += np.bincount(la, w_uu, m) + np.bincount(lb, w_uu, m)
    if k:
        S[m:m + k, m:m + k] = F.T @ (w_uu[:, None] * F)
        for j in range(k):
            S[:m, m + j] = np.bincount(la, w_uu * F[:, j], m) - np.bincount(lb, w_uu * F[:, j], m)
        S[m:m + k, :m] = S[:m, m:m + k].T
    if t:
        S[-1, -1] = w_tt.sum()
        S[:m, -1] = S[-1, :m] = np.bincount(la, w_ut, m) - np.bincount(lb, w_ut, m)
        if k:
            S[m:m + k, -1] = S[-1, m:m + k] = F.T @ w_ut
    return S


class RatedRows(NamedTuple):
    """Rows (pair cells) between rated systems, in the systems' local codes 0..m-1 (the solver's
    θ covers the rated systems only): ``local[code]`` is a system's local code (-1 unrated),
    ``idx[i]`` the code of local i, ``keep`` which of the given rows are between rated systems,
    and ``la``, ``lb`` those rows' local codes."""
    idx: np.ndarray
    local: np.ndarray
    keep: np.ndarray
    la: np.ndarray
    lb: np.ndarray


def aliased_text(names, aliases) -> str:
    """The warning for covariates left out as aliased (``separation.aliased_columns``)."""
    parts = []
    for j, others, systems in aliases:
        of = [repr(names[k]) if k >= 0 else "the position effect" for k in others]
        of += ["the systems' identities (a feature constant per system is absorbed by their scores)"] if systems else []
        parts.append(f"{names[j]!r} is a linear combination of {' and '.join(of) or 'the position effect'}")
    return (f"{'; '.join(parts)}: the data cannot tell {'its coefficient' if len(aliases) == 1 else 'their coefficients'}"
            f" apart, so {'it is' if len(aliases) == 1 else 'they are'} left out of the fit (coefficient NaN), as R's "
            "glm leaves out aliased columns; drop or combine the columns to choose which one stays")


def rated_rows(rated: np.ndarray, a: np.ndarray, b: np.ndarray) -> RatedRows:
    """``RatedRows`` of the rows a vs b given which systems are rated."""
    idx = np.flatnonzero(rated)
    local = np.full(len(rated), -1)
    local[idx] = np.arange(len(idx))
    keep = rated[a] & rated[b]
    return RatedRows(idx, local, keep, local[a[keep]], local[b[keep]])


def _cell_x(la, lb, F, theta, phi):
    x = theta[la] - theta[lb]
    return x + F @ phi if F is not None else x


def pair_objective(link, la, lb, counts, F, theta, phi, tie, l2, phi_prec=0.0) -> float:
    """The log posterior of the pair-likelihood family: Σ_cells ℓ(x; counts, τ) under ``link``
    (``ranking.links``), x = θ_a − θ_b + Fφ per cell (local codes ``la``, ``lb``), minus the
    priors λ/2 Σ(θ_s − θ̄)² (λ = ``l2``) and Σ Λ_j φ_j² / 2 (Λ = ``phi_prec``)."""
    value, _, _ = link.cell(_cell_x(la, lb, F, theta, phi), counts, tie)
    centred = theta - theta.sum() / len(theta)  # = theta.mean(), without np.mean's Python overhead (a hot loop)
    return value.sum() - l2 / 2 * (centred ** 2).sum() - np.sum(phi_prec * phi ** 2) / 2


def tie_terms(link, x, counts, tie):
    """Per cell: dℓ/dτ, −d²ℓ/dτ² and −d²ℓ/dx dτ: in closed form for Davidson and Rao–Kupper
    (the link's ``tie``), else by central differences of the link."""
    if link.tie is not None:
        return link.tie(x, counts, tie)
    eps = 1e-5
    up, down = link.cell(x, counts, tie + eps), link.cell(x, counts, tie - eps)
    mid = link.cell(x, counts, tie)[0]
    return (up[0] - down[0]) / (2 * eps), -(up[0] - 2 * mid + down[0]) / eps ** 2, -(up[1] - down[1]) / (2 * eps)


def pair_derivatives(link, la, lb, counts, F, theta, phi, tie, l2, phi_prec=0.0):
    """Gradient g and negative Hessian H of ``pair_objective`` in (θ, φ, τ when the link has a
    tie parameter), the common shift of θ fixed by adding 11ᵀ/m to H (so H is invertible and a
    Newton step keeps Σθ): g_θ = Σ ℓ'(e_a − e_b) − λ(θ − θ̄), g_φ = Σ ℓ' F − Λφ, g_τ = Σ ∂ℓ/∂τ;
    H = ``outer_sum`` of −ℓ'' (and the tie terms) + λ(I − 11ᵀ/m) + 11ᵀ/m + diag(Λ)."""
    m = len(theta)
    x = _cell_x(la, lb, F, theta, phi)
    _, d1, d2 = link.cell(x, counts, tie)
    k = 0 if F is None else F.shape[1]
    g = np.zeros(m + k + (1 if link.tie_name else 0))
    g[:m] = np.bincount(la, d1, m) - np.bincount(lb, d1, m) - l2 * (theta - theta.sum() / m)
    if k:
        g[m:m + k] = F.T @ d1 - phi_prec * phi
    cross = tt = None
    if link.tie_name:
        gt, tt, cross = tie_terms(link, x, counts, tie)
        g[-1] = gt.sum()
    H = outer_sum(la, lb, F, -d2, cross, tt, m)
    H[:m, :m] += l2 * (np.eye(m) - 1.0 / m)  # the prior λ(I − 11ᵀ/m): a common shift stays free
    H[:m, :m] += 1.0 / m  # fix the common shift: the step keeps Σθ unchanged
    if k:
        H[m:m + k, m:m + k] += np.diag(phi_prec) if np.ndim(phi_prec) else phi_prec * np.eye(k)
    return g, H


class _PairModel(PreferenceModel):
    """Shared fitting for models whose likelihood depends on x = θ_a − θ_b (+ h) (+ βᵀz) and one
    tie parameter.

    Without covariates the data are the weighted pair-count cells of ``pair_cells``. With
    covariates (style control) the comparisons' feature differences z differ from row to row,
    so the cells are the comparisons themselves: each row one cell whose counts are its weight
    at its outcome. Distinct (a, b, z) rows could be merged first, but arena features (length
    ratios) are continuous and almost never repeat, so the sort would cost more than it saves;
    a Newton step on 10M rows takes about a second. The parameters are fitted jointly by the
    same Newton iteration: θ, then the fixed effects φ = (h?, β), then the log tie parameter."""

    link = LINKS["logit"]  # the declared link (``ranking.links``): likelihood, tie terms, kernel code, unit

    @property
    def _link(self):
        return self.link.cell

    @property
    def _tie_name(self) -> str | None:  # name of the tie parameter, fitted on the log scale
        return self.link.tie_name

    @property
    def _tie_start(self) -> float:
        return self.link.tie_start
    _phi_prec = 0.0  # the prior precision of the fixed effects (set per fit; none for a solver used alone)

    fast_bootstrap = True  # Newton on resampled pair counts, warm-started: no row is copied
    weighted = True  # fits on weighted sufficient statistics: a comparison counts by its ``weight``

    def __init__(self, l2: float = L2, position_effect: bool = False, anchor: str | None = None,
                 scale: str = "logit", max_iter: int = 100, tol: float = 1e-10, covariates=True,
                 standardize: bool = False, coef_l2: float | None = None):
        self.l2 = l2
        self.position_effect = position_effect
        self.anchor = anchor
        self.scale = scale
        self.max_iter = max_iter
        self.tol = tol
        self.covariates = covariates
        self.standardize = standardize
        self.coef_l2 = coef_l2

    # -- fitting -----------------------------------------------------------------------------
    def _fit(self, c: Comparisons) -> None:
        if self.scale not in ("logit", "elo"):
            raise ValueError(f"scale must be 'logit' or 'elo', not {self.scale!r}")
        if self.scale == "elo" and not self.link.elo:
            raise ValueError(f"scale='elo' converts log-odds, and {type(self).__name__}'s scores are in "
                             f"{self.link.unit}: keep scale='logit'")
        if not self.l2 >= 0:
            raise ValueError(f"l2 is a prior precision, 0 or more, not {self.l2!r}")
        if self.coef_l2 is not None and not self.coef_l2 >= 0:
            raise ValueError(f"coef_l2 is a prior precision, 0 or more (or None), not {self.coef_l2!r}")
        if c.weighted and not (np.all(np.isfinite(c.weight)) and np.all(c.weight >= 0)):
            raise ValueError("comparison weights must be finite and 0 or more")
        n = len(self.systems_)
        self._train = c  # for covariance(clusters=...) and the bootstrap: a reference, not a copy
        names, design, scale = self._design(c)
        self.covariate_names_, self._used, self._covariate_scale = names, design is not None, scale
        self.aliased_ = tuple(names[j] for j, _, _ in self._aliases)
        if self._aliases:
            import warnings
            warnings.warn(aliased_text(names, self._aliases), FitWarning, stacklevel=3)
        cells = pair_cells(c, n)
        self._fit_cells = (c, cells)  # for components_ and the bootstrap (_own_cells): coded once
        a, b, counts, X, _ = self._fit_data(c, design, cells)
        rated = np.bincount(np.concatenate([a, b]), weights=np.concatenate([counts.sum(1)] * 2), minlength=n) > 0
        if self.l2 <= 0:
            parts = self._components(cells[0], cells[1], cells[2], rated)
            if len(parts) > 1:
                raise DisconnectedError([[self.systems_[i] for i in p] for p in parts])
        self._cells = cells[:2]
        self.rated_ = rated
        self.tie_rate_ = (float(np.sum(c.weight * (c.outcome == 0)) / np.sum(c.weight)) if c.weighted
                          else float(np.mean(c.outcome == 0)))
        # per RMS unit of each fixed effect (h: one logit), as the solver sees it: rms / scale per column
        unit = np.concatenate([np.ones(self._extra_h), (self._rms / self._covariate_scale)[self._live]])
        self._phi_prec = (0.0 if self.coef_l2 is None else float(self.coef_l2)) * unit ** 2
        stats = {}
        theta, phi, tie = self._solve_full(a, b, counts, X, n, rated, None, stats)
        self.separated_ = self._runaway((rated, a, b), counts, X, theta, phi, tie, unit, stalled=stalled(stats))
        import warnings
        if self.separated_ and self.coef_l2 is None:
            self._phi_prec = COEF_L2 * unit ** 2
            theta, phi, tie = self._solve_full(a, b, counts, X, n, rated, None, stats)
            covs = [repr(n) for n in self.separated_ if n != "position effect"]
            what = ([f"covariate{'s' if len(covs) > 1 else ''} {', '.join(covs)}"] if covs else []) + (
                ["the position effect"] if "position effect" in self.separated_ else [])
            warnings.warn(f"{' and '.join(what)} separate{'s' if len(self.separated_) == 1 else ''} the outcomes: "
                          f"the maximum-likelihood coefficient{'s are' if len(self.separated_) > 1 else ' is'} "
                          f"infinite, so the fit puts a N(0, 1) prior per RMS unit on the coefficients; too few "
                          f"judgments to estimate them: read their signs, not their sizes", SeparationWarning,
                          stacklevel=3)
        if stalled(stats):  # a direction the likelihood keeps rising in that no test named
            warnings.warn(f"the fit did not converge: after {stats['iterations']} Newton iterations (max_iter) a step "
                          f"still moved a parameter by {stats['moved']:.2g}, as where the data separate the outcomes "
                          f"(an estimate without a finite maximum); the scores and their errors are not reliable: "
                          f"give coefficients a prior (coef_l2) or check the covariates", FitWarning, stacklevel=3)
        self._set(theta, phi, tie)
        from humeval.ranking.analytic import covariance_matrix
        cov, _ = covariance_matrix(self, "fisher", _data=(a, b, counts, X))
        std = np.sqrt(np.clip(np.diag(cov), 0, None))
        self.scores_std_ = self._series(std[:n], name="std")
        if names:
            coef_std = np.full(len(names), np.nan)
            coef_std[self._live] = std[n + self._extra_h:n + self._extra_h + int(self._live.sum())]
            self.coef_std_ = pd.Series(coef_std, index=pd.Index(names, name="covariate"), name="std")

    def _runaway(self, cells, counts, X, theta, phi, tie, unit, stalled: bool = False) -> tuple[str, ...]:
        """Names of the fixed effects without a finite estimate, given the fit (θ over all
        systems, φ, log tie) on ``cells`` = (rated, a, b) and each fixed effect's RMS unit. Separated data may show
        as a fit that ran beyond ``SEPARATED`` logits per RMS unit (in the link's units:
        ``per_logit``) in some coefficient, stopped with the objective still rising outwards in
        one, or flat outwards where the coefficient moves some comparison ``SEPARATED`` logits
        further (``_outwards``), or a fit that ``stalled`` (its last Newton step still moved a
        parameter). Which coefficients the data separate is then read from the data, not from how
        far each ran before the line search found no ascent (``ranking.separation``). Those beyond
        ``SEPARATED`` are named in any case (an estimate that large is no estimate); the others
        when the data separate them (else the fit merely stopped early)."""
        names = (["position effect"] if self.position_effect else []) + [
            n for n, live in zip(self.covariate_names_, self._live) if live]
        if not names:
            return ()
        rows = rated_rows(*cells)  # (rated, a, b): built only when there are fixed effects
        beyond = ~(np.abs(phi) * unit <= SEPARATED * self.link.per_logit)
        counts = counts[rows.keep]
        F = self._fixed(None if X is None else X[rows.keep], len(rows.la))
        rising, flat = self._outwards(rows, counts, F, theta[rows.idx], phi, tie, unit)
        if not (beyond.any() or stalled or rising.any() or flat.any()):
            return ()
        from humeval.ranking.separation import separated_columns
        m = len(rows.idx)
        cone = separated_columns(F, counts, rows.la, rows.lb, m if self.l2 <= 0 else 0)
        return tuple(n for n, flagged in zip(names, beyond | cone) if flagged)

    @property
    def _extra_h(self) -> int:
        return 1 if self.position_effect else 0

    def _design(self, c: Comparisons):
        """The covariates used: (names, (n, p) matrix or None, per-column scale). ``covariates``
        is True (every covariate of the table), False/None (none) or names. With ``standardize``
        each column is divided by its weighted root mean square over the comparisons the fit uses
        (not a system with itself; not centred: z = 0 must stay
        "no difference in style", and centring would act as a first-position advantage), so the
        coefficients are per RMS unit, as FastChat's style coefficients are per standard
        deviation. A column that is zero everywhere carries no information, and one the data
        cannot tell apart from the others and the systems (``separation.aliased_columns``) no
        information of its own: its coefficient is NaN and it is left out of the fit (which
        columns are aliased is kept for the table last fitted: the covariances and the bootstrap
        ask again)."""
        available = tuple(c.covariate_names)
        self._live, self._rms, self._aliases = np.zeros(0, dtype=bool), np.ones(0), []
        if self.covariates is None or self.covariates is False or not available and self.covariates is True:
            return (), None, np.ones(0)
        wanted = available if self.covariates is True else (
            (self.covariates,) if isinstance(self.covariates, str) else tuple(self.covariates))
        unknown = [w for w in wanted if w not in available]
        if unknown:
            raise ValueError(f"no covariates {unknown} in the comparisons; they have {list(available) or 'none'}")
        if not wanted:
            return (), None, np.ones(0)
        Z = c.covariates[:, [available.index(w) for w in wanted]]
        bad = ~np.isfinite(Z)
        if bad.any():
            col = int(np.nonzero(bad.any(axis=0))[0][0])
            raise ValueError(f"covariate {wanted[col]!r} has {int(bad[:, col].sum())} missing or infinite values "
                             f"(first at comparison {int(np.nonzero(bad[:, col])[0][0])}): fill or drop them")
        w = np.where(c.a != c.b, c.weight, 0.0)  # the rows the fit uses (pair_cells leaves self-comparisons out)
        rms = np.sqrt(np.sum(w[:, None] * Z ** 2, axis=0) / max(np.sum(w), 1e-300))
        scale = np.where(rms > 0, rms, 1.0) if self.standardize else np.ones(len(wanted))
        self._live, self._rms = rms > 0, np.where(rms > 0, rms, 1.0)
        key = (wanted, self.position_effect)
        kept = getattr(self, "_aliased_of", None)
        if kept is not None and kept[0] is c and kept[1] == key:
            self._aliases = kept[2]
        else:
            from humeval.ranking.separation import aliased_columns
            self._aliases = aliased_columns(Z, c.a.astype(np.int64), c.b.astype(np.int64), w, len(self.systems_),
                                            self.position_effect)
            self._aliased_of = (c, key, self._aliases)
        for j, _, _ in self._aliases:  # left out of the fit as a column of zeros is: its coefficient NaN
            self._live[j] = False
        return wanted, Z / scale, scale

    def _fit_data(self, c: Comparisons, design, cells=None):
        """(a, b, counts, X, row_of): the cells the likelihood sums over and, per comparison, its
        cell (−1 when left out). Pair cells (``cells``, or computed) without covariates; with them
        one cell per comparison (counts = its weight at its outcome) and X its covariate row (live
        columns only)."""
        a, b, counts, row_cell = pair_cells(c, len(self.systems_)) if cells is None else cells
        if design is None:
            return a, b, counts, None, row_cell
        keep = row_cell >= 0
        rows = np.nonzero(keep)[0]
        row_of = np.full(len(c), -1, dtype=np.int64)
        row_of[rows] = np.arange(len(rows))
        counts = np.zeros((len(rows), 3))
        counts[np.arange(len(rows)), c.outcome[rows]] = c.weight[rows]
        return c.a[rows].astype(np.int64), c.b[rows].astype(np.int64), counts, design[rows][:, self._live], row_of

    def _fixed(self, X, cells):
        """The fixed-effect design F = (1 if ``position_effect``, X), or None when empty."""
        parts = ([np.ones((cells, 1))] if self.position_effect else []) + ([X] if X is not None else [])
        return np.hstack(parts) if parts else None

    @staticmethod
    def _components(a, b, counts, rated) -> list[list[int]]:
        """Strongly connected parts of the graph 'a beat or tied b' among rated systems."""
        n = len(rated)
        forward = counts[:, 1] + counts[:, 0] > 0  # a won or tied
        backward = counts[:, 2] + counts[:, 0] > 0
        rows = np.concatenate([a[forward], b[backward]])
        cols = np.concatenate([b[forward], a[backward]])
        graph = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
        _, labels = connected_components(graph, directed=True, connection="strong")
        parts = {}
        for i in np.nonzero(rated)[0]:
            parts.setdefault(labels[i], []).append(int(i))
        return sorted(parts.values(), key=len, reverse=True)

    _x = staticmethod(_cell_x)

    def _objective(self, la, lb, counts, F, theta, phi, tie):
        return pair_objective(self.link, la, lb, counts, F, theta, phi, tie, self.l2, self._phi_prec)

    def _tie_terms(self, x, counts, tie):
        return tie_terms(self.link, x, counts, tie)

    def pair_fit(self, data=None, scores: bool = False) -> PairFit:
        """The public fitted state (``PairFit``) at the estimate, on the training comparisons or,
        during the fit, on ``data`` = (a, b, counts, X) (then without ``cell_of_row``); with
        ``scores`` the per-cell, per-outcome scores the sandwich needs."""
        self._check_fitted()
        c = self._train
        if data is None:
            a, b, counts, X, row_of = self._fit_data(c, self._design(c)[1])
        else:
            (a, b, counts, X), row_of = data, None
        idx, _, keep, la, lb = rated_rows(self.rated_, a, b)
        m = len(idx)
        F = self._fixed(None if X is None else X[keep], len(la))
        theta = self.theta_[idx]
        _, H = self._newton(la, lb, counts[keep], F, theta, self._phi, self._tie, m)
        d1 = tie_score = cell_of_row = None
        if scores:
            x = self._x(la, lb, F, theta, self._phi)
            d1, tie_score = np.zeros((len(la), 3)), np.zeros((len(la), 3))
            for o in range(3):
                unit = np.zeros((len(la), 3))
                unit[:, o] = 1.0
                d1[:, o] = self._link(x, unit, self._tie)[1]
                if self._tie_name:
                    tie_score[:, o] = self._tie_terms(x, unit, self._tie)[0]
        if row_of is not None:
            cell_of = np.full(len(a), -1)
            cell_of[np.nonzero(keep)[0]] = np.arange(len(la))
            cell_of_row = np.where(row_of >= 0, cell_of[np.maximum(row_of, 0)], -1)
        names = list(self.systems_[i] for i in range(len(self.systems_)))
        names += ["position effect"] if self.position_effect else []
        names += [f"coef {name}" for name, live in zip(self.covariate_names_, self._live) if live]
        names += [f"log {self._tie_name}"] if self._tie_name else []
        return PairFit(c, idx, la, lb, F, theta, self._phi, self._tie if self._tie_name else None, H, d1, tie_score,
                       cell_of_row, names)

    def _newton(self, la, lb, counts, F, theta, phi, tie, m):
        """``pair_derivatives`` under the model's link and priors (m = len(θ))."""
        return pair_derivatives(self.link, la, lb, counts, F, theta, phi, tie, self.l2, self._phi_prec)

    def _solve(self, a, b, counts, n, rated, start):
        """``_solve_full`` without covariates, for callers on pair cells: (θ, h, log tie)."""
        theta, phi, tie = self._solve_full(a, b, counts, None, n, rated,
                                           None if start is None else (start[0], np.atleast_1d(start[1])[:self._extra_h],
                                                                       start[2]))
        return theta, float(phi[0]) if self.position_effect else 0.0, tie

    def _solve_full(self, a, b, counts, X, n, rated, start, stats: dict | None = None):
        """Newton's method on (θ of rated systems, φ = (h?, β), log tie?) with a backtracking line
        search (``ranking.newton.newton_ascent``, the solver Plackett–Luce uses too); ``start`` =
        (θ over all systems, φ, tie) or None; ``stats`` as ``newton_ascent`` fills it."""
        rows = rated_rows(rated, a, b)
        idx, la, lb, counts = rows.idx, rows.la, rows.lb, counts[rows.keep]
        m = len(idx)
        k = self._extra_h + (0 if X is None else X.shape[1])
        if m == 0:  # nothing to fit (e.g. every comparison left out)
            return (np.full(n, np.nan), np.zeros(k) if start is None else start[1],
                    self._tie_start if start is None else start[2])
        F = self._fixed(None if X is None else X[rows.keep], len(la))
        extra_t = 1 if self._tie_name else 0
        theta = np.zeros(m) if start is None else start[0][idx].copy()
        phi = np.zeros(k) if start is None else np.asarray(start[1], dtype=float).copy()
        tie = self._tie_start if start is None else start[2]

        def unpack(x):
            return x[:m], x[m:m + k], (float(x[-1]) if extra_t else tie)

        def derivatives(x):
            g, H = self._newton(la, lb, counts, F, *unpack(x), m)
            return self._objective(la, lb, counts, F, *unpack(x)), g, H

        def bound(x):  # the tie parameter within ±TIE_BOUND
            if extra_t:
                x = x.copy()
                x[-1] = np.clip(x[-1], -TIE_BOUND, TIE_BOUND)
            return x

        x = newton_ascent(derivatives, lambda x: self._objective(la, lb, counts, F, *unpack(x)),
                          np.concatenate([theta, phi, [tie] if extra_t else []]), bound, self.max_iter, self.tol,
                          solve_or_least_squares, stats)
        theta, phi, tie = unpack(x)
        theta = theta - theta.mean()
        full = np.full(n, np.nan)
        full[idx] = theta
        return full, phi, tie

    def _outwards(self, rows: RatedRows, counts, F, theta, phi, tie, unit) -> tuple[np.ndarray, np.ndarray]:
        """Per fixed effect j, at the estimate (θ of the rated systems, φ, log tie):

        - ``rising``: the objective with φ_j moved ``SEPARATED`` logits per RMS unit further out
          (away from 0) is higher: no finite maximum in that coordinate (Albert & Anderson 1984's
          separation). At a maximum the objective falls there by about ½·(Fisher
          information)·(SEPARATED/unit)², some 10 log-likelihood units per comparison the
          covariate varies in;
        - ``flat``: the objective with φ_j moved so far out that the comparison it moves most
          moves ``SEPARATED`` logits is not lower (to 1e-12 of its size): every comparison the
          covariate touches is saturated on the outcome's side. A covariate that is 0 on all but
          a few comparisons has a tiny RMS, so its estimate can be short of ``SEPARATED`` per RMS
          unit while moving those comparisons by 100 logits (a rare feature that always sided
          with the winner had a coefficient of 4.5 and a standard error of 1.9e20, unflagged);
          where the estimate is finite, the bulk of the comparisons moves too and the objective
          falls.

        A coordinate at exactly 0 has no outward side: False. θ may be shifted by a constant: the
        move is in φ alone, so the prior on θ adds the same to both values."""
        def objective(phi):
            return self._objective(rows.la, rows.lb, counts, F, theta, phi, tie)

        phi = np.asarray(phi, dtype=float)
        value = objective(phi)
        used = counts.sum(axis=1) > 0
        reach = np.abs(F[used]).max(axis=0) if F is not None and used.any() else np.zeros(len(phi))
        rising, flat = np.zeros(len(phi), dtype=bool), np.zeros(len(phi), dtype=bool)
        for j in np.flatnonzero(phi):
            out = np.sign(phi[j]) * SEPARATED * self.link.per_logit
            moved = phi.copy()
            moved[j] += out / unit[j]
            # strictly higher: where another coefficient's separation has already saturated every
            # probability the objective is flat in all directions, and this one is not to blame
            # (the linear programs decide; they run when any coefficient is rising or flat)
            rising[j] = objective(moved) > value
            if reach[j] > 0:
                moved = phi.copy()
                moved[j] += out / reach[j]
                flat[j] = objective(moved) >= value - 1e-12 * abs(value)
        return rising, flat

    def _set(self, theta, phi, tie):
        self.theta_, self._phi, self._tie = theta, np.asarray(phi, dtype=float), tie
        self.log_tie_ = float(tie) if self._tie_name else None  # log ν or log η (public: the CLI's bound note)
        self.tie_name_ = self._tie_name
        self.position_effect_ = float(self._phi[0]) if self.position_effect else 0.0
        if self._tie_name:
            setattr(self, f"{self._tie_name}_", float(np.exp(tie)))
        self.scores_ = self._series(self._rescale(theta))
        self.scale_ = self._scale_text()
        names = self.covariate_names_
        if names:
            beta = np.full(len(names), np.nan)
            beta[self._live] = self._phi[self._extra_h:]
            self.coef_ = pd.Series(beta, index=pd.Index(names, name="covariate"), name="coef")
            self.covariate_scale_ = pd.Series(self._covariate_scale, index=self.coef_.index, name="scale")

    def _rescale(self, theta):
        return self._rescale_rows(theta[None, :])[0]

    def _rescale_rows(self, theta):
        """Scores on the requested scale, for rows of log-odds (resamples × systems)."""
        if self.anchor is not None:
            if self.anchor not in self.systems_:
                raise ValueError(f"anchor {self.anchor!r} is not one of the systems {list(self.systems_)}")
            theta = theta - theta[:, [self.systems_.index(self.anchor)]]
        return theta * ELO_PER_LOGIT + 1000.0 if self.scale == "elo" else theta

    def _scale_text(self) -> str:
        unit = "Elo points (400/ln 10 per logit)" if self.scale == "elo" else self.link.unit
        zero = "1000" if self.scale == "elo" else "0"
        where = f"{self.anchor} = {zero}" if self.anchor is not None else f"mean {zero}"
        held = ", covariates held at zero" if self.covariate_names_ else ""
        return f"{unit}, {where}{held}"

    # -- analytic intervals ------------------------------------------------------------------
    def covariance(self, kind: str = "fisher", clusters=None, small_sample: bool = True) -> pd.DataFrame:
        """Covariance of (scores, position effect, covariate coefficients, log tie parameter):
        ``kind="fisher"`` (inverse information) or ``"sandwich"`` (robust; ``clusters`` =
        "judge", "item", "group", "category" or an integer array; with clusters the CR1 factor
        G/(G − 1) · (N − 1)/(N − K) unless ``small_sample=False``). See ``humeval.ranking.analytic``."""
        from humeval.ranking.analytic import covariance
        self._check_fitted()
        return covariance(self, kind, clusters, small_sample=small_sample)

    def intervals(self, kind: str = "fisher", confidence: float = 0.95, simultaneous: bool = False,
                  clusters=None, random_state=0) -> pd.DataFrame:
        """Per system: score, std, lower, upper from the analytic covariance (see ``analytic.intervals``)."""
        from humeval.ranking.analytic import intervals
        self._check_fitted()
        return intervals(self, kind, confidence, simultaneous, clusters, random_state)

    def coefficients(self, kind: str = "fisher", confidence: float = 0.95, clusters=None) -> pd.DataFrame:
        """Position effect, covariate coefficients and log tie parameter with std and intervals."""
        from humeval.ranking.analytic import coefficients
        self._check_fitted()
        return coefficients(self, kind, confidence, clusters)

    # -- prediction --------------------------------------------------------------------------
    def _proba(self, a, b):
        """Probabilities with the covariates held at zero (no difference in style)."""
        x = np.nan_to_num(self.theta_[a] - self.theta_[b]) + self.position_effect_
        return self._predict(x)

    @abstractmethod
    def _predict(self, x):
        """(n, 3) probabilities for log-odds differences ``x`` (position effect included)."""

    # -- bootstrap fast path -----------------------------------------------------------------
    def bootstrap_scores(self, comparisons: Comparisons, unit: np.ndarray | None, n: int, rng,
                         progress=None) -> np.ndarray:
        """Bootstrap (see ``Ranker.bootstrap_scores``), compiled for every link: on the pair
        counts (``_compiled_bootstrap``, ``_pair_kernel``) or, with covariates, on the comparisons
        themselves (``_bootstrap_rows``, ``_style_kernel``). When the full-data tie parameter sits
        at its bound or fewer than two systems are rated, every resample is refitted by Newton's
        method instead (``_refit_bootstrap``)."""
        if self._used:
            return self._bootstrap_rows(comparisons, unit, n, rng, progress)
        if (self._tie_name and abs(self._tie) >= TIE_BOUND) or self.rated_.sum() < 2:
            return self._refit_bootstrap(comparisons, unit, n, rng, progress)
        return self._compiled_bootstrap(comparisons, unit, n, rng, progress)

    def _refit_bootstrap(self, comparisons: Comparisons, unit: np.ndarray | None, n: int, rng,
                         progress=None) -> np.ndarray:
        """Bootstrap by resampling the pair-count table: a multinomial draw over the cells
        (ordered pair × outcome) for single comparisons; for units, each unit's cell counts once,
        weighted by how often the unit was drawn (weighted comparisons: see ``resample_counts``).
        Every resample is refitted by Newton's method warm-started at the full-data estimate,
        never copying a row; 100 resamples are drawn at a time."""
        a, b, _, row_cell = self._own_cells(comparisons)
        draw = resample_counts(row_cell * 3 + comparisons.outcome, comparisons, unit, len(a) * 3, rng)
        samples = np.empty((n, len(self.systems_)))
        for start in range(0, n, 100):
            k = min(100, n - start)
            counts = draw(k).reshape(k, -1, 3)
            for i in range(k):
                samples[start + i] = self._refit_counts(counts[i])
            if progress:
                progress(start + k, n)
        return samples

    def _compiled_bootstrap(self, comparisons: Comparisons, unit: np.ndarray | None, n: int, rng,
                            progress=None) -> np.ndarray:
        """Compiled bootstrap on the pair counts for any link (``_pair_kernel``): all ``n``
        resamples drawn and refitted by chord-Newton on (θ, h?, log tie?) from the full-data fit
        in one parallel loop; cells are unordered pairs without a position effect, ordered pairs
        with one. The draws are those each model has always made, so published figures stay:
        without a tie parameter (logit, probit), single comparisons with whole-number weights are
        a multinomial over the cells; tie models draw the rows with their weights (``_row_keys``:
        row by row for small data, a multinomial over the distinct (cell, weight) keys for large);
        clusters (and, without a tie parameter, fractional weights) by ``resample_counts``, 100
        resamples at a time. Resamples that do not converge (a system left out or, without a prior,
        separated; the tie parameter at its bound) are refitted by Newton's method (``_refit_counts``)."""
        from humeval.ranking import _pair_kernel
        has_h = bool(self.position_effect)
        cells = _bootstrap_cells(self, comparisons, ordered=has_h)
        idx, pi, pj, n_cells, base = cells.idx, cells.pi, cells.pj, 3 * len(cells.pi), cells.base
        weight = cells.rows(comparisons)[1] if comparisons.weighted else None  # per row only when weighted
        p0 = np.concatenate([self.theta_[idx], [self.position_effect_] if has_h else [],
                             [self._tie] if self._tie_name else []])
        hinv = np.linalg.inv(self._cell_hessian(cells, base, p0))
        seeds = rng.integers(0, 2 ** 31 - 1, n)
        F = np.ones((len(pi), 1)) if has_h else np.zeros((len(pi), 0))  # the position effect: one fixed effect
        fixed = (p0, hinv, pi, pj, F, len(idx), self.link.code)
        settings = (float(self.l2), np.asarray(self._phi_prec[:int(has_h)], dtype=float), 1e-10, 100, TIE_BOUND)
        if unit is None and (self._tie_name or integral(weight)):
            rows = bool(self._tie_name)  # ties: rows with their weights; else the cells' counts as one multinomial
            if rows:
                (total, key_p, key_cell, key_weight), share = _row_keys(cells, comparisons, weight), np.zeros(0)
            else:
                total, key_p, key_cell, key_weight = int(round(base.sum())), np.zeros(0), np.zeros(0, np.int64), np.zeros(0)
                share = base / total
            p, ok = _pair_kernel.bootstrap(*fixed, rows, total, share, key_p, key_cell, key_weight, seeds, *settings)
            redraw = lambda i: _pair_kernel.draw(rows, total, share, key_p, key_cell, key_weight, n_cells,  # noqa: E731
                                                 seeds[i])
        else:
            draw = resample_counts(cells.row_codes(comparisons), comparisons, unit, n_cells, rng)
            p, ok, kept = np.empty((n, len(p0))), np.empty(n, dtype=bool), {}
            for start in range(0, n, 100):
                counts = draw(min(100, n - start))
                p[start:start + len(counts)], ok[start:start + len(counts)] = _pair_kernel.fit_many(
                    *fixed, counts, *settings)
                kept.update({start + i: counts[i] for i in np.nonzero(~ok[start:start + len(counts)])[0]})
            redraw = kept.__getitem__
        out = _bootstrap_finish(self, cells, p[:, :len(idx)], ok, redraw)
        if progress:
            progress(n, n)
        return out

    def _cell_hessian(self, cells: "_Cells", counts: np.ndarray, p0: np.ndarray) -> np.ndarray:
        """H₀: the negative Hessian of the log posterior at the full-data fit, on the cells
        (``_newton``, whose counts are ordered (tie, first, second))."""
        m = len(cells.idx)
        phi = p0[m:m + 1] if self.position_effect else np.zeros(0)
        _, H = self._newton(cells.pi, cells.pj, counts.reshape(-1, 3)[:, [1, 0, 2]], self._fixed(None, len(cells.pi)),
                            p0[:m], phi, self._tie, m)
        return H

    def _bootstrap_rows(self, comparisons, unit, n, rng, progress=None) -> np.ndarray:
        """Bootstrap with covariates, compiled (``_style_kernel``): each resample draws the
        comparisons (or units) with replacement, row i counting k_i times, and runs the
        chord-Newton iteration ψ ← ψ + H₀⁻¹ g(ψ) over ψ = (θ, φ, log tie) from the full-data fit,
        H₀ the full-data negative Hessian (``_pair_kernel.chord_fit``, each row a cell); one pass
        over the rows per iteration, a few iterations per resample. Resamples that do not converge are refitted by Newton's method
        on the same draw (``_refit_rows``)."""
        from humeval.ranking import _style_kernel
        a, b, counts, X, row_of, units, n_units = self._row_units(comparisons, unit)
        idx, _, keep, la, lb = rated_rows(self.rated_, a, b)
        m = len(idx)
        F = self._fixed(X[keep], len(la))
        theta0 = self.theta_[idx]
        _, H = self._newton(la, lb, counts[keep], F, theta0, self._phi, self._tie, m)
        seeds = rng.integers(0, 2 ** 31 - 1, n)
        start = (np.nan_to_num(self.theta_), self._phi, self._tie)
        p0 = np.concatenate([theta0, self._phi, [self._tie] if self._tie_name else []])
        flat = np.ascontiguousarray(counts[keep][:, [1, 0, 2]]).ravel()  # (first, tie, second) per row, as cells
        p, ok = _style_kernel.bootstrap_units(
            p0, np.linalg.inv(H), la.astype(np.int64), lb.astype(np.int64),
            np.zeros((len(la), 0)) if F is None else np.ascontiguousarray(F), m, self.link.code, flat,
            units[keep].astype(np.int64), n_units, seeds, float(self.l2), np.asarray(self._phi_prec, dtype=float),
            1e-7, 60, TIE_BOUND)  # 1e-7: ≪ any std
        theta = p[:, :m] - p[:, :m].mean(axis=1, keepdims=True)
        out = np.full((n, len(self.systems_)), np.nan)
        out[:, idx] = theta
        out = self._rescale_rows(out)
        for i in np.nonzero(~ok)[0]:
            times = _style_kernel.unit_counts(n_units, seeds[i])[units].astype(float)
            out[i] = self._refit_rows(a, b, counts * times[:, None], X, start)
        if progress:
            progress(n, n)
        return out

    def _row_units(self, comparisons, unit):
        """The row data of a covariate fit and each row's resampling unit (the row itself, or ``unit``)."""
        self._own_cells(comparisons)
        a, b, counts, X, row_of = self._fit_data(comparisons, self._design(comparisons)[1])
        kept = row_of >= 0
        if unit is None:
            return a, b, counts, X, row_of, np.arange(len(a)), len(a)
        units = np.asarray(unit)[kept]
        return a, b, counts, X, row_of, units, int(np.max(unit)) + 1 if len(unit) else 0

    def _refit_rows(self, a, b, counts, X, start) -> np.ndarray:
        """Scores refitted on reweighted rows (covariate fit), NaN for systems left without comparisons."""
        n = len(self.systems_)
        total = counts.sum(1)
        rated = np.bincount(np.concatenate([a, b]), weights=np.concatenate([total, total]), minlength=n) > 0
        theta, _, _ = self._solve_full(a, b, counts, X, n, rated, start)
        return self._rescale(theta)

    def _own_cells(self, comparisons: Comparisons):
        """``pair_cells`` of the comparisons the model was fitted on (checked): a, b, counts, row_cell."""
        self._check_fitted()
        a, b, counts, row_cell = self._pair_cells_of(comparisons) or pair_cells(comparisons, len(self.systems_))
        if not (np.array_equal(a, self._cells[0]) and np.array_equal(b, self._cells[1])):
            raise ValueError("bootstrap_scores takes the comparisons the model was fitted on")
        return a, b, counts, row_cell

    def _refit_counts(self, counts) -> np.ndarray:
        """Scores refitted on resampled cell counts (same cells), warm-started; NaN for systems a
        resample leaves without comparisons or (without a prior) outside its largest strongly
        connected part."""
        a, b = self._cells
        n = len(self.systems_)
        rated = np.bincount(np.concatenate([a, b]), weights=np.concatenate([counts.sum(1)] * 2), minlength=n) > 0
        if self.l2 <= 0:
            parts = self._components(a, b, counts, rated)
            if len(parts) > 1:
                rated = np.zeros(n, dtype=bool)
                rated[parts[0]] = True
        keep = rated[a] & rated[b]
        theta, _, _ = self._solve(a[keep], b[keep], counts[keep], n, rated,
                                  (np.nan_to_num(self.theta_), self.position_effect_, self._tie))
        return self._rescale(theta)


def resample_counts(cell, comparisons: Comparisons, unit, n_cells: int, rng):
    """``draw(k)``: k bootstrap resamples of the cell counts, shape (k, n_cells), for per-row cell
    codes ``cell`` (negative: left out). Single comparisons (``unit`` None): a multinomial draw
    of the comparisons; units: each unit's cell counts times how often the unit was drawn.
    Whole-number weights are frequencies (``Comparisons``: a weight k is k copies of the row; a
    streamed dataset's rows are counts of battles): the multinomial draws Σ weights comparisons
    over the weighted cells, the very draw the duplicated rows would get. Fractional weights:
    a comparison is the unit of resampling and a drawn comparison adds its weight to its cell.
    Unweighted, this is the plain multinomial over the cells (the same random draws as before
    weights existed)."""
    keep = cell >= 0
    flat = cell[keep]
    weight = comparisons.weight[keep] if comparisons.weighted else None
    if unit is None:
        if integral(weight):
            base = np.bincount(flat, weights=weight, minlength=n_cells).astype(float)
            total = int(round(base.sum()))
            return lambda k: rng.multinomial(total, base / total, size=k).astype(float)
        groups, inverse = np.unique(np.column_stack([flat.astype(float), weight]), axis=0, return_inverse=True)
        size = np.bincount(inverse.ravel()).astype(float)
        g_cell, g_weight, total = groups[:, 0].astype(np.int64), groups[:, 1], len(flat)
        return lambda k: np.array([np.bincount(g_cell, weights=d * g_weight, minlength=n_cells)
                                   for d in rng.multinomial(total, size / total, size=k)])
    n_units = int(unit.max()) + 1 if len(unit) else 0
    unique, inverse, count = np.unique(unit[keep] * n_cells + flat, return_inverse=True, return_counts=True)
    if weight is not None:
        count = np.bincount(inverse.ravel(), weights=weight)
    key_unit, key_cell = unique // n_cells, unique % n_cells
    return lambda k: np.array([np.bincount(key_cell, weights=np.bincount(
        rng.integers(0, n_units, n_units), minlength=n_units)[key_unit] * count, minlength=n_cells)
        for _ in range(k)])


# -- the compiled bootstraps' shared steps (BradleyTerry, Davidson, RaoKupper) -------------------

class _Cells(NamedTuple):
    """The cells a compiled bootstrap resamples: ``pi``, ``pj`` the local codes (among the rated
    systems ``idx``) of each cell's first and second system; ``base`` the full data's (weighted)
    counts per flat cell 3 × cell + (0 first preferred, 1 tie, 2 second preferred), summed from
    the pair-count cells, not the rows; ``flat_of`` (ordered cells × outcome) the flat cell of
    each ``pair_cells`` cell and outcome (0 tie, 1 a preferred, 2 b preferred) and ``row_cell``
    each comparison's ordered cell (−1: left out), from which ``rows`` codes the comparisons
    when a draw needs them (units, weights); ``to_ordered`` maps a resample's flat counts back
    to the model's ordered cells (tie, a preferred, b preferred) for ``_refit_counts``."""
    idx: np.ndarray
    pi: np.ndarray
    pj: np.ndarray
    base: np.ndarray
    flat_of: np.ndarray
    row_cell: np.ndarray
    to_ordered: Callable[[np.ndarray], np.ndarray]

    def rows(self, comparisons: Comparisons) -> tuple[np.ndarray, np.ndarray]:
        """The flat cell and the weight of every comparison kept (not a self-comparison)."""
        keep = self.row_cell >= 0
        return self.flat_of[self.row_cell[keep], comparisons.outcome[keep]], comparisons.weight[keep]

    def row_codes(self, comparisons: Comparisons) -> np.ndarray:
        """Every comparison's flat cell (−1 for one left out), what ``resample_counts`` draws from."""
        full = np.full(len(comparisons), -1, dtype=np.int64)
        full[self.row_cell >= 0] = self.rows(comparisons)[0]
        return full


def _bootstrap_cells(model: _PairModel, comparisons: Comparisons, ordered: bool) -> _Cells:
    """Cells for ``model``'s compiled bootstrap on the comparisons it was fitted on: unordered
    pairs (lower local code first) when the likelihood depends on the unordered pair only (no
    position effect), else the ordered pairs of ``pair_cells``. Works on the pair-count cells
    only: O(cells), whatever the number of comparisons."""
    a, b, counts, row_cell = model._own_cells(comparisons)
    idx, local = rated_rows(model.rated_, a[:0], b[:0])[:2]
    m = len(idx)
    la, lb = local[a], local[b]  # every cell of the fit (a zero-weight one may touch an unrated system: -1)
    if ordered:
        pi, pj, pair_of_cell = la.astype(np.int64), lb.astype(np.int64), np.arange(len(a))
        flipped = np.zeros(len(a), dtype=bool)
        representative = np.arange(len(a))
    else:  # each ordered cell's unordered pair, and whether the pair lists its systems the other way
        pair_code, pair_of_cell = np.unique(np.minimum(la, lb).astype(np.int64) * m + np.maximum(la, lb),
                                            return_inverse=True)
        pi, pj = (pair_code // m).astype(np.int64), (pair_code % m).astype(np.int64)
        flipped = la > lb
        representative = np.zeros(len(pair_code), dtype=np.int64)  # an ordered cell per pair
        representative[pair_of_cell[::-1]] = np.arange(len(a))[::-1]
    # outcome (tie, a preferred, b preferred) -> (1, 0, 2) for the pair's first system a, (1, 2, 0) when flipped
    flat_of = pair_of_cell[:, None] * 3 + np.where(flipped[:, None], [1, 2, 0], [1, 0, 2])
    base = np.bincount(flat_of.ravel(), weights=counts.ravel(), minlength=3 * len(pi)).astype(float)
    rep_flipped = flipped[representative]

    def to_ordered(flat):
        w, t, l = np.asarray(flat, dtype=float).reshape(-1, 3).T
        out = np.zeros((len(a), 3))
        out[representative] = np.column_stack([t, np.where(rep_flipped, l, w), np.where(rep_flipped, w, l)])
        return out

    return _Cells(idx, pi, pj, base, flat_of.astype(np.int64), row_cell, to_ordered)


ROW_DRAWS = 6  # draw rows one by one while there are at most this many per distinct (cell, weight) key
# (a row costs ~14 ns, a key's binomial ~90 ns: continuous weights make every row a key)


def _row_keys(cells: _Cells, comparisons: Comparisons, weight: np.ndarray | None):
    """What ``_pair_kernel.bootstrap`` (with ``rows``) draws a resample of rows from: ``(total, key_p, key_cell, key_weight)``.
    The rows themselves (``key_p`` empty: ``total`` uniform draws, O(rows) per resample) while
    there are at most ``ROW_DRAWS`` rows per distinct (cell, weight) key, else the keys with
    probabilities (rows with that key) / (rows), one multinomial per resample (O(keys)); both
    are draws of rows with replacement. Whole-number weights are frequencies: the rows a weight
    stands for are drawn one by one (``resample_counts``). ``weight``: the kept rows' weights,
    None when unweighted (then the rows are coded only if there are few)."""
    if integral(weight):  # no weights, or frequencies: the (duplicated) rows drawn unweighted
        count = cells.base
        keys = np.flatnonzero(count)
        total = int(round(count.sum()))
        if total <= ROW_DRAWS * len(keys):  # few rows: repeat them (small by this very test)
            cell = cells.rows(comparisons)[0]
            rows = cell if weight is None else np.repeat(cell, np.round(weight).astype(np.int64))
            return total, np.empty(0), rows.astype(np.int64), np.ones(len(rows))
        return total, count[keys] / total, keys.astype(np.int64), np.ones(len(keys))
    cell = cells.rows(comparisons)[0]
    total = len(cell)
    keys, key_count = np.unique(np.column_stack([cell, weight]), axis=0, return_counts=True)
    if total <= ROW_DRAWS * len(keys):
        return total, np.empty(0), cell.astype(np.int64), weight.astype(float)
    # a column of ``keys`` is a strided view: copied, so the kernel sees the C-contiguous arrays of
    # the other branches (a non-contiguous one is another signature, compiled again: ~4 s of numba)
    return total, key_count / total, keys[:, 0].astype(np.int64), np.ascontiguousarray(keys[:, 1])


def _bootstrap_finish(model: _PairModel, cells: _Cells, theta: np.ndarray, ok: np.ndarray, redraw) -> np.ndarray:
    """Scores (resamples × systems) from the compiled fits ``theta`` (resamples × rated): centred,
    rescaled, and the resamples that did not converge (``ok`` False: lost a link, left a system
    out, or far from the full-data fit) refitted by the robust solver on ``redraw(i)``'s counts."""
    theta = theta - theta.mean(axis=1, keepdims=True)
    out = np.full((len(theta), len(model.systems_)), np.nan)
    out[:, cells.idx] = theta
    out = model._rescale_rows(out)
    for i in np.nonzero(~ok)[0]:
        out[i] = model._refit_counts(cells.to_ordered(redraw(i)))
    return out


class BradleyTerry(_PairModel):
    """Bradley–Terry (MAP with the default weak prior; maximum likelihood with ``l2=0``), ties
    as half a win for each side (see module doc)."""

    def _predict(self, x):
        t = self.tie_rate_
        return np.column_stack([np.full(len(x), t), (1 - t) * expit(x), (1 - t) * expit(-x)])


class Davidson(_PairModel):
    """Davidson's (1970) tie model; ``nu_`` is the fitted tie parameter ν."""

    link = LINKS["davidson"]

    def _predict(self, x):
        u = x / 2
        nu = np.exp(self._tie)
        d = np.exp(u) + np.exp(-u) + nu
        return np.column_stack([nu / d, np.exp(u) / d, np.exp(-u) / d])


class RaoKupper(_PairModel):
    """Rao & Kupper's (1967) tie model; ``eta_`` is the threshold η (their θ = e^η)."""

    link = LINKS["rao-kupper"]

    def _predict(self, x):
        eta = np.exp(self._tie)
        p1, p2 = expit(x - eta), expit(-x - eta)
        return np.column_stack([1 - p1 - p2, p1, p2])
