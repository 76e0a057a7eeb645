"""Automatic baselines through sacrebleu, and HTER.

Every function returns scores together with sacrebleu's signature string, so a number can always
be reproduced: ``MetricScores(segment=…, corpus=…, signature=…)``.

- ``bleu``: corpus BLEU and sentence BLEU with effective order (Post 2018);
- ``chrf``: chrF (``word_order=0``) or chrF++ (``word_order=2``) (Popović 2015, 2017);
- ``ter``: TER (Snover et al. 2006), as a 0–1 edit rate per segment; sacrebleu's search compiled
  (``_ter_kernel``, the same edit counts);
- ``hter``: TER of each hypothesis against its targeted post-edit; with several post-editors the
  minimum, as Denkowski & Lavie (2010, §3.3) specify.

References: a list with one string per segment, or a list of such lists for several references.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humeval.data.tables import PostEdits


@dataclass
class MetricScores:
    segment: np.ndarray  # one score per hypothesis
    corpus: float
    signature: str  # of the corpus score
    name: str
    segment_signature: str = ""  # when the segment scores were computed differently (BLEU: effective order)


def _streams(references, n):
    if references and isinstance(references[0], str):
        references = [references]
    for stream in references:
        if len(stream) != n:
            raise ValueError(f"a reference stream has {len(stream)} segments, the hypotheses {n}")
    return [list(stream) for stream in references]


def bleu(hypotheses, references, **options) -> MetricScores:
    from sacrebleu.metrics import BLEU
    refs = _streams(references, len(hypotheses))
    corpus = BLEU(**options)
    sentence = BLEU(effective_order=True, **options)
    seg = np.array([sentence.sentence_score(h, [r[i] for r in refs]).score for i, h in enumerate(hypotheses)])
    total = corpus.corpus_score(list(hypotheses), refs)
    return MetricScores(seg, total.score, str(corpus.get_signature()), "BLEU", str(sentence.get_signature()))


def chrf(hypotheses, references, word_order: int = 0, **options) -> MetricScores:
    from sacrebleu.metrics import CHRF
    refs = _streams(references, len(hypotheses))
    metric = CHRF(word_order=word_order, **options)
    seg, total = _segments_and_corpus(metric, hypotheses, refs)
    return MetricScores(seg, total, str(metric.get_signature()), "chrF++" if word_order else "chrF")


def ter(hypotheses, references, **options) -> MetricScores:
    """Per-segment edit rate (edits / reference words, 0–1; lower is better); corpus TER likewise."""
    from sacrebleu.metrics import TER
    refs = _streams(references, len(hypotheses))
    metric = TER(**options)
    seg, total = _segments_and_corpus(metric, hypotheses, refs)
    return MetricScores(seg / 100, total / 100, str(metric.get_signature()), "TER")


def _statistics(metric, hypotheses, refs):
    """``metric._extract_corpus_statistics(hypotheses, refs)``; for TER the same numbers from the
    compiled search of ``_ter_kernel`` (equal to sacrebleu's by test, signature unchanged)."""
    from sacrebleu.metrics import TER
    if isinstance(metric, TER):
        from humeval.metrics._ter_kernel import ter_statistics
        return ter_statistics(metric, list(hypotheses), refs)
    return metric._extract_corpus_statistics(list(hypotheses), refs)


def _segments_and_corpus(metric, hypotheses, refs):
    """Sentence scores and the corpus score of a sacrebleu metric whose statistics add up over
    segments (chrF, TER), from one pass: each segment's statistics scored alone are its
    ``sentence_score``, their sum scored is ``corpus_score`` (sacrebleu computes both so; calling
    both would align every segment twice — TER's shifts search is most of ``hmeant --metrics``)."""
    stats = _statistics(metric, hypotheses, refs)
    seg = np.array([metric._compute_score_from_stats(row).score for row in stats])
    total = metric._compute_score_from_stats([sum(column) for column in zip(*stats)]).score if stats else \
        metric.corpus_score(list(hypotheses), refs).score
    return seg, total


def hter(post_edits: PostEdits, **options) -> pd.DataFrame:
    """HTER per (track, item, system): TER of the hypothesis against its post-edit, the minimum
    over post-editors (Denkowski & Lavie 2010, §3.3). Rows without a hypothesis or a post-edit
    (e.g. WMT10's BAD rows, or EDIT rows whose original output the file does not carry) are left
    out and counted in the ``skipped`` attribute of the result; the ``track`` level is "" when
    the post-edits have no track. A ``ValueError`` when no row has both."""
    from sacrebleu.metrics import TER
    metric = TER(**options)
    usable = np.array([h is not None and p is not None for h, p in zip(post_edits.hypothesis, post_edits.post_edit)],
                      dtype=bool)
    if not usable.any():
        raise ValueError(f"none of the {len(usable):,} post-edit rows has both the output and its post-edit")

    def label(codes, names, i):
        return names[codes[i]] if codes[i] >= 0 else None
    kept = np.nonzero(usable)[0]
    # each row's statistics scored alone are its sentence_score(hypothesis, [post-edit])
    stats = _statistics(metric, [post_edits.hypothesis[i] for i in kept], [[post_edits.post_edit[i] for i in kept]])
    rows = []
    for i, row in zip(kept, stats):
        rows.append((label(post_edits.track, post_edits.tracks, i) or "",
                     label(post_edits.item, post_edits.items, i), label(post_edits.system, post_edits.systems, i),
                     metric._compute_score_from_stats(row).score / 100))
    df = pd.DataFrame(rows, columns=["track", "item", "system", "hter"])
    result = df.groupby(["track", "item", "system"], dropna=False)["hter"].min().to_frame()
    result.attrs["skipped"] = int((~usable).sum())
    result.attrs["signature"] = str(metric.get_signature())
    return result


def corpus_statistics(name: str, hypotheses, references, **options):
    """Per-segment sufficient statistics of sacrebleu's ``bleu``, ``chrf``, ``chrf++`` or ``ter``
    and the function turning summed statistics into the corpus score, as sacrebleu's paired tests
    use them (``Metric._extract_corpus_statistics`` / ``_compute_score_from_stats``): returns
    (statistics (segments × k) array, score(summed row) → float, signature)."""
    from sacrebleu.metrics import BLEU, CHRF, TER
    makers = {"bleu": lambda: BLEU(**options), "chrf": lambda: CHRF(**options),
              "chrf++": lambda: CHRF(word_order=2, **options), "ter": lambda: TER(**options)}
    if name not in makers:
        raise ValueError(f"no sufficient statistics for {name!r}; choose one of {', '.join(makers)}")
    metric = makers[name]()
    refs = _streams(references, len(hypotheses))
    stats = np.array(_statistics(metric, hypotheses, refs), dtype=float)
    return stats, lambda row: metric._compute_score_from_stats(list(row)).score, str(metric.get_signature())
