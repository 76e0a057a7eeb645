"""Matplotlib figures of Hopkins & May (2013): learning curves (Figures 2–5), abilities with
error bars and the preference heatmap (Figure 6). Each returns the figure and saves it when
given a path."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files, not windows: works on servers and in CI
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


LABEL_CHARS = 40  # a figure's tick labels are cut to this many characters (a 5,000-character name took 4 GB)


def short(label, limit: int = LABEL_CHARS) -> str:
    """A system name as a figure shows it: control characters escaped, cut to ``limit``
    characters with "…" (the tables keep the full name)."""
    from humeval.data.readers._io import shown
    return shown(label, limit - 1) if len(str(label)) > limit else shown(label)


MAX_INCHES = 30.0  # a figure grows with the systems up to this side (3,600 px at 120 dpi): 400 systems took 10 GB


def inches(n: int, per: float, extra: float) -> float:
    """A figure side of ``per`` inches per system plus ``extra``, at most ``MAX_INCHES``."""
    return min(per * n + extra, MAX_INCHES)


def tick_font(n: int, per: float, size: float) -> float:
    """The tick label size ``size`` shrunk in proportion when ``inches`` caps the side."""
    return size * min(1.0, (MAX_INCHES - 2.5) / max(per * n, 1e-9))


def _save(fig, path):
    """Write the figure when a path is given and release it from pyplot (the returned figure
    stays usable): a command drawing one figure per track must not pile them up."""
    if path is not None:
        fig.savefig(path, dpi=120, bbox_inches="tight")
        plt.close(fig)
    return fig


def plot_learning_curve(curve: pd.DataFrame, path=None, title: str = "Held-out perplexity"):
    """Mean perplexity per model against training size (log x), one line per model; a band of
    ± one standard deviation over trials (of the mean over tracks, when there are several).
    ``curve`` is ``learning_curve``'s tidy frame."""
    per_trial = curve.groupby(["model", "size", "trial"])["perplexity"].mean().reset_index()
    stats = per_trial.groupby(["model", "size"])["perplexity"].agg(["mean", "std"]).reset_index()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    final = stats.sort_values("size").groupby("model")["mean"].last().sort_values(ascending=False)
    for name in final.index:
        part = stats[stats.model == name].sort_values("size")
        line, = ax.plot(part["size"], part["mean"], marker="o", label=name)
        ax.fill_between(part["size"], part["mean"] - part["std"].fillna(0), part["mean"] + part["std"].fillna(0),
                        color=line.get_color(), alpha=0.12)
    ax.set_xscale("log")
    sizes = sorted(stats["size"].unique())
    ax.set_xticks(sizes, [str(s) for s in sizes])
    ax.minorticks_off()
    ax.set_xlabel("training comparisons")
    ax.set_ylabel("test perplexity (lower is better)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return _save(fig, path)


def plot_abilities(table: pd.DataFrame, path=None, title: str = "Abilities"):
    """Scores with ± one standard deviation error bars, best on top (Figure 6, left). ``table``
    has columns ``mean`` and ``std`` (``ability_trials``) or ``score`` and ``std`` (``ranking()``)."""
    value = table["mean"] if "mean" in table else table["score"]
    order = value.sort_values().index
    fig, ax = plt.subplots(figsize=(6, inches(len(order), 0.3, 1.2)))
    err = table["std"].reindex(order) if "std" in table else None
    ax.errorbar(value.reindex(order), np.arange(len(order)), xerr=err, fmt="o", capsize=3)
    ax.set_yticks(np.arange(len(order)), [short(s) for s in order], fontsize=tick_font(len(order), 0.3, 10))
    ax.set_xlabel("ability")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def plot_preference_heatmap(model, path=None, title: str = "Preference model", values_up_to: int = 20):
    """Cell (row s1, column s2) is P(s1 preferred to s2) − P(s2 preferred to s1) under the fitted
    model, written in the cell (signed, ".15" for +0.15) when there are at most ``values_up_to``
    systems; the diagonal (a system against itself) is masked. The map diverges at 0: blue where
    the row system wins more often than it loses, red where it loses more.

    Colouring P(s1 preferred) itself around 0.5 (Hopkins & May 2013, Figure 6, right) misleads
    when judges tie: P(s1) + P(s2) + P(tie) = 1, so with 15–20 % ties the better system of a pair
    has P < 0.5 (WMT10: .49 against .34) and was painted as the loser. The difference is
    antisymmetric, 0 exactly when neither system is preferred, whatever the share of ties.
    Systems ordered by score, best first."""
    order = np.argsort(-model.scores_.to_numpy(), kind="stable")
    p = model.proba_matrix()[np.ix_(order, order)]
    margin = np.ma.masked_array(p[:, :, 1] - p[:, :, 2], mask=np.eye(len(order), dtype=bool))
    names = [model.systems_[i] for i in order]
    fig, ax = plt.subplots(figsize=(inches(len(names), 0.45, 2.5), inches(len(names), 0.45, 2)))
    cmap = plt.get_cmap("RdBu").with_extremes(bad="0.85")
    image = ax.imshow(margin, cmap=cmap, vmin=-1, vmax=1)
    if len(names) <= values_up_to:
        _cell_values(ax, margin, signed=True)
    font = tick_font(len(names), 0.45, 7)
    ax.set_xticks(np.arange(len(names)), [short(s) for s in names], rotation=90, fontsize=font)
    ax.set_yticks(np.arange(len(names)), [short(s) for s in names], fontsize=font)
    ax.set_xlabel("column system s2")
    ax.set_ylabel("row system s1")
    ties = float(np.mean(p[:, :, 0][~np.eye(len(order), dtype=bool)])) if len(order) > 1 else 0.0
    ax.set_title(f"{title}\nP(tie) {ties:.0%} on average" if ties >= 0.005 else title)
    fig.colorbar(image, ax=ax, label="P(s1 preferred) − P(s2 preferred)", shrink=0.8)
    return _save(fig, path)


def _cell_values(ax, values, fontsize: float = 6, signed: bool = False):
    """Each unmasked cell's value (".53"; ``signed``: "+.15", "−.15" on a map centred at 0)
    written centred in its cell, white on dark cells:
    the glyph outlines of all cells as one collection (``TextPath``, sized in points, placed at
    the cells' data coordinates) — drawn in one pass instead of one text artist per cell, the
    cost of which dominated a 20-system heatmap. Not part of the layout (inside the axes)."""
    from matplotlib.collections import PathCollection
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath
    from matplotlib.transforms import Affine2D
    prop = FontProperties(size=fontsize)
    shapes, paths, offsets, colors, written = {}, [], [], [], []
    data = np.ma.getdata(values)
    for i, j in zip(*np.nonzero(~np.ma.getmaskarray(values))):
        value = float(data[i, j])
        if signed:
            label = ".00" if round(value, 2) == 0 else f"{value:+.2f}".replace("0.", ".").replace("-", "\u2212")
        else:
            label = f"{value:.2f}".lstrip("0")
        if label not in shapes:
            path = TextPath((0, 0), label, prop=prop)
            low, high = path.vertices.min(axis=0), path.vertices.max(axis=0)  # control points: quick, near enough
            shapes[label] = path.transformed(Affine2D().translate(*(-(low + high) / 2)))
        paths.append(shapes[label])
        offsets.append((j, i))
        written.append(((int(j), int(i)), label))
        colors.append("white" if abs(value - (0 if signed else 0.5)) > (0.6 if signed else 0.3) else "black")
    if paths:
        cells = PathCollection(paths, offsets=offsets, offset_transform=ax.transData, facecolors=colors,
                               edgecolors="none", linewidths=0, in_layout=False, label="cell values",
                               transform=Affine2D().scale(1 / 72) + ax.figure.dpi_scale_trans)
        cells.cell_values = written  # ((column, row), text) of every cell, for readers and tests
        ax.add_collection(cells, autolim=False)


def plot_bootstrap(table: pd.DataFrame, path=None, title: str = "Bootstrap", scale: str = ""):
    """Scores with their bootstrap intervals, best on top, the marginal rank range written beside
    each system and a dashed line at every WMT cluster boundary. ``table`` is
    ``BootstrapResult.table()``."""
    df = table.iloc[::-1]
    y = np.arange(len(df))
    fig, ax = plt.subplots(figsize=(7.5, inches(len(df), 0.32, 1.4)))
    centre = df["mean"].to_numpy()
    err = np.vstack([centre - df["lower"].to_numpy(), df["upper"].to_numpy() - centre])
    ax.errorbar(centre, y, xerr=np.clip(np.nan_to_num(err), 0, None), fmt="o", capsize=3, color="tab:blue")
    ax.set_yticks(y, [short(s) for s in df.index], fontsize=tick_font(len(df), 0.32, 8))
    right = np.nanmax(df["upper"].to_numpy())
    for yi, (lo, hi) in zip(y, zip(df["rank_lo"], df["rank_hi"])):
        if not np.isnan(lo):
            label = f"{lo:.0f}" if lo == hi else f"{lo:.0f}–{hi:.0f}"
            ax.annotate(label, (right, yi), xytext=(8, 0), textcoords="offset points", va="center", fontsize=7,
                        color="0.3")
    clusters = df["cluster"].to_numpy()
    for yi in range(len(df) - 1):
        if clusters[yi] != clusters[yi + 1]:
            ax.axhline(yi + 0.5, color="tab:red", linestyle="--", linewidth=1)
    ax.margins(x=0.12)
    ax.set_xlabel(scale or "score")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def plot_icc(b1: float, b2: float, a: float = 1.7, path=None, title: str = "Item characteristic curves"):
    """Probabilities of losing to, tying with and beating the baseline against ability θ for one
    segment (the GRM paper's Figure 2 uses b = (−0.5, 0.5), a = 1.7)."""
    from humeval.ranking.grm import icc
    theta = np.linspace(-4, 4, 321)
    p = icc(theta, b1, b2, a)
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for column, label in enumerate(("lose (u = 1)", "tie (u = 2)", "win (u = 3)")):
        ax.plot(theta, p[:, column], label=label)
    ax.set_xlabel("system ability θ")
    ax.set_ylabel("probability")
    ax.set_title(f"{title} (b = ({b1:.2f}, {b2:.2f}), a = {a:g})")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _save(fig, path)


def plot_item_information(thresholds: pd.DataFrame, path=None, title: str = "Item information"):
    """I_j(θ) with a = 1 for the segments in ``thresholds`` (rows: segment; columns b1, b2): where
    on the ability scale each segment discriminates (the GRM paper's Figure 5)."""
    from humeval.ranking.grm import item_information
    theta = np.linspace(-4, 4, 321)
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for name, (b1, b2) in thresholds[["b1", "b2"]].iterrows():
        ax.plot(theta, item_information(theta, b1, b2), label=str(name))
    ax.set_xlabel("system ability θ")
    ax.set_ylabel("information")
    ax.set_title(title)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return _save(fig, path)


def plot_budget_study(study: pd.DataFrame, path=None, title: str = "Agreement with the gold scores"):
    """Mean Pearson r and nDCG against the budget for every model (GRM: one line per baseline)."""
    df = study.assign(label=np.where(study.baseline.astype(str) != "", study.model + " (" + study.baseline.astype(str)
                                     .str.replace(r"^newstest\d+\.[a-z]+-[a-z]+\.", "", regex=True) + ")", study.model))
    mean = df.groupby(["label", "budget"])[["pearson", "ndcg"]].mean().reset_index()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, metric in zip(axes, ("pearson", "ndcg")):
        for label, part in mean.groupby("label"):
            ax.plot(part["budget"], part[metric], marker="o", label=label, linewidth=1)
        ax.set_xscale("log")
        ax.set_xticks(sorted(mean["budget"].unique()), [str(b) for b in sorted(mean["budget"].unique())])
        ax.minorticks_off()
        ax.set_xlabel("comparisons")
        ax.set_ylabel("Pearson r" if metric == "pearson" else "nDCG")
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.suptitle(title)
    return _save(fig, path)


def plot_decision_study(study: pd.DataFrame, path=None, title: str = "Decisions"):
    """Agreement with the reference judges' decisions against the ratings each condition used."""
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for name, row in study.iterrows():
        ax.scatter(row["ratings"], row["agreement"], s=60)
        ax.annotate(short(name), (row["ratings"], row["agreement"]), xytext=(6, 4), textcoords="offset points", fontsize=8)
    ax.set_xlabel("ratings used")
    ax.set_ylabel("share of system pairs decided as the reference judges do")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.margins(x=0.25, y=0.15)
    return _save(fig, path)


def plot_plan(table: pd.DataFrame, path=None, title: str = "What each budget buys"):
    """``Plan.table`` as four panels against the budget: P(top identified), expected clusters,
    expected Spearman/Kendall with the full-information ranking, expected held-out perplexity."""
    panels = [("P(top identified)", "P(top system identified)"), ("expected clusters", "expected rank clusters"),
              (("spearman", "kendall"), "correlation with the full-information ranking"),
              ("perplexity", "held-out perplexity")]
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.6))
    budgets = table.index.to_numpy()
    for ax, (columns, label) in zip(axes, panels):
        for column in (columns if isinstance(columns, tuple) else (columns,)):
            if column in table:
                ax.plot(budgets, table[column], marker="o", label=column)
        ax.set_xscale("log")
        ax.set_xticks(budgets, [str(b) for b in budgets])
        ax.minorticks_off()
        ax.set_xlabel("budget")
        ax.set_title(label, fontsize=9)
        ax.grid(alpha=0.3)
    axes[2].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return _save(fig, path)


def plot_active_study(curves: pd.DataFrame, path=None, title: str = "Judgments needed", measure: str = "spearman"):
    """Mean ``measure`` against judgments collected, one line per strategy, ± one standard error."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for name, part in curves.groupby("strategy", sort=False):
        g = part.groupby("judgments")[measure]
        mean, se = g.mean(), g.std().fillna(0) / np.sqrt(g.count())
        ax.plot(mean.index, mean, marker=".", label=name)
        ax.fill_between(mean.index, mean - se, mean + se, alpha=0.2)
    ax.set_xlabel("judgments (pairwise comparisons)")
    ax.set_ylabel({"spearman": "Spearman ρ with the reference ranking"}.get(measure, measure))
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)
