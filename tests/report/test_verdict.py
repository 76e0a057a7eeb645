"""compare-models' verdict: each model against the best, paired by test comparison (issue 27)."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.experiments import track_curves
from humeval.ranking import make_model
from humeval.report.verdict import item_losses, paired_verdict
from humeval.simulate import simulate_competition


def test_item_losses_refit_the_curves_subsets():
    """With one trial, 2 ** (mean loss on a track) is the learning curve's perplexity: the same
    subsets, seeds and test sets."""
    c = simulate_competition(n_systems=6, n_judgments=1500, design="rankings", random_state=1).comparisons
    models = {name: make_model(name, 0) for name in ("bt", "uniform", "rao-kupper")}
    curve = track_curves(c, models, (100, 400), 1, 3, min_test=500)
    losses = item_losses(c, models, (100, 400), 1, 3, min_test=500)
    at = curve[curve["size"] == 400].set_index("model")["perplexity"]
    for name in models:
        assert 2 ** losses[name].mean() == pytest.approx(at[name], rel=1e-9)
    assert losses["uniform"].to_numpy() == pytest.approx(np.log2(3))  # a uniform guess: log2 3 bits each
    verdict = paired_verdict(losses, "rao-kupper")
    assert verdict.loc["uniform", "distinguishable"] and verdict.loc["uniform", "low"] > 0


def test_compare_models_prints_a_verdict_per_model(tmp_path):
    made = CliRunner().invoke(cli, ["simulate", str(tmp_path / "s.csv"), "--design", "rankings", "--systems", "6",
                                    "--judgments", "1500", "-q"])
    assert made.exit_code == 0, made.output
    args = ["compare-models", str(tmp_path / "s.csv"), "-m", "bt,uniform,adjusted-uniform", "--sizes", "100,400",
            "--trials", "2", "--min-test", "500"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "verdict at 400 training comparisons: each model against the best, paired over" in text
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)["verdict"]
    best = next(m for m, row in data.items() if row["bits"] == 0)
    assert best == "bt"
    for name in ("uniform", "adjusted-uniform"):
        word = "distinguishable" if data[name]["distinguishable"] else "indistinguishable"
        assert f"{name} (" in text and f"): {word} from bt ({data[name]['bits']:.3g} bits per test comparison" in text
    # a uniform guess is worse than Bradley–Terry on 1,500 judgments of 6 systems beyond any noise
    assert data["uniform"]["distinguishable"] and data["uniform"]["low"] > 0
