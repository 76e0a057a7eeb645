"""Saying when the evidence is weak (issue 27): too few comparisons per system, no intervals."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.data.tables import Comparisons
from humeval.report.evidence import MIN_COMPARISONS, comparisons_per_system, few_comparisons_warning, within_noise


def equal_systems(n=400, seed=0) -> pd.DataFrame:
    """Four systems of equal strength: 20 % ties, wins and losses 40 % each."""
    rng = np.random.default_rng(seed)
    names = np.array(["s1", "s2", "s3", "s4"])
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(1, 4, n)) % 4
    return pd.DataFrame({"system_a": names[a], "system_b": names[b], "outcome": rng.choice([0, 1, 2], n, p=[.2, .4, .4]),
                         "item": rng.integers(0, 50, n), "judge": rng.integers(0, 8, n)})


def test_the_threshold_is_the_one_its_docstring_derives():
    # n ≥ (1.96 · √2 · 0.5 / 0.1)² = 192.08, rounded up to 200
    assert (1.959964 * np.sqrt(2) * 0.5 / 0.1) ** 2 == pytest.approx(192.07, abs=0.01) and MIN_COMPARISONS == 200


def test_few_comparisons_per_system_are_named():
    df = pd.DataFrame({"a": ["x"] * 150 + ["y"] * 100, "b": ["y"] * 150 + ["z"] * 100, "outcome": 1})
    c = Comparisons.from_pandas(df)
    assert comparisons_per_system(c).to_dict() == {"x": 150, "y": 250, "z": 100}
    text = few_comparisons_warning(c)
    assert text.startswith("few judgments: 2 of 3 systems appear in fewer than 200 comparisons: z (100), x (150);")
    assert few_comparisons_warning(c, threshold=100) == ""


def test_within_noise_compares_neighbours_by_their_standard_deviations():
    table = pd.DataFrame({"score": [1.0, 0.7, 0.0], "std": [0.1, 0.1, 0.1]}, index=["a", "b", "c"])
    # a − b = 0.3 > 1.96 · √0.02 = 0.277: apart; b − c = 0.7: apart
    assert within_noise(table) == []
    table["std"] = [0.12, 0.1, 0.1]  # √(0.0144 + 0.01) · 1.96 = 0.306 > 0.3
    assert within_noise(table) == [("a", "b")]


def test_rank_without_intervals_says_so_on_equal_systems(tmp_path):
    equal_systems().to_csv(tmp_path / "eq.csv", index=False)
    result = CliRunner().invoke(cli, ["rank", str(tmp_path / "eq.csv")])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    per_system = comparisons_per_system(Comparisons.from_pandas(
        equal_systems().rename(columns={"system_a": "a", "system_b": "b"})))
    assert (f"no intervals: these ranks are point estimates ({int(per_system.median()):,} comparisons per system, "
            f"median; fewest {int(per_system.min())}); --bootstrap 1000 gives intervals") in text
    assert "3 of 3 neighbouring pairs differ by less than 1.96 standard deviations" in text
    assert f"warning: few judgments: 1 of 4 systems appears in fewer than 200 comparisons: s1 ({per_system['s1']})" in text
    boot = CliRunner().invoke(cli, ["rank", str(tmp_path / "eq.csv"), "-m", "bt", "--bootstrap", "50"])
    assert boot.exit_code == 0 and "no intervals" not in boot.output and "few judgments" in boot.output


def test_the_report_warns_of_few_comparisons(tmp_path):
    from humeval.cli.common import load
    from humeval.report import build_report
    equal_systems().to_csv(tmp_path / "eq.csv", index=False)
    path = str(tmp_path / "eq.csv")
    report = build_report(load(path, quiet=True), path, ("bt", "uniform"), n_boot=20, trials=1)
    (line,) = [s for s in report.summary if "clusters" in s or "cluster" in s and s.startswith("(no track)")]
    assert "(warning: few judgments: 1 of 4 systems appears in fewer than 200 comparisons: s1" in line
    notes = [n for s in report.sections for n in s.notes if n.startswith("warning: few judgments")]
    assert len(notes) == 1
