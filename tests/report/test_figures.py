import numpy as np
import pytest
import pandas as pd

from humeval.ranking import IRTGaussian
from humeval.report import plot_abilities, plot_learning_curve, plot_preference_heatmap
from humeval.simulate import simulate_competition


def test_learning_curve_plot(tmp_path):
    curve = pd.DataFrame({"model": ["a", "a", "b", "b"] * 2, "size": [100, 200] * 4, "trial": [0] * 4 + [1] * 4,
                          "perplexity": [2.9, 2.8, 3.0, 3.0, 2.7, 2.6, 3.0, 3.0]})
    fig = plot_learning_curve(curve, tmp_path / "c.png")
    ax = fig.axes[0]
    lines = {line.get_label(): line.get_ydata().tolist() for line in ax.get_lines()}
    assert lines == {"a": [2.8, 2.7], "b": [3.0, 3.0]} and ax.get_xscale() == "log"
    assert (tmp_path / "c.png").stat().st_size > 5000


def test_abilities_and_heatmap(tmp_path):
    sim = simulate_competition(n_systems=5, n_judgments=500, design="pairs", random_state=0)
    model = IRTGaussian(iterations=40, burn_in=10, random_state=0).fit(sim.comparisons)
    fig = plot_abilities(model.ranking(), tmp_path / "a.png")
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[-1] == model.ranking().index[0]  # best on top
    fig = plot_preference_heatmap(model, tmp_path / "h.png")
    image = fig.axes[0].get_images()[0].get_array()
    order = np.argsort(-model.scores_.to_numpy(), kind="stable")
    p = model.proba_matrix()[np.ix_(order, order)]
    assert image.shape == (5, 5) and image.mask.tolist() == np.eye(5, dtype=bool).tolist()  # the diagonal masked
    off = ~np.eye(5, dtype=bool)
    # the colour is P(row preferred) − P(column preferred), centred at 0 whatever the share of ties
    assert np.allclose(image.data[off], (p[:, :, 1] - p[:, :, 2])[off])
    assert np.allclose((image + image.T)[off], 0)  # antisymmetric
    assert fig.axes[0].get_images()[0].get_clim() == (-1, 1)
    assert image[0, -1] > 0 > image[-1, 0]  # the best system is preferred to the worst
    cells, = [c for c in fig.axes[0].collections if c.get_label() == "cell values"]  # one collection of glyphs
    texts = set(cells.cell_values)
    label = f"{image[0, -1]:+.2f}".replace("0.", ".")
    assert len(texts) == 20 and ((4, 0), label) in texts and ((0, 4), label.replace("+", "\u2212")) in texts
    assert len(cells.get_paths()) == 20 and [4, 0] in cells.get_offsets().tolist()
    # the glyphs drawn at (4, 0) are those of the value's text (centred), not merely listed beside them
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath
    k = cells.get_offsets().tolist().index([4, 0])
    expected = TextPath((0, 0), label, prop=FontProperties(size=6)).vertices
    expected = expected - (expected.min(axis=0) + expected.max(axis=0)) / 2
    assert np.allclose(cells.get_paths()[k].vertices, expected)
    assert fig.axes[1].get_ylabel() == "P(s1 preferred) − P(s2 preferred)"
    many = plot_preference_heatmap(IRTGaussian(iterations=20, burn_in=5, random_state=0).fit(
        simulate_competition(n_systems=25, n_judgments=3000, design="pairs", random_state=0).comparisons))
    assert not many.axes[0].texts and not [c for c in many.axes[0].collections if c.get_label() == "cell values"]
    # beyond 20 systems the cells stay unlabelled


def test_heatmap_paints_the_better_system_of_a_tied_pair_blue():
    """Issue 27: with ties, the better system of a pair can have P(preferred) < 0.5 (WMT10 sys07 vs
    sys08: .49 against .34); centred at 0.5 it was painted as the loser. A Rao–Kupper fit on
    hand-made counts: A beats B 49 times, loses 34, ties 17."""
    from humeval.data.tables import Comparisons
    from humeval.ranking import RaoKupper
    outcome = np.array([1] * 49 + [2] * 34 + [0] * 17)
    c = Comparisons.from_pandas(pd.DataFrame({"a": "A", "b": "B", "outcome": outcome}))
    model = RaoKupper().fit(c)
    p = model.proba_matrix()
    a = list(model.systems_).index("A")
    assert p[a, 1 - a, 1] < 0.5  # the old colour centre would paint A red
    image = plot_preference_heatmap(model).axes[0].get_images()[0].get_array()
    assert image[0, 1] > 0 and model.systems_[int(np.argmax(model.scores_.to_numpy()))] == "A"  # A first, blue
    assert image[0, 1] == pytest.approx(p[a, 1 - a, 1] - p[a, 1 - a, 2])
