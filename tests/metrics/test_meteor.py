import gzip
from pathlib import Path

import numpy as np
import pytest

from humeval.errors import InputError
from humeval.metrics.meteor import (COLUMNS, PRESETS, Exact, Meteor, Paraphrase, Params, Stem, Synonym, WordNet, align,
                                    candidates, meteor, score_statistics)

WORDNET = Path(__file__).parents[1] / "fixtures" / "wordnet"


def stats_dict(row):
    return {c: v for c, v in zip(COLUMNS, row) if v}


def test_wordnet_reader_and_morphy():
    wn = WordNet(WORDNET)
    # the fixture has one synset each for big/large, mouse, house/home and run/sprint
    assert len(wn.synset_ids("big")) == 1 and wn.synset_ids("large") == wn.synset_ids("big")  # "(a)" marker stripped
    assert len(wn.synset_ids("mouse")) == 1 and wn.synset_ids("mice") == wn.synset_ids("mouse")  # exception list
    assert len(wn.synset_ids("home")) == 1 and wn.synset_ids("houses") == wn.synset_ids("home")  # rule s → ""
    assert wn.synset_ids("ran") & wn.synset_ids("sprint")  # verb exception ran → run
    assert len({wn.synset_ids(w) for w in ("big", "mouse", "home", "sprint", "dog", "car")}) == 6
    assert not wn.synset_ids("domestic")  # multi-word lemmas are not single-word synonyms
    assert not wn.synset_ids("dog") & wn.synset_ids("car")


def test_missing_wordnet_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="wordnet-base"):
        Synonym(tmp_path)


def test_word_matchers():
    assert Exact().matches(["a", "b", "a"], ["a"]) == [(0, 1, 0, 1), (2, 1, 0, 1)]
    assert Stem("english").matches(["cats", "running"], ["run", "cat"]) == [(0, 1, 1, 1), (1, 1, 0, 1)]
    assert Synonym(WORDNET).matches(["automobile"], ["the", "car"]) == [(0, 1, 1, 1)]
    with pytest.raises(ValueError, match="Snowball"):
        Stem("klingon")


def test_hand_worked_example():
    """the big dog ran quickly home / the large dog ran home fast, METEOR 1.5 rank-en parameters.

    Alignment: the, dog, ran, home exact; big~large and quickly~fast synonyms (fixture WordNet).
    Chunks: [the big dog ran] → [the large dog ran], [quickly] → [fast], [home] → [home]: 3.
    Content words 5 per side, one function word ("the").
    P = R = (0.75·(3·1 + 2·0.8) + 0.25·1) / (0.75·5 + 0.25·1) = 3.7 / 4 = 0.925, F = 0.925
    Pen = 0.6·(3/6)^0.2, score = (1 − Pen)·0.925."""
    m = Meteor(wordnet=str(WORDNET))
    stats = m.statistics(["the big dog ran quickly home"], ["the large dog ran home fast"])
    row = stats_dict(stats.values[0])
    assert row == {"hyp_content_exact": 3, "hyp_content_synonym": 2, "hyp_function_exact": 1,
                   "ref_content_exact": 3, "ref_content_synonym": 2, "ref_function_exact": 1,
                   "hyp_content": 5, "hyp_function": 1, "ref_content": 5, "ref_function": 1,
                   "chunks": 3, "hyp_matched": 6, "ref_matched": 6}
    penalty = 0.6 * 0.5 ** 0.2
    assert penalty == pytest.approx(0.522330, abs=1e-6)
    assert m.score(stats).segment[0] == pytest.approx((1 - penalty) * 0.925, abs=1e-12)
    # δ = ½ is the paper's plain formula: P = (4 + 2·0.8)/6
    plain = score_statistics(stats.values, Params(0.85, 0.20, 0.60, 0.5, (1.0, 0.6, 0.8, 0.6)))[0]
    assert plain == pytest.approx((1 - penalty) * 5.6 / 6)


def test_presets_published_with_meteor_15():
    assert PRESETS["rank-en"] == Params(0.85, 0.20, 0.60, 0.75, (1.0, 0.6, 0.8, 0.6))
    assert Meteor(params="rank-en", matchers=("exact",)).params.alpha == 0.85
    with pytest.raises(ValueError, match="preset"):
        Meteor(params="nonsense")


def test_identical_sentences_score_one_and_nothing_matched_scores_zero():
    m = Meteor(matchers=("exact",))
    assert m(["a b c d ."], ["a b c d ."]).segment[0] == 1.0
    flat = Meteor(matchers=("exact",), params=Params(0.85, 0.0, 0.6, 0.75, (1.0, 0.6, 0.8, 0.6)))
    assert flat(["a b c d ."], ["a b c d ."]).segment[0] == 1.0  # β = 0: still no penalty without fragments
    assert flat(["a b c"], ["c b a"]).segment[0] == pytest.approx(0.4)  # 3 chunks: penalty γ·1 = 0.6
    assert m(["x y"], ["a b"]).segment[0] == 0.0


@pytest.mark.parametrize("search", ["exact", "beam"])
def test_alignment_criteria(search):
    def chosen(hyp, ref):
        h, r = hyp.split(), ref.split()
        return align(candidates(h, r, [Exact()]), len(h), search)
    # 1-2: each word once, most words: "a b a" must use both a's
    a = chosen("a b a", "a b a")
    assert [m[:4] for m in a.matches] == [(0, 1, 0, 1), (1, 1, 1, 1), (2, 1, 2, 1)] and a.chunks == 1
    # 3: fewest chunks: the monotone choice keeps "x y" together in one chunk
    b = chosen("x y z x y", "x y")
    assert b.chunks == 1 and {m[0] for m in b.matches} in ({0, 1}, {3, 4})
    # 4: equal coverage and chunks, smallest distance: hyp "a" (1) to ref a at 0, not at 3
    c = chosen("x a", "a y y a")
    assert [m[:4] for m in c.matches] == [(1, 1, 0, 1)] and c.distance == 1


def test_beam_fallback_is_reported():
    m = Meteor(matchers=("exact",), max_states=1)
    stats = m.statistics(["a a b b a", "c"], ["a b a b a", "c"])
    assert stats.searches == {"exact": 1, "beam": 1}
    exact = Meteor(matchers=("exact",)).statistics(["a a b b a"], ["a b a b a"])
    np.testing.assert_array_equal(stats.values[0], exact.values[0])


def test_paraphrase_table_phrase_matches(tmp_path):
    table = tmp_path / "para.gz"
    with gzip.open(table, "wt", encoding="utf-8") as f:
        f.write("0.5\nkick the bucket\ndie\n0.01\nsoon\nlater\n")
    p = Paraphrase(table, min_probability=0.1)
    assert p.matches(["he", "will", "die", "soon"], ["he", "will", "kick", "the", "bucket", "later"]) == [(2, 1, 2, 3)]
    m = Meteor(matchers=("exact", "paraphrase"), paraphrase_table=str(table), params="next")
    row = stats_dict(m.statistics(["he will die soon"], ["he will kick the bucket soon"]).values[0])
    assert row["chunks"] == 1 and row["hyp_matched"] == 4 and row["ref_matched"] == 6
    assert row["hyp_content_paraphrase"] == 1 and row["ref_function_paraphrase"] == 1  # "the"
    bad = tmp_path / "bad.txt"
    bad.write_text("0.5\nonly two lines\n")
    with pytest.raises(InputError, match="multiple of 3"):
        Paraphrase(bad)
    with pytest.raises(ValueError, match="paraphrase_table"):
        Meteor(matchers=("paraphrase",))


def test_several_references_best_and_corpus_from_summed_statistics():
    m = Meteor(matchers=("exact", "stem"))
    hyps = ["the cats sat", "a dog barked loudly"]
    refs = [["the cat sat", "a dog barked"], ["cats sat there", "a dog barked loudly"]]
    both = m(hyps, refs)
    one = [m(hyps, [r]).segment for r in refs]
    np.testing.assert_allclose(both.segment, np.maximum(*one))
    assert both.segment[1] == 1.0
    stats = m.statistics(hyps, refs)
    best_rows = [int(np.argmax([score_statistics(stats.values[k], m.params)[0] for k in (2 * i, 2 * i + 1)])) + 2 * i
                 for i in range(2)]
    assert both.corpus == pytest.approx(score_statistics(stats.values[best_rows].sum(axis=0), m.params)[0])
    assert "meteor|a:0.85" in both.signature and "m:exact+stem" in both.signature


def test_meteor_function_and_tokenisation():
    result = meteor(["Hello, world!"], ["hello , world !"], matchers=("exact",))
    assert result.segment[0] == 1.0  # 13a tokenisation and lowercasing
    raw = meteor(["Hello, world!"], ["hello , world !"], matchers=("exact",), tokenize="none", lowercase=False)
    assert raw.segment[0] < 0.5


def test_real_wordnet_when_installed():
    from humeval.metrics.meteor import find_wordnet
    try:
        path = find_wordnet()
    except InputError:
        pytest.skip("WordNet database files not installed (apt-get install wordnet-base)")
    wn = WordNet(path)
    assert wn.synset_ids("cars") & wn.synset_ids("automobile")
    assert wn.synset_ids("geese") & wn.synset_ids("goose")
    assert not wn.synset_ids("car") & wn.synset_ids("banana")
