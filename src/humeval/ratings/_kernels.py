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


@numba.njit(cache=True, parallel=True)
def bootstrap_cells(draws, cell_item, cell_system, cell_value, n_items, n_systems):  # pragma: no cover
    """System means for each row of ``draws`` (resampled segment indices): a segment drawn k
    times counts k times; score_s = Σ_i k_i m_si / Σ_i k_i over the segments s was rated on."""
    n_boot = draws.shape[0]
    out = np.full((n_boot, n_systems), np.nan)
    for b in numba.prange(n_boot):
        weight = np.zeros(n_items)
        for t in range(draws.shape[1]):
            weight[draws[b, t]] += 1.0
        num = np.zeros(n_systems)
        den = np.zeros(n_systems)
        for c in range(len(cell_item)):
            w = weight[cell_item[c]]
            num[cell_system[c]] += w * cell_value[c]
            den[cell_system[c]] += w
        for s in range(n_systems):
            if den[s] > 0:
                out[b, s] = num[s] / den[s]
    return out


@numba.njit(cache=True, parallel=True)
def bootstrap_ratings(item_draws, judge_draws, rating_cell, rating_judge, value, cell_item, cell_system,
                      n_items, n_judges, n_systems):  # pragma: no cover - compiled
    """System means when annotators (and optionally segments) are resampled.

    Each rating weighs v_j (times annotator j was drawn): cell mean = Σ v_j x_r / Σ v_j; a
    system's score = Σ_c w_i(c) mean_c / Σ_c w_i(c) over cells with some weight, where w_i is
    the times segment i was drawn (all 1 when ``item_draws`` has no columns).
    """
    n_boot = judge_draws.shape[0]
    n_cells = len(cell_item)
    out = np.full((n_boot, n_systems), np.nan)
    for b in numba.prange(n_boot):
        v = np.zeros(n_judges)
        for t in range(judge_draws.shape[1]):
            v[judge_draws[b, t]] += 1.0
        w = np.ones(n_items)
        if item_draws.shape[1] > 0:
            w[:] = 0.0
            for t in range(item_draws.shape[1]):
                w[item_draws[b, t]] += 1.0
        num = np.zeros(n_cells)
        den = np.zeros(n_cells)
        for r in range(len(value)):
            vj = v[rating_judge[r]]
            num[rating_cell[r]] += vj * value[r]
            den[rating_cell[r]] += vj
        snum = np.zeros(n_systems)
        sden = np.zeros(n_systems)
        for c in range(n_cells):
            if den[c] > 0:
                wi = w[cell_item[c]]
                snum[cell_system[c]] += wi * num[c] / den[c]
                sden[cell_system[c]] += wi
        for s in range(n_systems):
            if sden[s] > 0:
                out[b, s] = snum[s] / sden[s]
    return out
