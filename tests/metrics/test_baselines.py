import numpy as np
import pandas as pd
import pytest

import humeval
from conftest import shared_file
from humeval.data import PostEdits
from humeval.metrics import bleu, chrf, hter, ter


def test_known_values_and_signatures():
    t = ter(["a b c d", "x y"], ["a b x d", "x y"])
    assert t.segment.tolist() == pytest.approx([0.25, 0.0]) and "tok:tercom" in t.signature
    b = bleu(["the cat sat on the mat"], ["the cat sat on the mat"])
    assert b.segment[0] == pytest.approx(100.0) and b.corpus == pytest.approx(100.0)
    assert "eff:no" in b.signature and "eff:yes" in b.segment_signature
    two_refs = bleu(["the cat sat"], [["a dog ran"], ["the cat sat"]])
    assert two_refs.segment[0] == pytest.approx(100.0)
    # clipped n-gram precisions 5/6, 3/5, 2/4, 1/3 (one "the" of two, "on the" and "the mat" unmatched),
    # equal lengths: BLEU = 100 · (1/12)^(1/4)
    b = bleu(["the cat sat on the mat"], ["the cat sat on a mat"])
    assert b.segment[0] == pytest.approx(100 * (1 / 12) ** 0.25) and b.corpus == pytest.approx(100 * (1 / 12) ** 0.25)
    # chrF averages F_β over the n-gram orders present on both sides: characters a,b,c vs a,b,d give
    # F = 2/3 (1-grams), 1/2 (2-grams), 0 (3-grams); chrF++ adds word 1-grams "abc" vs "abd": 0
    c = chrf(["abc"], ["abd"], word_order=2)
    assert c.name == "chrF++" and c.segment[0] == pytest.approx(100 * (2 / 3 + 1 / 2) / 4)
    assert chrf(["abc"], ["abd"]).segment[0] == pytest.approx(100 * (2 / 3 + 1 / 2) / 3)
    with pytest.raises(ValueError, match="segments"):
        ter(["a"], ["a", "b"])


def test_hter_takes_the_minimum_over_post_editors(fixture):
    p = humeval.read(fixture("mlqe_pe_small.mt")).post_edits
    h = hter(p)
    # the file's own HTER: one substitution in 3 words; one insertion against 4
    assert h["hter"].tolist() == pytest.approx([1 / 3, 0.25]) and h.attrs["skipped"] == 0
    two = PostEdits.from_pandas(pd.DataFrame({"item": ["1", "1"], "system": ["S", "S"], "editor": ["e1", "e2"],
                                              "hypothesis": ["a b c d", "a b c d"], "post_edit": ["a x y d", "a b c e"]}))
    assert hter(two)["hter"].tolist() == pytest.approx([0.25])
    edits = humeval.read(fixture("wmt10_edits_small.tsv")).post_edits
    # EDIT rows have no original output in WMT10 files and BAD rows no post-edit: only OK is usable
    assert hter(edits).attrs["skipped"] == 2 and hter(edits)["hter"].tolist() == [0.0]


def test_hter_matches_mlqe_pe():
    p = humeval.read(shared_file("mlqe-pe/en-de/post-editing/dev.mt")).post_edits
    h = hter(p).reset_index()
    given = pd.Series(p.hter, index=[p.items[i] for i in p.item])
    np.testing.assert_allclose(h["hter"], given[h["item"]].to_numpy(), atol=1e-6)


@pytest.mark.parametrize("streams", [1, 2])
def test_ter_and_chrf_from_one_pass_equal_sacrebleus_sentence_and_corpus_scores(streams):
    from sacrebleu.metrics import CHRF, TER

    from humeval.metrics.baselines import chrf, ter
    rng = np.random.default_rng(0)
    words = "the a cat dog sat on mat house red blue runs quickly".split()
    hyps, *refs = ([" ".join(rng.choice(words, rng.integers(1, 12))) for _ in range(60)] for _ in range(1 + streams))
    for ours, metric, scale in ((ter(hyps, refs), TER(), 100), (chrf(hyps, refs), CHRF(), 1),
                                (chrf(hyps, refs, word_order=2), CHRF(word_order=2), 1)):
        expected = [metric.sentence_score(h, [r[i] for r in refs]).score / scale for i, h in enumerate(hyps)]
        np.testing.assert_allclose(ours.segment, expected, rtol=1e-12)
        assert ours.corpus == pytest.approx(metric.corpus_score(hyps, refs).score / scale, rel=1e-12)
