import json

import numpy as np
import pandas as pd
import pytest

from humeval.completion import (AdditiveBaseline, GlobalMean, ItemMean, JudgeMean, NuclearNorm, RatingMatrix,
                                SoftImpute, completion_error, decision_study, per_judge_curve)
from humeval.completion.evaluation import observed_share
from humeval.data import Ratings


def table(judge, column, score, n_judges=None, n_columns=None):
    n_judges = n_judges or max(judge) + 1
    n_columns = n_columns or max(column) + 1
    return Ratings(item=column, system=np.zeros(len(column)), judge=judge, score=score, systems=("S",),
                   items=tuple(f"i{c:04d}" for c in range(n_columns)), judges=tuple(f"j{k:03d}" for k in range(n_judges)))


def test_baselines_by_hand():
    # judge 0 rates columns 0, 1 with 10, 20; judge 1 rates column 0 with 30
    r = table([0, 0, 1], [0, 1, 0], [10.0, 20.0, 30.0], n_columns=3)
    assert GlobalMean().fit(r).predict([1], [1])[0] == pytest.approx(20.0)
    assert ItemMean().fit(r).predict([1], [0])[0] == pytest.approx(20.0)  # mean of 10 and 30
    assert JudgeMean().fit(r).predict([1], [1])[0] == pytest.approx(30.0)
    full = GlobalMean().fit(r).complete()
    assert full.shape == (2, 2) and full.loc["j001", "i0000 | S"] == 30.0 and full.loc["j001", "i0001 | S"] == 20.0
    unseen = table([1], [2], [0.0], n_judges=2, n_columns=3)  # column 2 was never rated
    assert JudgeMean().fit(r).predict_ratings(unseen)[0] == pytest.approx(30.0)


def low_rank(seed=0, judges=40, columns=300, rank=3, observed=0.5, noise=1.0, bias=0.0):
    rng = np.random.default_rng(seed)
    truth = 50 + 5 * rng.normal(size=(judges, rank)) @ rng.normal(size=(rank, columns)) \
        + bias * rng.normal(size=(judges, 1))
    seen = rng.random((judges, columns)) < observed
    rows, cols = np.nonzero(seen)
    train = table(rows, cols, truth[rows, cols] + rng.normal(0, noise, len(rows)), judges, columns)
    hidden_rows, hidden_cols = np.nonzero(~seen)
    held = table(hidden_rows, hidden_cols, truth[hidden_rows, hidden_cols], judges, columns)
    return train, held, rows, cols, train.score


def oracle_rmse(rows, cols, values, held, rank, judges=40, columns=300, sweeps=60):
    """Alternating least squares at the true rank on the observed entries: the best a method that
    knows the rank can do."""
    mean = values.mean()
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(judges, rank)) * 0.1, rng.normal(size=(columns, rank)) * 0.1
    residual = values - mean
    for _ in range(sweeps):
        for j in range(judges):
            m = rows == j
            a[j] = np.linalg.lstsq(b[cols[m]], residual[m], rcond=None)[0]
        for c in range(columns):
            m = cols == c
            b[c] = np.linalg.lstsq(a[rows[m]], residual[m], rcond=None)[0]
    prediction = mean + np.sum(a[held.judge] * b[held.item], axis=1)
    return float(np.sqrt(np.mean((prediction - held.score) ** 2)))


@pytest.mark.parametrize("bias, rank", [(0.0, 3), (5.0, 4)])  # judge biases add one rank
def test_soft_impute_beats_baselines_and_nears_the_oracle(bias, rank):
    train, held, rows, cols, values = low_rank(bias=bias)
    rmse = lambda model: float(np.sqrt(np.mean((model.fit(train).predict_ratings(held) - held.score) ** 2)))
    soft = rmse(SoftImpute())
    for baseline in (GlobalMean(), ItemMean(), JudgeMean(), AdditiveBaseline()):
        assert soft < rmse(baseline) / 5
    assert soft <= 1.1 * oracle_rmse(rows, cols, values, held, rank)


def test_soft_impute_options_and_path():
    train, held, *_ = low_rank(seed=1, judges=20, columns=100)
    model = SoftImpute().fit(train)
    assert len(model.path_) == 10 and model.lambda_ in set(model.path_["lambda"]) and model.rank_ == 3
    fixed = SoftImpute(lam=model.lambda_).fit(train)
    assert fixed.path_ is None and np.allclose(fixed.predict_ratings(held), model.predict_ratings(held))
    plain = SoftImpute(lam=model.lambda_, debias=None).fit(train)
    assert plain.rank_ >= 3
    with pytest.raises(ValueError, match="offset"):
        SoftImpute(offset="median").fit(train)


def test_refusals():
    r = Ratings(item=[0, 1], system=[0, 0], judge=[-1, 0], score=[1.0, 2.0], items=("a", "b"), systems=("S",),
                judges=("j",))
    with pytest.raises(ValueError, match="no judge"):
        GlobalMean().fit(r)
    two = Ratings(item=[0, 1], system=[0, 0], judge=[0, 0], criterion=[0, 1], score=[1.0, 2.0], items=("a", "b"),
                  systems=("S",), judges=("j",), criteria=("adequacy", "fluency"))
    with pytest.raises(ValueError, match="several criteria"):
        GlobalMean().fit(two)
    big = low_rank(judges=20, columns=100)[0]
    with pytest.raises(ValueError, match="cells"):
        GlobalMean().fit(big).complete(max_cells=100)
    try:
        import cvxpy  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="cvxpy"):
            NuclearNorm().fit(big)


def test_error_table_and_curve():
    train, *_ = low_rank(judges=20, columns=100)
    calls = []
    errors = completion_error({"mean": GlobalMean(), "soft": SoftImpute()}, train, holdout=0.2, trials=2,
                              progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]  # complete's progress bar: one step per method and trial
    assert list(errors.index) == ["soft", "mean"] and errors.loc["soft", "RMSE"] < errors.loc["mean", "RMSE"] / 3
    assert errors["observed share"].iloc[0] == pytest.approx(0.8 * 0.5, abs=0.03)
    curve = per_judge_curve([SoftImpute()], train, counts=(5, 40))
    assert curve["training ratings"].tolist()[0] == 100 and curve.RMSE.iloc[1] < curve.RMSE.iloc[0] / 2


def test_decision_study_on_clear_differences():
    rng = np.random.default_rng(0)
    rows = []
    quality = {"good": 80.0, "mid": 60.0, "bad": 40.0}
    for item in range(60):
        for system, q in quality.items():
            for judge in rng.choice(8, 3, replace=False):
                rows.append((f"i{item}", system, f"j{judge}", q + rng.normal(0, 10)))
    r = Ratings.from_pandas(pd.DataFrame(rows, columns=["item", "system", "judge", "score"]))
    calls = []
    study = decision_study(r, SoftImpute(), trials=2, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2)]
    assert list(study.index) == ["one rating", "all ratings", "one rating + 5 shared + completion"]
    # every (item, system) is rated by 3 of 8 judges: the working half covers most, once each
    assert study.loc["all ratings", "agreement"] == 1.0 and 150 < study.loc["one rating", "ratings"] <= 180
    assert study.loc["all ratings", "ratings"] > study.loc["one rating", "ratings"]


def test_repeated_ratings_of_one_cell_are_averaged_and_counted():
    # judge 0 rated column 0 twice (10 and 30) and column 1 once (20); judge 1 rated column 0 (40)
    r = table([0, 0, 0, 1], [0, 0, 1, 0], [10.0, 30.0, 20.0, 40.0])
    m = RatingMatrix(r)
    assert m.duplicates == 1 and sorted(zip(m.row.tolist(), m.col.tolist(), m.value.tolist())) == \
        [(0, 0, 20.0), (0, 1, 20.0), (1, 0, 40.0)]
    full = GlobalMean().fit(r).complete()
    assert full.loc["j000", "i0000 | S"] == 20.0  # the mean, not the last rating (30)
    assert full.loc["j001", "i0001 | S"] == pytest.approx(80 / 3)  # mean over the 3 cells
    assert observed_share(r) == 3 / 4  # 3 filled cells of 2 judges × 2 columns (it was 4 / 4 counting the repeat)


def test_observed_share_never_exceeds_one():
    # every judge rated every column three times: the share is 1, not 300 %
    judge, column = np.repeat([0, 1, 0, 1], 3), np.repeat([0, 0, 1, 1], 3)
    assert observed_share(table(judge, column, np.arange(12.0))) == 1.0


def test_constant_ratings_complete_to_the_constant():
    rng = np.random.default_rng(1)
    seen = rng.random((6, 20)) < 0.5
    rows, cols = np.nonzero(seen)
    r = table(rows, cols, np.full(len(rows), 50.0), 6, 20)
    for offset in ("mean", "judge", "additive"):
        model = SoftImpute(offset=offset).fit(r)
        assert np.allclose(model.complete().to_numpy(), 50.0) and model.rank_ == 0
    errors = completion_error({"soft-impute": SoftImpute(), "mean": GlobalMean()}, r, trials=2)
    assert errors["RMSE"].tolist() == [0.0, 0.0]


def test_complete_command_reports_averaged_repeats(tmp_path):
    from click.testing import CliRunner

    from humeval.cli import cli
    rng = np.random.default_rng(0)
    lines = [f"i{i},S{s},j{j},{rng.integers(0, 100)}" for i in range(6) for s in range(2) for j in range(4)]
    lines += ["i0,S0,j0,55", "i0,S0,j0,60"]  # j0 rated (i0, S0) three times
    path = tmp_path / "r.csv"
    path.write_text("item,system,judge,score\n" + "\n".join(lines) + "\n")
    result = CliRunner().invoke(cli, ["complete", str(path), "--json", "--trials", "1"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["duplicates averaged"] == 2
    assert all(row["observed share"] <= 1 for row in report["errors"])
    text = CliRunner().invoke(cli, ["complete", str(path), "--trials", "1"]).output
    assert "averaged 2 repeated ratings of one (item, system) by the same judge" in text
