"""The mixed model on Google's MQM with 3 raters per item (../shared/data; skipped when absent)."""

import humeval
from conftest import shared_file
from humeval.ratings import compare_models, rank_fitted

MQM23 = "mqm-google/generalMT2023/ende/sxs_mqm_generalMT2023_ende.3ratingsPerSegment.tsv.tar.gz"


def test_mixed_predicts_held_out_mqm_ratings_better_than_means():
    ratings = humeval.read(shared_file(MQM23)).ratings
    assert len(ratings) == 3120  # 1,040 (system, segment) pairs × 3 raters
    held = compare_models(ratings, trials=1, random_state=0)
    score = held.table["log_score"]
    assert held.best.startswith("mixed")
    assert score["mixed"] > score["z-mean"] > score["raw"]
    ranking = rank_fitted(ratings, "mixed")
    assert ranking.table.index[0] in ("refA", "GPT4-5shot_with_refA", "ONLINE-W", "GPT4-5shot_with_ONLINE-W")
    assert (ranking.table["lo"] < ranking.table["mixed"]).all()
