"""The compiled TER search against sacrebleu's ``translation_edit_rate`` (pure Python, the peer).

Edit counts are integers, so they must be equal, not close; rates are compared tightly."""

import numpy as np
import pandas as pd
import pytest
from conftest import shared_file
from sacrebleu.metrics import TER, lib_ter

from humeval.data import PostEdits
from humeval.metrics import _ter_kernel, hter, ter
from humeval.metrics._ter_kernel import ter_edits, ter_statistics


def edits(hyp, ref):
    ids: dict[str, int] = {}
    h = np.array([ids.setdefault(w, len(ids)) for w in hyp], dtype=np.int32)
    r = np.array([ids.setdefault(w, len(ids)) for w in ref], dtype=np.int32)
    return int(ter_edits(h, r))


def sacrebleu_rounds(hyp, ref):
    """sacrebleu's (edits, candidates checked after each round of ``_shift``)."""
    checked = []
    original = lib_ter._shift

    def spy(*args):
        out = original(*args)
        checked.append(out[2])
        return out
    lib_ter._shift = spy
    try:
        n, _ = lib_ter.translation_edit_rate(hyp, ref)
    finally:
        lib_ter._shift = original
    return n, checked


def split(text):
    return text.split()


@pytest.mark.parametrize("hyp, ref, expected", [
    ("", "", 0),
    ("", "a b c", 3),  # three insertions
    ("a b c", "", 3),  # sacrebleu: one edit per hypothesis word against an empty reference
    ("a b c d", "a b c d", 0),
    ("c d a b", "a b c d", 1),  # one shift of the block "a b" (or "c d")
    ("a b c d", "a b x d", 1),
    ("a b c d e f", "d e f a b c x", 2),  # a shift of three words, then an insertion
])
def test_hand_cases(hyp, ref, expected):
    assert edits(split(hyp), split(ref)) == lib_ter.translation_edit_rate(split(hyp), split(ref))[0] == expected


@pytest.mark.parametrize("n_hyp, n_ref", [(1, 60), (60, 1), (2, 120), (3, 160), (120, 2), (5, 260)])
def test_very_unequal_lengths_widen_the_beam(n_hyp, n_ref):
    ref = [str(i % 7) for i in range(n_ref)]
    hyp = [str((3 * i) % 5) for i in range(n_hyp)]
    ratio = n_ref / n_hyp
    assert ratio < 50 or lib_ter._BEAM_WIDTH < ratio / 2  # the widened beam where the ratio exceeds 50
    assert edits(hyp, ref) == lib_ter.translation_edit_rate(hyp, ref)[0]


@pytest.mark.parametrize("hyp, ref", [
    (("a b c " * 20).split(), ("c b a " * 20).split()),  # the cap reached exactly at a block's end, round 1
    (list(np.random.default_rng(3).choice(list("abc"), 80)), list(np.random.default_rng(4).choice(list("abc"), 80))),
    (("a b c d " * 15).split(), ("d c b a " * 15).split()),  # one shift applied, the cap in round 2
])
def test_long_repeated_tokens_hit_the_candidate_cap(hyp, ref):
    n, checked = sacrebleu_rounds(hyp, ref)
    assert checked[-1] >= lib_ter._MAX_SHIFT_CANDIDATES  # sacrebleu stopped on the cap
    assert edits(hyp, ref) == n


def moved_blocks(seed):
    """A random reference over a few words and a hypothesis with four blocks of it moved."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 70))
    ref = [str(x) for x in rng.integers(0, int(rng.integers(3, 8)), n)]
    hyp = list(ref)
    for _ in range(4):
        s, k = int(rng.integers(0, n - 6)), int(rng.integers(2, 6))
        block, hyp = hyp[s:s + k], hyp[:s] + hyp[s + k:]
        t = int(rng.integers(0, len(hyp)))
        hyp = hyp[:t] + block + hyp[t:]
    return hyp, ref


@pytest.mark.parametrize("seed", [39, 63, 78, 102, 126])
def test_the_cap_counts_across_rounds(seed):
    """sacrebleu applies shifts in earlier rounds, then the cap (1,000 candidates counted over all
    rounds; 1,000 to 1,002 here, as a block's targets are all tried first) stops a later one."""
    hyp, ref = moved_blocks(seed)
    expected, checked = sacrebleu_rounds(hyp, ref)
    assert len(checked) > 1 and checked[-1] >= lib_ter._MAX_SHIFT_CANDIDATES > checked[-2]
    assert edits(hyp, ref) == expected


def test_random_sequences_from_a_small_vocabulary():
    rng = np.random.default_rng(2026)
    for _ in range(300):
        vocabulary = [str(v) for v in range(int(rng.integers(2, 9)))]
        ref = list(rng.choice(vocabulary, int(rng.integers(0, 28))))
        if rng.random() < 0.5:  # a permuted, edited copy: shifts pay
            hyp = [w if rng.random() > 0.15 else "z" for w in ref]
            cut = sorted(rng.integers(0, len(hyp) + 1, 2)) if hyp else [0, 0]
            hyp = hyp[cut[1]:] + hyp[cut[0]:cut[1]] + hyp[:cut[0]]
        else:
            hyp = list(rng.choice(vocabulary, int(rng.integers(0, 28))))
        assert edits(hyp, ref) == lib_ter.translation_edit_rate(hyp, ref)[0], (hyp, ref)


def test_statistics_with_several_references_and_options():
    hyps = ["The cat sat on the mat .", "a b c", "", "Hello , world !"]
    refs = [["the mat , the cat sat on", "x y", "", "hello world"], ["The cat sat .", "c b a", "q", None]]
    for options in ({}, {"normalized": True}, {"no_punct": True}, {"case_sensitive": True}):
        theirs, ours = TER(**options), TER(**options)
        assert ter_statistics(ours, hyps, refs) == theirs._extract_corpus_statistics(hyps, refs)
        assert str(ours.get_signature()) == str(theirs.get_signature())  # nrefs:var, as sacrebleu sets it


def test_the_python_fallback(monkeypatch):
    """A pair the kernel leaves (−1) is scored by sacrebleu's Python."""
    hyps, refs = ["a b c d e", "c d a b"], [["a b x d", "a b c d"]]
    expected = TER()._extract_corpus_statistics(hyps, refs)
    monkeypatch.setattr(_ter_kernel, "ter_edits_many", lambda tokens, offsets, h, r: np.full(len(h), -1))
    assert ter_statistics(TER(), hyps, refs) == expected


def test_hter_scores_every_row_as_sentence_score():
    p = PostEdits.from_pandas(pd.DataFrame({
        "item": ["1", "1", "2", "3"], "system": ["S", "S", "S", "S"], "editor": ["e1", "e2", "e1", "e1"],
        "hypothesis": ["a b c d", "a b c d", "c d a b x", "x"], "post_edit": ["a x y d", "a b c e", "a b c d", ""]}))
    score = TER().sentence_score
    expected = [min(score("a b c d", ["a x y d"]).score, score("a b c d", ["a b c e"]).score),
                score("c d a b x", ["a b c d"]).score, score("x", [""]).score]
    assert expected == [25.0, 50.0, 100.0]  # 1 of 4 words; a shift + a deletion; empty
    np.testing.assert_allclose(hter(p)["hter"].to_numpy(), np.array(expected) / 100, rtol=1e-15)


def mlqe_et_en():
    hyps = shared_file("mlqe-pe/et-en/post-editing/dev.mt").read_text(encoding="utf-8").splitlines()
    refs = shared_file("mlqe-pe/et-en/post-editing/dev.pe").read_text(encoding="utf-8").splitlines()
    return hyps, refs


def sacrebleu_scores(hyps, refs):
    """sacrebleu's statistics and what its sentence_score / corpus_score make of them (each
    segment's statistics scored alone, and their sum; test_baselines checks that equivalence)."""
    metric = TER()
    stats = metric._extract_corpus_statistics(hyps, [refs])
    segment = [metric._compute_score_from_stats(row).score / 100 for row in stats]
    return stats, segment, metric._compute_score_from_stats([sum(c) for c in zip(*stats)]).score / 100, metric


# Every 4th segment of the real sets (sacrebleu's pure-Python search is the cost of these tests:
# 1.9 s and 5 s for the whole sets); benchmarks/bench_ter.py checks the whole sets equal.
EVERY = 4


def test_mlqe_pe_et_en_dev_equals_sacrebleu():
    hyps, refs = mlqe_et_en()
    assert len(hyps) == len(refs) == 1000
    hyps, refs = hyps[::EVERY], refs[::EVERY]
    stats, segment, corpus, metric = sacrebleu_scores(hyps, refs)
    assert ter_statistics(TER(), hyps, [refs]) == stats
    assert sum(row[0] for row in stats) > 1000  # a real workload: over a thousand edits, shifts among them
    ours = ter(hyps, refs)
    np.testing.assert_allclose(ours.segment, segment, rtol=1e-13)
    assert ours.corpus == pytest.approx(corpus, rel=1e-13)
    assert ours.signature == str(metric.get_signature())
    assert metric.sentence_score(hyps[3], [refs[3]]).score / 100 == pytest.approx(segment[3], rel=1e-13)
    items = [f"{i:04d}" for i in range(len(hyps))]
    h = hter(PostEdits.from_pandas(pd.DataFrame({"item": items, "system": "mt", "hypothesis": hyps,
                                                 "post_edit": refs})))
    np.testing.assert_allclose(h.loc[[("", i, "mt") for i in items], "hter"], segment, rtol=1e-13)


@pytest.mark.parametrize("options", [{"normalized": True}, {"no_punct": True}, {"case_sensitive": True},
                                     {"normalized": True, "no_punct": True, "case_sensitive": True}])
def test_mlqe_pe_options_on_a_subset(options):
    hyps, refs = mlqe_et_en()
    hyps, refs = hyps[1::EVERY * 4], refs[1::EVERY * 4]
    assert ter_statistics(TER(**options), hyps, [refs]) == TER(**options)._extract_corpus_statistics(hyps, [refs])


def test_hmeant_wmt13_outputs_equal_sacrebleu():
    from humeval.data.readers.hmeant import read_wmt13
    annotations = read_wmt13(shared_file("hmeant-wmt13"))
    pairs = {(a.item, a.system): (a.output.text, a.reference.text) for a in annotations.outputs()
             if a.output.text and a.reference.text}
    hyps, refs = [h for h, _ in pairs.values()], [r for _, r in pairs.values()]
    assert len(hyps) > 500
    hyps, refs = hyps[::EVERY], refs[::EVERY]
    stats, segment, corpus, _ = sacrebleu_scores(hyps, refs)
    assert ter_statistics(TER(), hyps, [refs]) == stats
    ours = ter(hyps, refs)
    np.testing.assert_allclose(ours.segment, segment, rtol=1e-13)
    assert ours.corpus == pytest.approx(corpus, rel=1e-13)
