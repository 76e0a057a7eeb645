import numpy as np
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
    assert image.shape == (5, 5) and np.allclose(np.diag(image), 0) and np.allclose(image, -image.T)
    assert image[0, -1] > 0  # the best system is favoured over the worst
