"""A streamed dataset (directory of CSV/Parquet files, DuckDB) keeps who judged: ``judge_kind``
counts per kind equal the rows of each kind, as reading the rows in memory gives."""

import numpy as np
import pandas as pd
import pytest

from humeval.data import read


def _frame():
    rng = np.random.default_rng(3)
    n = 300
    a = rng.choice(["A", "B", "C"], n)
    b = np.where(a == "A", "B", np.where(a == "B", "C", "A"))
    kind = np.where(np.arange(n) < 100, "human", np.where(np.arange(n) < 250, "gpt-4", "chrF"))
    return pd.DataFrame({"model_a": a, "model_b": b, "winner": rng.choice(["model_a", "model_b", "tie"], n),
                         "question_id": rng.integers(0, 40, n).astype(str), "judge_kind": kind})


def _counts(comparisons):
    kinds = np.asarray(comparisons.judge_kinds, dtype=object)
    assert (comparisons.judge_kind >= 0).all()
    return {k: float(comparisons.weight[kinds[comparisons.judge_kind] == k].sum()) for k in kinds}


@pytest.mark.parametrize("engine", ["arrow", "duckdb"])
def test_streamed_rows_keep_their_judge_kind(tmp_path, engine):
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    df = _frame()
    folder = tmp_path / "battles"
    folder.mkdir()
    df.iloc[:150].to_csv(folder / "part-1.csv", index=False)
    df.iloc[150:].to_csv(folder / "part-2.csv", index=False)
    streamed = read(str(folder), engine=engine).comparisons
    assert _counts(streamed) == {"human": 100.0, "gpt-4": 150.0, "chrF": 50.0}
    whole = tmp_path / "all.csv"
    df.to_csv(whole, index=False)
    rows = read(whole).comparisons
    assert _counts(rows) == {"human": 100.0, "gpt-4": 150.0, "chrF": 50.0}
    # per kind the same outcome counts as the rows read in memory
    for c in (streamed, rows):
        kinds = np.asarray(c.judge_kinds, dtype=object)[c.judge_kind]
        assert np.bincount(c.outcome[kinds == "gpt-4"], weights=c.weight[kinds == "gpt-4"], minlength=3).tolist() == \
            np.bincount(rows.outcome[np.asarray(rows.judge_kinds, dtype=object)[rows.judge_kind] == "gpt-4"],
                        minlength=3).astype(float).tolist()


def test_streamed_items_with_kind_are_what_ppi_matches(tmp_path):
    df = _frame()
    folder = tmp_path / "battles"
    folder.mkdir()
    df.to_parquet(folder / "part.parquet", index=False)
    c = read(str(folder), keep=("item",)).comparisons
    assert (c.item >= 0).all() and len(c.judge_kinds) == 3
    assert float(c.weight.sum()) == 300.0


def test_ppi_on_a_streamed_folder_equals_ppi_on_the_file(tmp_path):
    """`humeval ppi DIR` keeps the item (it matches battles by item) and the judge kind."""
    import json

    from click.testing import CliRunner

    from humeval.cli import cli
    from humeval.simulate.judged import battles_frame, judged_battles
    df = battles_frame(*judged_battles(n_human=150, n_judge=900, random_state=2)[1:])
    folder = tmp_path / "battles"
    folder.mkdir()
    df.iloc[:500].to_parquet(folder / "a.parquet", index=False)
    df.iloc[500:].to_parquet(folder / "b.parquet", index=False)
    df.to_csv(tmp_path / "all.csv", index=False)
    got = [json.loads(CliRunner().invoke(cli, ["ppi", str(p), "--json"]).output)
           for p in (folder, tmp_path / "all.csv")]
    assert got[0]["lambda"] == pytest.approx(got[1]["lambda"], abs=1e-9)
    assert got[0]["n"] == got[1]["n"] == 150
