"""Compiled loops for ratings: the all-pairs rank-sum statistics and the bootstrap replays."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, parallel=True)
def rank_sum_all_pairs(values, start, stop):  # pragma: no cover - compiled
    """U statistics and tie terms of every ordered pair of groups.

    ``values[start[g]:stop[g]]`` is group g's sample, sorted ascending. For groups a, b:
    U[a, b] = #{x_a > x_b} + ½ #{x_a = x_b} (Mann–Whitney's U of a), and tie[a, b] =
    Σ_t (t³ − t) over the tie groups of the pooled sample. One merge walk per pair.
    """
    k = len(start)
    u = np.zeros((k, k))
    tie = np.zeros((k, k))
    for a in numba.prange(k):
        for b in range(k):
            if a == b:
                continue
            i, j = start[a], start[b]
            ia, ib = stop[a], stop[b]
            ua = 0.0
            tt = 0.0
            while i < ia or j < ib:
                if j >= ib or (i < ia and values[i] < values[j]):
                    v = values[i]
                elif i >= ia or values[j] < values[i]:
                    v = values[j]
                else:
                    v = values[i]
                ca = 0
                while i < ia and values[i] == v:
                    ca += 1
                    i += 1
                cb_before = j - start[b]
                cb = 0
                while j < ib and values[j] == v:
                    cb += 1
                    j += 1
                ua += ca * cb_before + 0.5 * ca * cb
                t = ca + cb
                tt += t * t * t - t
            u[a, b] = ua
            tie[a, b] = tt
    return u, tie


@numba.njit(cache=True)
def _times_drawn(draws, n):  # pragma: no cover - compiled
    """How often each of 0..n-1 occurs in one row of draws (a unit drawn k times weighs k)."""
    weight = np.zeros(n)
    for t in range(len(draws)):
        weight[draws[t]] += 1.0
    return weight


@numba.njit(cache=True)
def _group_means(group, weight, value, k):  # pragma: no cover - compiled
    """Σ w x / Σ w per group 0..k-1 (NaN where the weights sum to 0)."""
    num = np.zeros(k)
    den = np.zeros(k)
    for c in range(len(group)):
        num[group[c]] += weight[c] * value[c]
        den[group[c]] += weight[c]
    out = np.full(k, np.nan)
    for g in range(k):
        if den[g] > 0:
            out[g] = num[g] / den[g]
    return out


@numba.njit(cache=True, parallel=True)
def bootstrap_cells(draws, cell_item, cell_system, cell_value, n_items, n_systems):  # pragma: no cover
    """System means for each row of ``draws`` (resampled segment indices): a segment drawn k
    times counts k times; score_s = Σ_i k_i m_si / Σ_i k_i over the segments s was rated on."""
    out = np.empty((draws.shape[0], n_systems))
    for b in numba.prange(draws.shape[0]):
        weight = _times_drawn(draws[b], n_items)
        out[b] = _group_means(cell_system, weight[cell_item], cell_value, n_systems)
    return out


@numba.njit(cache=True, parallel=True)
def bootstrap_ratings(item_draws, judge_draws, rating_cell, rating_judge, value, cell_item, cell_system,
                      n_items, n_judges, n_systems):  # pragma: no cover - compiled
    """System means when annotators (and optionally segments) are resampled.

    Each rating weighs v_j (times annotator j was drawn): cell mean = Σ v_j x_r / Σ v_j; a
    system's score = Σ_c w_i(c) mean_c / Σ_c w_i(c) over cells with some weight, where w_i is
    the times segment i was drawn (all 1 when ``item_draws`` has no columns).
    """
    out = np.empty((judge_draws.shape[0], n_systems))
    for b in numba.prange(judge_draws.shape[0]):
        v = _times_drawn(judge_draws[b], n_judges)
        w = _times_drawn(item_draws[b], n_items) if item_draws.shape[1] > 0 else np.ones(n_items)
        cell_mean = _group_means(rating_cell, v[rating_judge], value, len(cell_item))
        weight = w[cell_item]
        for c in range(len(cell_mean)):
            if np.isnan(cell_mean[c]):
                weight[c] = 0.0
                cell_mean[c] = 0.0
        out[b] = _group_means(cell_system, weight, cell_mean, n_systems)
    return out
