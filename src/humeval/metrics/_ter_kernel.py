"""Compiled translation edit rate: sacrebleu's TER search on integer token ids, same numbers.

TER (Snover et al. 2006, "A Study of Translation Edit Rate with Targeted Human Annotation",
AMTA) is the fewest edits — insertions, deletions, substitutions of one word and shifts of a
contiguous block — turning the hypothesis into the reference, over the reference's length:
``TER = (shifts + edit distance after the shifts) / |reference|``. The shifts are found
greedily, as Tercom does: each round tries the candidate shifts and applies the one that
lowers the edit distance most, until none does. This module follows sacrebleu's
``sacrebleu/metrics/lib_ter.py`` (``translation_edit_rate``, after Tercom) step for step, so
its edit counts are sacrebleu's (tests compare them on hand cases, random sequences and real
data), with the words replaced by integer ids (only equality between words matters):

- ``BeamEditDistance``: the Levenshtein matrix is filled only in a band of ``_BEAM_WIDTH`` = 25
  cells either side of the pseudo-diagonal ``⌊i · |ref| / |hyp|⌋`` (widened to
  ``⌈ratio / 2 + 25⌉`` when the length ratio exceeds 50), the last row in full; cells outside
  the band stay at "infinity"; ties go to substitution/match, then deletion, then insertion
  (each replaces only a strictly larger cost, as sacrebleu's ``>``);
- the trace read back from the last cell, flipped (insertions ↔ deletions) and turned into an
  alignment with the error flags of both sides (``trace_to_alignment``);
- ``_find_shifted_pairs``: matching blocks of at most 10 words whose starts are at most 50
  apart, enumerated by hypothesis start, reference start, length; a block is tried only when
  part of it is wrong on both sides and the reference position is not aligned inside it; each
  target position ``align[start_r + offset] + 1`` (0 before the beginning) once;
- the ranking of candidates (gain, length, −start in the hypothesis, −target) and
  ``_perform_shift``'s three cases;
- the cap of 1,000 candidates counted across rounds: ``_shift`` stops enumerating after a block
  whose candidates reach it, and ``translation_edit_rate`` then stops *without* applying that
  round's best shift.

sacrebleu caches matrix rows in a trie keyed by the hypothesis prefix; here a candidate's edit
distance restarts from row ``min(start, target)`` of the current hypothesis' matrix instead. That
is exact for the same reason the trie is: every shifted hypothesis of a segment has the
hypothesis' length, so the band of each row is the same, and row ``i`` depends only on the
first ``i`` words, which a shift leaves unchanged up to ``min(start, target)``.

A pair whose trace would reach a cell outside the band (sacrebleu raises there) is returned as
−1 and left to sacrebleu's Python by the caller.
"""

from __future__ import annotations

import math

import numba
import numpy as np

_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_BEAM_WIDTH = 25
_MAX_SHIFT_CANDIDATES = 1000
_INF = 10 ** 16  # sacrebleu's _INT_INFINITY

NOP, SUB, INS, DEL, UNDEF = 0, 1, 2, 3, 4  # sacrebleu's ' ', 's', 'i', 'd', 'x'


@numba.njit(cache=True)
def _row(i, word, ref, prev, cur, op, n_h, ratio, beam):  # pragma: no cover - compiled
    """Row ``i`` of the beam edit-distance matrix (``cur``, its operations ``op``) from row i − 1."""
    n_r = ref.shape[0]
    for j in range(n_r + 1):
        cur[j] = _INF
        op[j] = UNDEF
    pseudo_diag = math.floor(i * ratio)
    min_j = max(0, pseudo_diag - beam)
    max_j = n_r + 1 if i == n_h else min(n_r + 1, pseudo_diag + beam)  # the last row in full
    for j in range(min_j, max_j):
        if j == 0:
            cur[0] = prev[0] + 1
            op[0] = DEL
            continue
        best = _INF
        best_op = UNDEF
        # sacrebleu's order (match/substitution, deletion, insertion), each taken only when
        # strictly cheaper: Tercom's preference with insertion and deletion swapped, because the
        # trace is flipped before the alignment is read from it
        c = prev[j - 1] + (0 if word == ref[j - 1] else 1)
        if best > c:
            best = c
            best_op = NOP if word == ref[j - 1] else SUB
        c = prev[j] + 1
        if best > c:
            best = c
            best_op = DEL
        c = cur[j - 1] + 1
        if best > c:
            best = c
            best_op = INS
        cur[j] = best
        op[j] = best_op


@numba.njit(cache=True)
def _final_cost(words, ref, start, r0, ratio, beam, a, b, op):  # pragma: no cover - compiled
    """Edit distance of ``words`` whose matrix rows 0…r0 equal those of a computed matrix
    (``start`` = its row r0): only the rows below are computed, two at a time."""
    n_h = words.shape[0]
    prev = start
    for i in range(r0 + 1, n_h + 1):
        cur = a if (i - r0) % 2 == 1 else b
        _row(i, words[i - 1], ref, prev, cur, op, n_h, ratio, beam)
        prev = cur
    return prev[ref.shape[0]]


@numba.njit(cache=True)
def _shift_into(words, start, length, target, out):  # pragma: no cover - compiled
    """sacrebleu's ``_perform_shift``: the block ``words[start:start+length]`` moved before ``target``.

    Each of its three cases turns ``words[lo:hi]`` into ``words[mid:hi] + words[lo:mid]``:
    target < start: (lo, mid, hi) = (target, start, start + length); target > start + length:
    (start, start + length, target); else (a target inside the block) sacrebleu's slices
    ``[start + length : length + target]`` clipped at the end: (start, start + length,
    min(length + target, n))."""
    n = words.shape[0]
    if target < start:
        lo, mid, hi = target, start, start + length
    elif target > start + length:
        lo, mid, hi = start, start + length, target
    else:
        lo, mid, hi = start, start + length, min(length + target, n)
    tail = hi - mid
    for x in range(n):
        if x < lo or x >= hi:
            out[x] = words[x]
        elif x < lo + tail:
            out[x] = words[mid + x - lo]
        else:
            out[x] = words[x - tail]


@numba.njit(cache=True)
def _better(score, length, start, target, best_score, best_length, best_start, best_target):  # pragma: no cover
    """sacrebleu's candidate order, the tuple (gain, length, −start, −target) compared with ``>``."""
    if score != best_score:
        return score > best_score
    if length != best_length:
        return length > best_length
    if start != best_start:
        return start < best_start
    return target < best_target


@numba.njit(cache=True)
def ter_edits(hyp, ref):  # pragma: no cover - compiled
    """Number of edits (shifts + edit distance) of sacrebleu's ``translation_edit_rate(hyp, ref)``
    on int32 token ids; −1 when sacrebleu would raise (the trace reaches a cell outside the beam)."""
    n_h = hyp.shape[0]
    n_r = ref.shape[0]
    if n_r == 0:
        return np.int64(n_h)  # sacrebleu: an empty reference costs one edit per hypothesis word
    ratio = n_r / n_h if n_h > 0 else 1.0
    beam = _BEAM_WIDTH
    if _BEAM_WIDTH < ratio / 2:  # very unequal lengths: widen so consecutive rows overlap
        beam = math.ceil(ratio / 2 + _BEAM_WIDTH)
    cost = np.empty((n_h + 1, n_r + 1), dtype=np.int64)
    op = np.empty((n_h + 1, n_r + 1), dtype=np.int8)
    for j in range(n_r + 1):
        cost[0, j] = j
        op[0, j] = INS
    a = np.empty(n_r + 1, dtype=np.int64)
    b = np.empty(n_r + 1, dtype=np.int64)
    op_scratch = np.empty(n_r + 1, dtype=np.int8)
    words = hyp.copy()
    shifted = np.empty_like(hyp)
    trace = np.empty(n_h + n_r, dtype=np.int8)
    align = np.empty(n_r, dtype=np.int64)
    hyp_err = np.zeros(n_h + 1, dtype=np.int64)  # cumulative: errors among the first k words
    ref_err = np.zeros(n_r + 1, dtype=np.int64)
    checked = 0
    shifts = 0
    valid = 0  # rows 0…valid of the matrix belong to `words`
    while True:
        for i in range(valid + 1, n_h + 1):
            _row(i, words[i - 1], ref, cost[i - 1], cost[i], op[i], n_h, ratio, beam)
        pre_score = cost[n_h, n_r]
        # the trace, last operation first
        i, j, k = n_h, n_r, 0
        while i > 0 or j > 0:
            o = op[i, j]
            trace[k] = o
            k += 1
            if o == SUB or o == NOP:
                i -= 1
                j -= 1
            elif o == INS:
                j -= 1
            elif o == DEL:
                i -= 1
            else:
                return np.int64(-1)
        # the flipped trace (deletions of hypothesis words read as insertions) → alignment
        pos_h, pos_r = -1, -1
        for t in range(k - 1, -1, -1):
            o = trace[t]
            if o == NOP or o == SUB:
                pos_h += 1
                pos_r += 1
                align[pos_r] = pos_h
                hyp_err[pos_h + 1] = hyp_err[pos_h] + (o == SUB)
                ref_err[pos_r + 1] = ref_err[pos_r] + (o == SUB)
            elif o == DEL:  # flipped: an insertion, a hypothesis word
                pos_h += 1
                hyp_err[pos_h + 1] = hyp_err[pos_h] + 1
            else:  # INS flipped: a deletion, a reference word
                pos_r += 1
                align[pos_r] = pos_h
                ref_err[pos_r + 1] = ref_err[pos_r] + 1

        best_score, best_length, best_start, best_idx = np.int64(0), 0, 0, 0
        found = False
        capped = False
        for start_h in range(n_h):
            for start_r in range(max(0, start_h - _MAX_SHIFT_DIST), min(n_r, start_h + _MAX_SHIFT_DIST + 1)):
                length = 0
                while length < _MAX_SHIFT_SIZE and words[start_h + length] == ref[start_r + length]:
                    length += 1
                    # the filters: part of the block wrong on both sides, and not shifted within itself
                    if (hyp_err[start_h + length] - hyp_err[start_h] > 0
                            and ref_err[start_r + length] - ref_err[start_r] > 0
                            and not (start_h <= align[start_r] < start_h + length)):
                        prev_idx = -1
                        for offset in range(-1, length):
                            idx = 0 if start_r + offset == -1 else align[start_r + offset] + 1
                            if idx == prev_idx:
                                continue
                            prev_idx = idx
                            _shift_into(words, start_h, length, idx, shifted)
                            r0 = min(start_h, idx)
                            c = _final_cost(shifted, ref, cost[r0], r0, ratio, beam, a, b, op_scratch)
                            if c >= _INF:
                                return np.int64(-1)
                            score = pre_score - c
                            checked += 1
                            if not found or _better(score, length, start_h, idx,
                                                    best_score, best_length, best_start, best_idx):
                                found = True
                                best_score, best_length, best_start, best_idx = score, length, start_h, idx
                        if checked >= _MAX_SHIFT_CANDIDATES:  # sacrebleu checks after a block's targets
                            capped = True
                            break
                    if n_h == start_h + length or n_r == start_r + length:
                        break
                if capped:
                    break
            if capped:
                break
        # sacrebleu stops on the cap before applying this round's best shift
        if checked >= _MAX_SHIFT_CANDIDATES or not found or best_score <= 0:
            break
        _shift_into(words, best_start, best_length, best_idx, shifted)
        words[:] = shifted
        shifts += 1
        valid = min(best_start, best_idx)
    return np.int64(shifts) + pre_score


@numba.njit(cache=True)
def ter_edits_many(tokens, offsets, hyp_of, ref_of):  # pragma: no cover - compiled
    """``ter_edits`` of the pairs (segment ``hyp_of[p]``, segment ``ref_of[p]``) of one int32 token
    stream cut at int64 ``offsets`` (segment s = tokens[offsets[s]:offsets[s + 1]])."""
    out = np.empty(hyp_of.shape[0], dtype=np.int64)
    for p in range(hyp_of.shape[0]):
        h, r = hyp_of[p], ref_of[p]
        out[p] = ter_edits(tokens[offsets[h]:offsets[h + 1]], tokens[offsets[r]:offsets[r + 1]])
    return out


def ter_statistics(metric, hypotheses, references) -> list[list]:
    """What ``metric._extract_corpus_statistics(hypotheses, references)`` returns for a sacrebleu
    ``TER`` metric: per hypothesis [the fewest edits over its references, the references' mean
    length], computed by ``ter_edits``. Segments are tokenized by the metric's own
    ``_preprocess_segment`` and split on whitespace as sacrebleu does (the references through
    ``_cache_references``, which also sets the signature's number of references)."""
    from sacrebleu.metrics.lib_ter import translation_edit_rate
    if not references:
        return metric._extract_corpus_statistics(hypotheses, references)  # sacrebleu's cached references or error
    ref_words = [info["ref_words"] for info in metric._cache_references(references)]
    hyp_words = [metric._preprocess_segment(h).split() for h in hypotheses]
    vocabulary: dict[str, int] = {}
    segments, hyp_of, ref_of = [], [], []
    for words_hyp, refs in zip(hyp_words, ref_words):
        h = len(segments)
        segments.append(words_hyp)
        for words_ref in refs:
            hyp_of.append(h)
            ref_of.append(len(segments))
            segments.append(words_ref)
    lengths = np.fromiter((len(s) for s in segments), dtype=np.int64, count=len(segments))
    offsets = np.zeros(len(segments) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    tokens = np.fromiter((vocabulary.setdefault(w, len(vocabulary)) for s in segments for w in s),
                         dtype=np.int32, count=int(offsets[-1]))
    edits = ter_edits_many(tokens, offsets, np.array(hyp_of, dtype=np.int64), np.array(ref_of, dtype=np.int64))
    stats, p = [], 0
    for words_hyp, refs in zip(hyp_words, ref_words):
        ref_lengths, best = 0, int(1e16)
        for words_ref in refs:
            n = int(edits[p])
            if n < 0:  # the trace left the beam: sacrebleu's own search (which raises there)
                n = translation_edit_rate(words_hyp, words_ref)[0]
            p += 1
            ref_lengths += len(words_ref)
            best = min(best, n)
        stats.append([best, ref_lengths / len(refs)])
    return stats
