"""Readers on the real public files in ../shared/data (skipped when they are absent)."""

import numpy as np
import pytest

import humeval
from conftest import shared_file

# From ../shared/data/wmt10-rankings/README.md: rankings, comparisons, ties, pairs skipped (unset rank)
WMT10_RNK = {
    "Czech-English": (543, 5375, 997, 55), "English-Czech": (1395, 13538, 2511, 412),
    "English-French": (801, 7962, 1280, 48), "English-German": (1407, 13694, 1360, 376),
    "English-Spanish": (519, 5174, 670, 16), "French-English": (837, 8294, 1861, 76),
    "German-English": (1050, 10424, 2085, 76), "Spanish-English": (1140, 11307, 1965, 93),
}
WMT10_PUBLIC = {
    "Czech-English": (2640, 25930, 4357, 470), "English-Czech": (132, 1230, 469, 90),
    "English-French": (333, 3077, 774, 253), "English-German": (519, 5142, 1570, 48),
    "English-Spanish": (501, 4943, 1199, 67), "French-English": (1851, 18321, 2967, 189),
    "German-English": (2559, 25274, 4422, 316), "Spanish-English": (2592, 25626, 4327, 294),
}


def counts_per_track(path):
    j = humeval.read(path)
    out = {}
    for track, rankings in j.rankings.by_track().items():
        c, skipped = rankings.expand(return_skipped=True)
        out[track] = (len(rankings), len(c), int((c.outcome == 0).sum()), skipped.get("pairs with an unset rank", 0))
    return out


@pytest.mark.parametrize("name, expected", [("data_RNK.csv", WMT10_RNK), ("data_RNK-public.csv", WMT10_PUBLIC)])
def test_wmt10_pairwise_counts_match_readme(name, expected):
    assert counts_per_track(shared_file(f"wmt10-rankings/wmt10/{name}")) == expected


def test_wmt13_sample():
    j = humeval.read(shared_file("wmt13-fr-en-sample/sample-fr-en-train.csv"))
    s = j.rankings.summary()
    assert (s["rankings"], s["judges"], s["systems"], s["items"]) == (9996, 218, 13, 2278)
    assert len(j.comparisons) == 99960 and not j.report.skipped  # no blank ranks in this sample


def test_wmt10_edits():
    j = humeval.read(shared_file("wmt10-rankings/wmt10/data_EDT.tsv"))
    p = j.post_edits
    actions = dict(zip(p.actions, np.bincount(p.action)))
    assert actions == {"BAD": 1738, "EDIT": 4093, "OK": 1327}
    assert j.report.skipped == {"rows with action 'N/A' (no edit, no verdict)": 97}


def test_mlqe_da_and_post_edits():
    r = humeval.read(shared_file("mlqe-pe/en-de/direct-assessments/train.ende.df.short.tsv")).ratings
    assert len(r.items) == 7000 and len(r) == 6407 * 3 + 593 * 6 and r.tracks == ("en-de",)
    p = humeval.read(shared_file("mlqe-pe/et-en/post-editing/dev.pe")).post_edits
    assert len(p) == 1000 and not np.isnan(p.hter).any()


def test_mqm_matches_googles_segment_averages():
    mine = humeval.read(shared_file("mqm-google/ted/ende/mqm_ted_ende.tsv")).ratings.to_pandas()
    google = humeval.read(shared_file("mqm-google/ted/ende/mqm_ted_ende.avg_seg_scores.tsv")).ratings.to_pandas()
    both = mine.merge(google, on=["system", "item"], suffixes=("_mine", "_google"))
    assert len(mine) == 7406 and len(both) > 6800
    np.testing.assert_allclose(both.score_mine, both.score_google, atol=1e-6)


def test_mqm_side_by_side_archive():
    j = humeval.read(shared_file("mqm-google/generalMT2023/ende/sxs_mqm_generalMT2023_ende.3ratingsPerSegment.tsv.tar.gz"))
    r = j.ratings
    assert len(r) == 1040 * 3 and len(r.systems) == 10 and len(r.judges) == 10
    assert j.report.skipped == {"rows with severity 'HOTW-test'": 245}
