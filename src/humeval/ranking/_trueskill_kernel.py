"""Compiled TrueSkill updates (Herbrich, Minka & Graepel 2007), one player per team.

The k-way update follows the factor-graph schedule of the reference ``trueskill`` package
(Heungsub Lee), with Gaussian messages in natural parameters (π = 1/σ², τ = μ/σ²): priors,
performances and team performances are sent down once; the chain of team differences is swept
forward and backward (up to 10 times, until no truncation message moves by more than
``min_delta``); then everything is sent back up. Teams are sorted by rank (stably); adjacent
teams with equal rank get a draw factor. The normal CDF and PDF are exact (``math.erfc``).
"""

from __future__ import annotations

import math

import numba
import numpy as np

SQRT2 = math.sqrt(2.0)
INV_SQRT2 = 1.0 / SQRT2
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@numba.njit(cache=True)
def _cdf(x):
    return 0.5 * math.erfc(-x * INV_SQRT2)  # a product, not a division: the divider is the update's bottleneck


@numba.njit(cache=True)
def _pdf(x):
    return INV_SQRT_2PI * math.exp(-0.5 * x * x)


@numba.njit(cache=True)
def _vw(diff, margin, draw):
    """The V and W functions of a truncated Gaussian (win: diff > margin; draw: |diff| < margin)."""
    if not draw:
        x = diff - margin
        denom = _cdf(x)
        v = _pdf(x) / denom if denom > 0.0 else -x
        return v, v * (v + x)
    a, b = margin - abs(diff), -margin - abs(diff)
    denom = _cdf(a) - _cdf(b)
    if denom <= 0.0:
        v = a
        w = 1.0
    else:
        pa, pb, inv = _pdf(a), _pdf(b), 1.0 / denom
        v = (pb - pa) * inv
        w = v * v + (a * pa - b * pb) * inv
    return (-v if diff < 0 else v), w


@numba.njit(cache=True)
def _set(value, i, pi, tau):
    """Set a variable's value, returning the change as the reference package measures it."""
    dpi = abs(value[i, 0] - pi)
    delta = 0.0 if math.isinf(dpi) else max(abs(value[i, 1] - tau), math.sqrt(dpi))
    value[i, 0] = pi
    value[i, 1] = tau
    return delta


@numba.njit(cache=True)
def _update_message(value, i, msg, m, pi, tau):
    """Replace the message ``msg[m]`` a factor sends to variable ``value[i]``."""
    new_pi = value[i, 0] - msg[m, 0] + pi
    new_tau = value[i, 1] - msg[m, 1] + tau
    msg[m, 0] = pi
    msg[m, 1] = tau
    return _set(value, i, new_pi, new_tau)


@numba.njit(cache=True)
def _update_value(value, i, msg, m, pi, tau):
    """Set variable ``value[i]`` and make the factor's message ``msg[m]`` consistent with it."""
    msg[m, 0] = pi + msg[m, 0] - value[i, 0]
    msg[m, 1] = tau + msg[m, 1] - value[i, 1]
    return _set(value, i, pi, tau)


@numba.njit(cache=True)
def _mu_of(pi, tau):
    return tau / pi if pi != 0.0 else 0.0


@numba.njit(cache=True)
def _sum_update(target_value, t, target_msg, m, vals_pi, vals_tau, coeffs):
    """SumFactor.update: the message to ``target`` from terms given as (value / message) pairs."""
    pi_inv = 0.0
    mu = 0.0
    for k in range(len(coeffs)):
        mu += coeffs[k] * _mu_of(vals_pi[k], vals_tau[k])
        if math.isinf(pi_inv):
            continue
        if vals_pi[k] == 0.0:
            pi_inv = math.inf
        else:
            pi_inv += coeffs[k] ** 2 / vals_pi[k]
    pi = 1.0 / pi_inv
    return _update_message(target_value, t, target_msg, m, pi, pi * mu)


@numba.njit(cache=True)
def rate_ranking(mu, sigma, ranks, beta, dynamic, margin, min_delta):  # pragma: no cover - compiled
    """New (mu, sigma) of k single-player teams after one match with the given ranks (lower is
    better, equal ranks draw). ``margin`` is the draw margin of a two-player difference."""
    k = len(mu)
    order = np.argsort(ranks, kind="mergesort")
    # variables: rating R, performance P, team performance T, difference D; messages per factor
    R, P, T, D = np.zeros((k, 2)), np.zeros((k, 2)), np.zeros((k, 2)), np.zeros((k - 1, 2))
    m_prior_R, m_like_R, m_like_P, m_team_P, m_team_T = (np.zeros((k, 2)), np.zeros((k, 2)), np.zeros((k, 2)),
                                                        np.zeros((k, 2)), np.zeros((k, 2)))
    m_diff_Tl, m_diff_Tr, m_diff_D, m_trunc_D = np.zeros((k - 1, 2)), np.zeros((k - 1, 2)), np.zeros((k - 1, 2)), \
        np.zeros((k - 1, 2))
    beta2 = beta * beta
    for i in range(k):  # priors down
        s2 = sigma[order[i]] ** 2 + dynamic ** 2
        _update_value(R, i, m_prior_R, i, 1.0 / s2, mu[order[i]] / s2)
    for i in range(k):  # likelihoods down
        mpi, mtau = R[i, 0] - m_like_R[i, 0], R[i, 1] - m_like_R[i, 1]
        a = 1.0 / (1.0 + beta2 * mpi)
        _update_message(P, i, m_like_P, i, a * mpi, a * mtau)
    one = np.ones(1)
    vp, vt = np.zeros(2), np.zeros(2)
    for i in range(k):  # team sums down (one player, coefficient 1)
        vp[0], vt[0] = P[i, 0] - m_team_P[i, 0], P[i, 1] - m_team_P[i, 1]
        _sum_update(T, i, m_team_T, i, vp[:1], vt[:1], one)
    pm = np.array([1.0, -1.0])
    draws = np.empty(k - 1, dtype=np.bool_)
    for x in range(k - 1):
        draws[x] = ranks[order[x]] == ranks[order[x + 1]]

    def diff_down(x):
        vp[0], vt[0] = T[x, 0] - m_diff_Tl[x, 0], T[x, 1] - m_diff_Tl[x, 1]
        vp[1], vt[1] = T[x + 1, 0] - m_diff_Tr[x, 0], T[x + 1, 1] - m_diff_Tr[x, 1]
        _sum_update(D, x, m_diff_D, x, vp, vt, pm)

    def trunc_up(x):
        dpi, dtau = D[x, 0] - m_trunc_D[x, 0], D[x, 1] - m_trunc_D[x, 1]
        sqrt_pi = math.sqrt(dpi)
        v, w = _vw(dtau / sqrt_pi, margin * sqrt_pi, draws[x])
        denom = 1.0 - w
        return _update_value(D, x, m_trunc_D, x, dpi / denom, (dtau + sqrt_pi * v) / denom)

    def diff_up(x, index):
        # message to team x (index 0, coefficient +1) or team x+1 (index 1, coefficient -1)
        cd = np.empty(2)
        vp[0], vt[0] = D[x, 0] - m_diff_D[x, 0], D[x, 1] - m_diff_D[x, 1]
        if index == 0:
            cd[0], cd[1] = 1.0, 1.0  # 1/c, -c_other/c with c = +1, c_other = -1
            vp[1], vt[1] = T[x + 1, 0] - m_diff_Tr[x, 0], T[x + 1, 1] - m_diff_Tr[x, 1]
            return _sum_update(T, x, m_diff_Tl, x, vp, vt, cd)
        cd[0], cd[1] = 1.0, -1.0  # with c = -1: -c_other/c = 1 for team x, 1/c = -1 for the sum
        vp[1], vt[1] = vp[0], vt[0]
        vp[0], vt[0] = T[x, 0] - m_diff_Tl[x, 0], T[x, 1] - m_diff_Tl[x, 1]
        return _sum_update(T, x + 1, m_diff_Tr, x, vp, vt, cd)

    for _ in range(10):
        delta = 0.0
        if k == 2:
            diff_down(0)
            delta = trunc_up(0)
        else:
            for x in range(k - 2):  # forward over all but the last difference
                diff_down(x)
                delta = max(delta, trunc_up(x))
                diff_up(x, 1)
            for x in range(k - 2, 0, -1):  # backward over all but the first
                diff_down(x)
                delta = max(delta, trunc_up(x))
                diff_up(x, 0)
        if delta <= min_delta:
            break
    diff_up(0, 0)
    diff_up(k - 2, 1)
    for i in range(k):  # team sums up to the performance
        vp[0], vt[0] = T[i, 0] - m_team_T[i, 0], T[i, 1] - m_team_T[i, 1]
        _sum_update(P, i, m_team_P, i, vp[:1], vt[:1], one)
    for i in range(k):  # likelihoods up to the rating
        mpi, mtau = P[i, 0] - m_like_P[i, 0], P[i, 1] - m_like_P[i, 1]
        a = 1.0 / (1.0 + beta2 * mpi)
        _update_message(R, i, m_like_R, i, a * mpi, a * mtau)
    new_mu, new_sigma = np.empty(k), np.empty(k)
    for i in range(k):
        new_mu[order[i]] = R[i, 1] / R[i, 0]
        new_sigma[order[i]] = math.sqrt(1.0 / R[i, 0])
    return new_mu, new_sigma


@numba.njit(cache=True)
def rate_pair(mu, sigma, a, b, outcome, beta, dynamic, margin):  # pragma: no cover - compiled
    """One two-player match in place: outcome 1 = a wins, 2 = b wins, 0 = draw. The closed form
    of the schedule above for k = 2 (Herbrich et al. 2007, Table 1)."""
    if outcome == 2:
        a, b = b, a
    sa2 = sigma[a] ** 2 + dynamic ** 2
    sb2 = sigma[b] ** 2 + dynamic ** 2
    c2 = 2.0 * beta * beta + sa2 + sb2
    c = math.sqrt(c2)
    v, w = _vw((mu[a] - mu[b]) / c, margin / c, outcome == 0)
    mu[a] += sa2 / c * v
    mu[b] -= sb2 / c * v
    sigma[a] = math.sqrt(sa2 * (1.0 - sa2 / c2 * w))
    sigma[b] = math.sqrt(sb2 * (1.0 - sb2 / c2 * w))


@numba.njit(cache=True)
def play(mu, sigma, a, b, outcome, order, beta, dynamic, margin):  # pragma: no cover - compiled
    """Replay the matches ``order`` (indices into a, b, outcome) in place."""
    for i in order:
        rate_pair(mu, sigma, a[i], b[i], outcome[i], beta, dynamic, margin)


@numba.njit(cache=True)
def _splitmix(state):
    state = (state + np.uint64(0x9E3779B97F4A7C15))
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@numba.njit(cache=True)
def _uniform_int(state, n):
    state, z = _splitmix(state)
    return state, np.int64(z % np.uint64(n))


@numba.njit(cache=True, inline="always")
def _uniform_below(state, n):
    """A uniform integer in [0, n) for n < 2³², by multiplying the top 32 random bits by n and
    keeping the top 32 bits of the product (Lemire 2019; bias below n / 2³²): no division, which
    would compete with the update's square root and divisions for the divider."""
    state, z = _splitmix(state)
    return state, np.int64(((z >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@numba.njit(cache=True)
def _store(out_mu, out_sigma, r, mu, sigma, played):  # pragma: no cover - compiled
    """Row r of a bootstrap's output: the ratings, NaN for systems the run never played."""
    for s in range(len(mu)):
        out_mu[r, s] = mu[s] if played[s] else np.nan
        out_sigma[r, s] = sigma[s] if played[s] else np.nan


LANES = 8  # bootstrap runs one thread plays side by side (independent chains the CPU overlaps)


def pack_matches(a, b, outcome) -> np.ndarray:
    """Every comparison as one integer, winner first: ``w | l << 15 | draw << 30`` (int32, up to
    32,768 systems; int64 ``w | l << 31 | draw << 62`` beyond). One load per replayed match
    instead of three, and a quarter of the memory: the replay reads the comparisons in random
    order, so it is bound by cache misses before it is bound by arithmetic."""
    a, b, outcome = (np.asarray(x, dtype=np.int64) for x in (a, b, outcome))
    winner, loser = np.where(outcome == 2, b, a), np.where(outcome == 2, a, b)
    draw = (outcome == 0).astype(np.int64)
    n = int(max(a.max(initial=0), b.max(initial=0))) + 1
    if n <= 1 << 15:
        return (winner | loser << 15 | draw << 30).astype(np.int32)
    return winner | loser << 31 | draw << 62


@numba.njit(cache=True, inline="always")
def _unpack(codes, i):
    code = codes[i]
    if codes.itemsize == 4:
        return np.int64(code & 0x7FFF), np.int64((code >> 15) & 0x7FFF), (code >> 30) & 1
    return np.int64(code & 0x7FFFFFFF), np.int64((code >> 31) & 0x7FFFFFFF), (code >> 62) & 1


TERMS = 7  # Taylor terms of φ and Φ in the bootstrap's cache (``_normal_at``)


@numba.njit(cache=True)
def _expand(x0, cache, slot):  # pragma: no cover - compiled
    """Centre the slot's Taylor series of φ and Φ at x0: φ' = −xφ gives, with h = x − x0,
    φ = Σ p_k h^k, p_0 = φ(x0), (k + 1) p_{k+1} = −(x0 p_k + p_{k−1}); Φ' = φ gives Φ_0 = Φ(x0),
    Φ_k = p_{k−1} / k. Radius 0.002 / (1 + |x0|): the terms fall by a factor ≤ 0.006 each, so
    ``TERMS`` of them agree with ``_pdf``/``_cdf`` to 1e-14 (relative) for |x| ≤ 8 and 2e-13 in
    the far tails, where φ's own conditioning (|x| · ulp) is of that size (a test checks)."""
    cache[slot, 0] = x0
    cache[slot, 1] = 0.002 / (1.0 + abs(x0))
    phi, cdf = 2, 2 + TERMS
    cache[slot, phi] = _pdf(x0)
    cache[slot, phi + 1] = -x0 * cache[slot, phi]
    for k in range(1, TERMS - 1):
        cache[slot, phi + k + 1] = -(x0 * cache[slot, phi + k] + cache[slot, phi + k - 1]) / (k + 1)
    cache[slot, cdf] = _cdf(x0)
    for k in range(1, TERMS):
        cache[slot, cdf + k] = cache[slot, phi + k - 1] / k


@numba.njit(cache=True, inline="always")
def _normal_at(x, cache, slot):  # pragma: no cover - compiled
    """(φ(x), Φ(x)) from the slot's Taylor series (``_expand``), centred anew at x (exactly
    ``_pdf``, ``_cdf`` there) when x is outside its radius. In a bootstrap with WMT's β the
    arguments barely move (c ≈ √2 β for every match), so the series is re-centred rarely and an
    update costs polynomials instead of erfc and exp."""
    h = x - cache[slot, 0]
    if not abs(h) <= cache[slot, 1]:
        _expand(x, cache, slot)
        h = 0.0
    phi, cdf = 2, 2 + TERMS
    p = cache[slot, phi + TERMS - 1]
    q = cache[slot, cdf + TERMS - 1]
    for k in range(TERMS - 2, -1, -1):
        p = p * h + cache[slot, phi + k]
        q = q * h + cache[slot, cdf + k]
    return p, q


@numba.njit(cache=True, inline="always")
def _vw_cached(diff, margin, draw, cache):  # pragma: no cover - compiled
    """``_vw`` with φ and Φ from the cached series: slot 0 the win's x, slots 1, 2 a draw's a, b."""
    if not draw:
        x = diff - margin
        pdf, cdf = _normal_at(x, cache, 0)
        v = pdf / cdf if cdf > 0.0 else -x
        return v, v * (v + x)
    a, b = margin - abs(diff), -margin - abs(diff)
    pa, ca = _normal_at(a, cache, 1)
    pb, cb = _normal_at(b, cache, 2)
    denom = ca - cb
    if denom <= 0.0:
        v = a
        w = 1.0
    else:
        inv = 1.0 / denom
        v = (pb - pa) * inv
        w = v * v + (a * pa - b * pb) * inv
    return (-v if diff < 0 else v), w


def new_cache() -> np.ndarray:
    """An empty ``_vw_cached`` cache (every slot re-centres on first use)."""
    cache = np.zeros((3, 2 + 2 * TERMS))
    cache[:, 0] = np.nan
    return cache


@numba.njit(cache=True, inline="always")
def _rate_variance(mu, var, lane, w, l, draw, two_beta2, dynamic2, margin, cache):  # pragma: no cover - compiled
    """``rate_pair`` on variances: ``var[lane, s]`` = σ² (no square root per update; σ once at the
    end). Winner ``w``, loser ``l`` (or a draw). The same arithmetic as ``rate_pair`` otherwise:
    c² = 2β² + σw² + σl²; t = (μw − μl)/c, ε = margin/c; μw += σw²/c·v, μl −= σl²/c·v;
    σ² ← σ²(1 − σ²/c²·w) (Herbrich et al. 2007, Table 1)."""
    sw2 = var[lane, w] + dynamic2
    sl2 = var[lane, l] + dynamic2
    c2 = two_beta2 + sw2 + sl2
    inv_c = 1.0 / math.sqrt(c2)
    v, wv = _vw_cached((mu[lane, w] - mu[lane, l]) * inv_c, margin * inv_c, draw != 0, cache)
    mu[lane, w] += sw2 * inv_c * v
    mu[lane, l] -= sl2 * inv_c * v
    inv_c2 = inv_c * inv_c
    var[lane, w] = sw2 * (1.0 - sw2 * inv_c2 * wv)
    var[lane, l] = sl2 * (1.0 - sl2 * inv_c2 * wv)


@numba.njit(cache=True, parallel=True)
def bootstrap_play(n_systems, mu0, sigma0, codes, unit_start, unit_order, n_units, seeds,
                   beta, dynamic, margin):  # pragma: no cover - compiled
    """Many bootstrap runs in parallel: each draws ``n_units`` units with replacement (a unit is a
    run of comparisons ``unit_order[unit_start[u]:unit_start[u + 1]]``, e.g. one comparison, one
    judge's or one segment's; ``unit_order`` empty = unit u is comparison u) and replays them in
    the order drawn. ``codes`` are the comparisons packed by ``pack_matches``. Systems with no
    match in a run get NaN. Run r depends on ``seeds[r]`` alone (a counter-based generator per
    run), so neither the thread count nor the grouping of runs changes any number.

    Speed: ``LANES`` runs advance side by side in one thread (each draws its next unit, then the
    next run does): their update chains are independent, so the CPU overlaps their square roots
    and divisions instead of waiting on one chain's latency; the states are variances; φ and Φ
    come from Taylor series the thread keeps (``_vw_cached``), re-centred only when an argument
    leaves their radius."""
    runs = len(seeds)
    out_mu = np.empty((runs, n_systems))
    out_sigma = np.empty((runs, n_systems))
    identity = len(unit_order) == 0
    two_beta2 = 2.0 * beta * beta
    dynamic2 = dynamic * dynamic
    groups = (runs + LANES - 1) // LANES
    for g in numba.prange(groups):
        first = g * LANES
        lanes = min(LANES, runs - first)
        mu = np.full((LANES, n_systems), mu0)
        var = np.full((LANES, n_systems), sigma0 * sigma0)
        played = np.zeros((LANES, n_systems), dtype=np.bool_)
        state = np.empty(LANES, dtype=np.uint64)
        cache = np.zeros((3, 2 + 2 * TERMS))
        cache[:, 0] = np.nan
        for lane in range(lanes):
            state[lane] = np.uint64(seeds[first + lane])
        for _ in range(n_units):
            for lane in range(lanes):
                s, u = _uniform_below(state[lane], n_units)
                state[lane] = s
                if identity:
                    w, l, draw = _unpack(codes, u)
                    _rate_variance(mu, var, lane, w, l, draw, two_beta2, dynamic2, margin, cache)
                    played[lane, w] = True
                    played[lane, l] = True
                else:
                    for j in range(unit_start[u], unit_start[u + 1]):
                        w, l, draw = _unpack(codes, unit_order[j])
                        _rate_variance(mu, var, lane, w, l, draw, two_beta2, dynamic2, margin, cache)
                        played[lane, w] = True
                        played[lane, l] = True
        for lane in range(lanes):
            for s in range(n_systems):
                ok = played[lane, s]
                out_mu[first + lane, s] = mu[lane, s] if ok else np.nan
                out_sigma[first + lane, s] = math.sqrt(var[lane, s]) if ok else np.nan
    return out_mu, out_sigma


def first_on_ties(n: int) -> np.ndarray:
    """``active_play``'s priority that picks the first system (lowest index) among equal σ."""
    return np.arange(n, 0, -1, dtype=np.int64)


@numba.njit(cache=True)
def _uniform(state):
    state, z = _splitmix(state)
    return state, (z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@numba.njit(cache=True)
def active_play(mu, sigma, a, b, outcome, pair_start, pair_rows, n_matches, seed, beta, dynamic,
                margin, priority):  # pragma: no cover - compiled
    """Sakaguchi, Post & Van Durme (2014): ``n_matches`` times, take the system with the largest
    σ (on ties, the one with the largest ``priority``: ``first_on_ties`` picks the first; WMT's
    scripts the largest name), draw an opponent t among the systems it has judgments with, with
    probability ∝ exp(−|μ_s − μ_t|), and replay a random observed judgment of that pair.
    ``pair_rows[pair_start[s * n + t]:pair_start[s * n + t + 1]]`` lists the comparisons of s and t.
    Returns how often each comparison was replayed."""
    n = len(mu)
    used = np.zeros(len(a), dtype=np.int64)
    weights = np.empty(n)
    state = np.uint64(seed)
    for _ in range(n_matches):
        s = 0
        for i in range(1, n):
            if sigma[i] > sigma[s] or (sigma[i] == sigma[s] and priority[i] > priority[s]):
                s = i
        total = 0.0
        for t in range(n):
            cell = s * n + t
            has = pair_start[cell + 1] > pair_start[cell]
            weights[t] = math.exp(-abs(mu[s] - mu[t])) if (t != s and has) else 0.0
            total += weights[t]
        if total == 0.0:
            sigma[s] = 0.0  # nothing to compare it with: never pick it again
            continue
        state, u = _uniform(state)
        u *= total
        t = 0
        acc = weights[0]
        while acc < u and t < n - 1:
            t += 1
            acc += weights[t]
        while weights[t] == 0.0:  # guard against rounding at the end
            t -= 1
        cell = s * n + t
        state, j = _uniform_int(state, pair_start[cell + 1] - pair_start[cell])
        i = pair_rows[pair_start[cell] + j]
        rate_pair(mu, sigma, a[i], b[i], outcome[i], beta, dynamic, margin)
        used[i] += 1
    return used


@numba.njit(cache=True)
def resample_rows(seed, unit_start, unit_order, n_units, n_rows):  # pragma: no cover - compiled
    """The rows of one bootstrap resample: draw ``n_units`` units with replacement (the counter-based
    generator seeded with ``seed``) and repeat every row as often as its unit was drawn, rows in
    their original order (``np.repeat(np.arange(n_rows), drawn[unit])``)."""
    drawn = np.zeros(n_units, dtype=np.int64)
    state = np.uint64(seed)
    for _ in range(n_units):
        state, u = _uniform_int(state, n_units)
        drawn[u] += 1
    times = np.zeros(n_rows, dtype=np.int64)
    for u in range(n_units):
        for j in range(unit_start[u], unit_start[u + 1]):
            times[unit_order[j]] = drawn[u]
    rows = np.empty(times.sum(), dtype=np.int64)
    k = 0
    for i in range(n_rows):
        for _ in range(times[i]):
            rows[k] = i
            k += 1
    return rows


@numba.njit(cache=True)
def pair_lists(a, b, rows, n):  # pragma: no cover - compiled
    """``trueskill.pair_index`` of the comparisons ``rows`` (indices into a, b), listing original
    comparison indices: per cell s * n + t, first the rows with (a, b) = (s, t), then those with
    (b, a) = (s, t), each in the order of ``rows``."""
    start = np.zeros(n * n + 1, dtype=np.int64)
    for i in rows:
        start[a[i] * n + b[i] + 1] += 1
        start[b[i] * n + a[i] + 1] += 1
    for cell in range(n * n):
        start[cell + 1] += start[cell]
    fill = start[:-1].copy()
    out = np.empty(2 * len(rows), dtype=np.int64)
    for i in rows:
        cell = a[i] * n + b[i]
        out[fill[cell]] = i
        fill[cell] += 1
    for i in rows:
        cell = b[i] * n + a[i]
        out[fill[cell]] = i
        fill[cell] += 1
    return start, out


@numba.njit(cache=True, parallel=True)
def bootstrap_active_play(n_systems, mu0, sigma0, a, b, outcome, unit_start, unit_order, n_units, seeds,
                          play_seeds, n_matches, beta_fixed, margin_per_beta, dynamic, extra_matches,
                          resample, priority):  # pragma: no cover - compiled
    """Bootstrap runs of Sakaguchi's active sampling, in parallel. Run r refits the resample
    ``resample_rows(seeds[r], …)`` (all comparisons, once each, if not ``resample``) exactly as
    ``TrueSkill(order="active")`` would with a kernel seed ``play_seeds[r]``: ``n_matches`` (or,
    if negative, the resample's size + ``extra_matches``) active matches, β = ``beta_fixed`` (or,
    if NaN, σ0 · matches / 40) and draw margin ``margin_per_beta`` · β; ties of σ go to the
    largest ``priority``. Systems without a comparison in the resample get NaN."""
    runs = len(seeds)
    out_mu = np.empty((runs, n_systems))
    out_sigma = np.empty((runs, n_systems))
    for r in numba.prange(runs):
        rows = resample_rows(seeds[r], unit_start, unit_order, n_units, len(a)) if resample else \
            np.arange(len(a))
        start, pair_rows = pair_lists(a, b, rows, n_systems)
        matches = len(rows) + extra_matches if n_matches < 0 else n_matches
        beta = sigma0 * (matches / 40.0) if math.isnan(beta_fixed) else beta_fixed
        mu = np.full(n_systems, mu0)
        sigma = np.full(n_systems, sigma0)
        active_play(mu, sigma, a, b, outcome, start, pair_rows, matches, play_seeds[r], beta, dynamic,
                    margin_per_beta * beta, priority)
        played = np.zeros(n_systems, dtype=np.bool_)
        for i in rows:
            played[a[i]] = True
            played[b[i]] = True
        _store(out_mu, out_sigma, r, mu, sigma, played)
    return out_mu, out_sigma


@numba.njit(cache=True)
def elo_play(rating, a, b, outcome, order, k, base, scale):  # pragma: no cover - compiled
    """Online Elo in place: E_a = 1 / (1 + base^((R_b − R_a) / scale)); R_a += k (S_a − E_a)."""
    for i in order:
        ra, rb = rating[a[i]], rating[b[i]]
        expected = 1.0 / (1.0 + base ** ((rb - ra) / scale))
        score = 1.0 if outcome[i] == 1 else (0.0 if outcome[i] == 2 else 0.5)
        rating[a[i]] = ra + k * (score - expected)
        rating[b[i]] = rb - k * (score - expected)
