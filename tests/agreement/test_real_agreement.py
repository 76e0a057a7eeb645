import pytest

import humeval
from conftest import shared_file
from humeval.agreement import ranking_agreement


def test_wmt10_experts_agree_more_than_the_crowd():
    # Hopkins & May (2013) quote 65.8 % (experts) and 46.6 % (crowd) pairwise agreement for WMT10
    expert = humeval.read(shared_file("wmt10-rankings/wmt10/data_RNK.csv")).comparisons
    crowd = humeval.read(shared_file("wmt10-rankings/wmt10/data_RNK-public.csv")).comparisons
    assert ranking_agreement(expert)["inter"].p_agree == pytest.approx(0.658, abs=5e-4)
    assert ranking_agreement(crowd)["inter"].p_agree == pytest.approx(0.466, abs=5e-4)
