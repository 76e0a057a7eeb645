"""Streaming reads (directories, hive partitions, globs, DuckDB) give the same counts and the same
rankings as reading the rows in memory; the reduction, the checks and the weights protocol."""

import json
import os
import shutil

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.data import Comparisons, read
from humeval.data import stream
from humeval.data.stream import is_dataset, parse_address, reduce_rows
from humeval.errors import InputError
from humeval.ranking import AdjustedUniform, BradleyTerry, ExpectedWins, IndependentPairs, MostProbableRanking
from humeval.ranking.base import MaterialisedWarning, as_rows, pair_counts

duckdb = pytest.importorskip("duckdb")

N = 6000
SYSTEMS = [f"sys-{i}" for i in range(7)]


def battles(seed=0) -> pa.Table:
    """Arena battles of 7 systems with Bradley–Terry abilities 0, 0.3, …, 1.8 and 20 % ties (a
    third of them "tie (bothbad)"), a language and a judge per battle."""
    rng = np.random.default_rng(seed)
    theta = np.arange(len(SYSTEMS)) * 0.3
    a = rng.integers(0, len(SYSTEMS), N)
    b = (a + rng.integers(1, len(SYSTEMS), N)) % len(SYSTEMS)
    u = rng.random(N)
    won = rng.random(N) < 1 / (1 + np.exp(theta[b] - theta[a]))
    winner = np.where(u < 0.2 / 3, "tie (bothbad)", np.where(u < 0.2, "tie", np.where(won, "model_a", "model_b")))
    return pa.table({"model_a": [SYSTEMS[i] for i in a], "model_b": [SYSTEMS[i] for i in b], "winner": winner,
                     "question_id": rng.integers(0, 500, N), "judge": [f"j{i}" for i in rng.integers(0, 12, N)],
                     "language": rng.choice(["de", "en", "fr"], N)})


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The same battles as one Parquet file, four Parquet files, a hive-partitioned layout, three
    CSV files and a DuckDB database."""
    root = tmp_path_factory.mktemp("stream")
    table = battles()
    pq.write_table(table, root / "all.parquet")
    (root / "flat").mkdir()
    for k in range(4):
        pq.write_table(table.slice(k * 1500, 1500), root / "flat" / f"part-{k}.parquet")
    (root / "flat" / "_SUCCESS").write_text("")  # Spark's marker: not data
    ds.write_dataset(table, root / "hive", format="parquet", partitioning=["language"], partitioning_flavor="hive")
    (root / "csv").mkdir()
    for k in range(3):
        pacsv.write_csv(table.slice(k * 2000, 2000), root / "csv" / f"part-{k}.csv")
    connection = duckdb.connect(str(root / "battles.db"))
    connection.execute(f"CREATE TABLE battles AS SELECT * FROM read_parquet('{root / 'all.parquet'}')")
    connection.close()
    return root, read(root / "all.parquet").comparisons


LAYOUTS = {
    "parquet files": lambda r: (str(r / "flat"), {}),
    "hive partitions": lambda r: (str(r / "hive"), {}),
    "recursive glob": lambda r: (str(r / "hive" / "**" / "*.parquet"), {}),
    "csv glob": lambda r: (str(r / "csv" / "*.csv"), {}),
    "duckdb table": lambda r: (f"duckdb://{r / 'battles.db'}?table=battles", {}),
    "duckdb sql": lambda r: (str(r / "battles.db"), {"sql": "SELECT * FROM battles"}),
    "sql on parquet": lambda r: (str(r / "hive"), {"sql": "SELECT * FROM battles"}),
    "duckdb engine": lambda r: (str(r / "flat"), {"engine": "duckdb"}),
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_streamed_counts_equal_the_in_memory_counts(data, layout):
    root, rows = data
    path, options = LAYOUTS[layout](root)
    judgments = read(path, **options)
    streamed = judgments.comparisons
    assert judgments.report.rows == N
    assert streamed.systems == rows.systems
    np.testing.assert_array_equal(pair_counts(streamed), pair_counts(rows))
    assert streamed.weight.sum() == N
    assert len(streamed) == len(np.unique(np.c_[rows.a, rows.b, rows.outcome], axis=0)) + \
        len(np.unique(np.c_[rows.a, rows.b][_bothbad(root)], axis=0))  # bothbad ties are their own rows
    assert streamed.weight[streamed.bothbad].sum() == _bothbad(root).sum()


def _bothbad(root):
    return pq.read_table(root / "all.parquet")["winner"].to_numpy(zero_copy_only=False) == "tie (bothbad)"


@pytest.mark.parametrize("model", [BradleyTerry(), ExpectedWins(), IndependentPairs(), MostProbableRanking()],
                         ids=repr)
def test_streamed_rankings_equal_the_in_memory_rankings(data, model):
    root, rows = data
    streamed = read(root / "hive").comparisons
    with_rows = type(model)(**model.get_params()).fit(rows).ranking()
    pd.testing.assert_frame_equal(model.fit(streamed).ranking(), with_rows, check_exact=False, rtol=1e-12)


def test_the_true_order_is_recovered(data):
    """Abilities rise with the system number: the streamed Bradley–Terry fit orders them so."""
    root, _ = data
    scores = BradleyTerry().fit(read(root / "flat").comparisons).scores_
    assert list(scores.sort_values().index) == SYSTEMS


def test_units_and_categories_are_kept_when_asked(data):
    root, rows = data
    by_judge = read(root / "hive", keep=("judge",)).comparisons
    assert by_judge.judges == rows.judges
    for code, judge in enumerate(rows.judges):
        np.testing.assert_array_equal(pair_counts(by_judge.take(by_judge.judge == code), len(SYSTEMS)),
                                      pair_counts(rows.take(rows.judge == code), len(SYSTEMS)))
    by_item = read(root / "flat", keep=("item",)).comparisons
    assert by_item.items == rows.items  # question_id, as the arena layout maps it
    language = pq.read_table(root / "all.parquet")["language"].to_numpy(zero_copy_only=False)
    for path, options in ((root / "hive", {}), (root / "battles.db", {"sql": "SELECT * FROM battles"})):
        boards = read(path, columns={"category": "language"}, **options).comparisons
        assert boards.categories == ("de", "en", "fr")
        for code, name in enumerate(boards.categories):
            np.testing.assert_array_equal(pair_counts(boards.take(boards.category == code), len(SYSTEMS)),
                                          pair_counts(rows.take(language == name), len(SYSTEMS)))


def test_small_batches_and_merges_change_nothing(data, monkeypatch):
    root, rows = data
    monkeypatch.setattr(stream, "MERGE_ROWS", 50)
    streamed = read(root / "flat", batch_rows=97).comparisons
    np.testing.assert_array_equal(pair_counts(streamed), pair_counts(rows))
    assert streamed.weight.sum() == N


def test_a_weight_column_is_summed(tmp_path):
    """Rows with weight k count as k rows; the same in arrow and in DuckDB."""
    table = pa.table({"model_a": ["x", "x", "y", "x"], "model_b": ["y", "y", "z", "z"],
                      "winner": ["model_a", "model_a", "tie", "model_b"], "n": [2, 3, 1.5, 0]})
    (tmp_path / "d").mkdir()
    pq.write_table(table, tmp_path / "d" / "p.parquet")
    for options in ({}, {"engine": "duckdb"}):
        c = read(tmp_path / "d", columns={"weight": "n"}, **options).comparisons
        counts = pair_counts(c)
        assert counts[0, 1, 1] == 5 and counts[1, 2, 0] == 1.5
        assert len(c) == 2  # the weight-0 row counts nothing
    pq.write_table(table.set_column(3, "n", pa.array([1.0, -1.0, 1.0, 1.0])), tmp_path / "d" / "p.parquet")
    with pytest.raises(InputError, match=r"p\.parquet: weight '-1\.0' is not a number ≥ 0 \(row 2\)"):
        read(tmp_path / "d", columns={"weight": "n"})
    with pytest.raises(InputError, match="weight column 'n' holds negative, infinite"):
        read(tmp_path / "d", columns={"weight": "n"}, engine="duckdb")


def test_skipped_rows_are_counted_as_rows(tmp_path):
    table = pa.table({"model_a": ["x", "x", None, "x", "x"], "model_b": ["y", "x", "y", "y", "y"],
                      "winner": ["model_a", "model_a", "tie", None, "model_b"]})
    (tmp_path / "d").mkdir()
    pq.write_table(table, tmp_path / "d" / "p.parquet")
    for options in ({}, {"engine": "duckdb"}):
        judgments = read(tmp_path / "d", **options)
        assert judgments.report.rows == 5
        assert judgments.report.skipped == {"rows without an outcome": 1, "rows without both system names": 1,
                                            "rows comparing a system with itself": 1}
        assert judgments.comparisons.weight.sum() == 2


def test_reduce_rows_by_hand():
    cols = {"a": np.array([0, 1, 0, 0, -1]), "b": np.array([1, 0, 1, 1, 2])}
    out, weight = reduce_rows(cols, np.array([1.0, 2.0, 3.0, 0.5, 1.0]))
    assert sorted(zip(out["a"], out["b"], weight)) == [(-1, 2, 1.0), (0, 1, 4.5), (1, 0, 2.0)]
    big = {"a": np.array([0, 10 ** 7, 0]), "b": np.array([5, 5, 5]), "c": np.array([10 ** 7, 0, 10 ** 7])}
    out, weight = reduce_rows(big, None)  # a key space too large to count into: unique on the keys
    assert sorted(zip(out["a"], out["c"], weight)) == [(0, 10 ** 7, 2.0), (10 ** 7, 0, 1.0)]
    huge = {k: np.array([0, 2 ** 30, 0]) for k in "pqr"}  # beyond one int64 key: unique on the rows
    out, weight = reduce_rows(huge, None)
    assert sorted(zip(out["p"], weight)) == [(0, 2.0), (2 ** 30, 1.0)]


def test_errors_name_the_file_and_the_row(data, tmp_path):
    root, _ = data
    (tmp_path / "d").mkdir()
    pq.write_table(battles().slice(0, 10), tmp_path / "d" / "a.parquet")
    bad = battles().slice(0, 10).set_column(2, "winner", pa.array(["model_a"] * 6 + ["draw"] + ["tie"] * 3))
    pq.write_table(bad, tmp_path / "d" / "b.parquet")
    with pytest.raises(InputError, match=r"b\.parquet: outcome 'draw' is not one of .* \(row 7\)"):
        read(tmp_path / "d")
    (tmp_path / "c").mkdir()
    pacsv.write_csv(bad, tmp_path / "c" / "b.csv")
    with pytest.raises(InputError, match=r"b\.csv:8: outcome 'draw'"):
        read(str(tmp_path / "c" / "*.csv"))
    assert read(tmp_path / "d", outcomes={"draw": 0}).report.rows == 20
    with pytest.raises(InputError, match="no files match"):
        read(str(tmp_path / "none" / "*.parquet"))
    pacsv.write_csv(bad, tmp_path / "d" / "c.csv")
    with pytest.raises(InputError, match="the files mix csv and parquet"):
        read(tmp_path / "d")
    with pytest.raises(InputError, match=r"covariates \(style control\) make every comparison distinct"):
        read(root / "flat", covariates=["length"])
    with pytest.raises(InputError, match=r"covariates \(style control\) make every comparison distinct"):
        read(root / "flat", style=True)
    with pytest.raises(InputError, match="the unit columns are judge, item, group"):
        read(root / "flat", keep=("session",))
    with pytest.raises(InputError, match="format mqm cannot be streamed"):
        read(root / "flat", format="mqm")
    with pytest.raises(InputError, match=r"names no query or table"):
        read(f"duckdb://{root / 'battles.db'}")
    with pytest.raises(InputError, match="DuckDB cannot run the query"):
        read(root / "battles.db", sql="SELECT * FROM nowhere")
    with pytest.raises(InputError, match="a DuckDB database needs a query"):
        read(root / "battles.db", engine="duckdb")


def test_what_counts_as_a_dataset(data):
    root, _ = data
    assert is_dataset(root / "flat") and is_dataset("x/*.parquet") and is_dataset("duckdb:///a.db?table=t")
    assert not is_dataset(root / "all.parquet") and not is_dataset("missing.csv")
    assert parse_address("duckdb:///tmp/a.db?query=SELECT%20a+b%20FROM%20t") == ("/tmp/a.db", "SELECT a+b FROM t")
    assert parse_address("duckdb:///tmp/a.db?table=battles") == ("/tmp/a.db", 'SELECT * FROM "battles"')
    with pytest.raises(InputError, match="unknown parameter 'tabel'"):
        parse_address("duckdb:///tmp/a.db?tabel=battles")


# -- the weights protocol ------------------------------------------------------------------------

def weighted_table():
    return Comparisons(a=[0, 1, 0], b=[1, 2, 2], outcome=[1, 0, 2], weight=[3.0, 2.0, 1.0], systems=("p", "q", "r"))


def test_row_models_repeat_rows_by_their_weights():
    table = weighted_table()
    with pytest.warns(MaterialisedWarning, match=r"AdjustedUniform fits on single comparisons: the 3 weighted rows "
                                                 r"became 6 rows"):
        model = AdjustedUniform().fit(table)
    assert model.tie_rate_ == pytest.approx(2 / 6)
    copies = Comparisons(a=[0, 0, 0, 1, 1, 0], b=[1, 1, 1, 2, 2, 2], outcome=[1, 1, 1, 0, 0, 2],
                         systems=("p", "q", "r"))
    with pytest.warns(MaterialisedWarning, match=r"this model fits on single comparisons"):
        rows = as_rows(table)
    for column in ("a", "b", "outcome", "weight"):
        np.testing.assert_array_equal(getattr(rows, column), getattr(copies, column))


def test_row_models_refuse_fractional_weights():
    table = Comparisons(a=[0, 1], b=[1, 0], outcome=[1, 1], weight=[1.5, 1.0], systems=("p", "q"))
    with pytest.raises(ValueError, match=r"comparison 0 has weight 1\.5 .*use a model that fits weighted counts"):
        AdjustedUniform().fit(table)
    assert ExpectedWins().fit(table).scores_["p"] == pytest.approx(0.6)  # weighted models take them


def test_weighted_models_take_the_table_as_it_is(recwarn):
    assert ExpectedWins.weighted and IndependentPairs.weighted and not AdjustedUniform.weighted
    ExpectedWins().fit(weighted_table())
    assert not [w for w in recwarn if issubclass(w.category, MaterialisedWarning)]


# -- the command line ----------------------------------------------------------------------------

def unsigned(tables: dict) -> dict:
    """``rank --json`` without each row's signature (it hashes the input's bytes)."""
    return {track: [{k: v for k, v in row.items() if k != "signature"} for row in rows] for track, rows in tables.items()}


def test_rank_streams_a_directory_as_it_reads_the_file(data):
    root, _ = data
    runner = CliRunner()
    whole = runner.invoke(cli, ["rank", str(root / "all.parquet"), "-m", "expected-wins", "--json"])
    for args in ([str(root / "hive")], [str(root / "battles.db"), "--sql", "SELECT * FROM battles"]):
        streamed = runner.invoke(cli, ["rank", *args, "-m", "expected-wins", "--json"])
        assert streamed.exit_code == 0, streamed.output
        # the same table; only the signature's content hash differs (other bytes: a folder, a database)
        assert unsigned(json.loads(streamed.output)) == unsigned(json.loads(whole.output))


def test_rank_keeps_the_bootstrap_unit_and_refuses_bad_input(data):
    root, _ = data
    runner = CliRunner()
    result = runner.invoke(cli, ["rank", str(root / "hive"), "-m", "expected-wins", "--bootstrap", "20",
                                 "--resample", "judge"])
    assert result.exit_code == 0, result.output
    assert "20 resamples of judges" in result.output
    result = runner.invoke(cli, ["rank", str(root / "hive"), "-m", "bt", "--bootstrap", "20"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    # the rows are counts: the title and the bootstrap count battles (frequency weights), no warning
    assert "(6,000 comparisons in 168 weighted rows)" in said and "warning" not in said
    result = runner.invoke(cli, ["rank", str(root / "hive"), "--keep", "session"])
    assert result.exit_code == 2 and "the unit columns are judge, item, group" in result.output
    result = runner.invoke(cli, ["rank", str(root / "battles.db"), "--sql", "SELECT nothing"])
    assert result.exit_code == 2 and "DuckDB cannot run the query" in result.output
    assert "bug in humeval" not in result.output


def test_materialising_is_announced_on_the_command_line(data, tmp_path):
    root, _ = data
    shutil.copytree(root / "flat", tmp_path / "flat")
    result = CliRunner().invoke(cli, ["rank", str(tmp_path / "flat"), "-m", "adjusted-uniform"])
    assert result.exit_code == 0, result.output
    assert "warning: AdjustedUniform fits on single comparisons" in " ".join(result.output.split())
    assert os.path.exists(tmp_path / "flat")


def test_convert_keeps_the_weights(data, tmp_path):
    """The counts written by convert (humeval's layout with weight and bothbad) stream back, and
    read in memory, to the same counts."""
    root, rows = data
    result = CliRunner().invoke(cli, ["convert", str(root / "hive"), str(tmp_path / "counts.parquet"), "--quiet"])
    assert result.exit_code == 0, result.output
    written = pd.read_parquet(tmp_path / "counts.parquet")
    assert written["weight"].sum() == N and len(written) == len(read(root / "hive").comparisons)
    (tmp_path / "again").mkdir()
    (tmp_path / "counts.parquet").rename(tmp_path / "again" / "counts.parquet")
    for again in (read(tmp_path / "again").comparisons, read(tmp_path / "again" / "counts.parquet").comparisons):
        np.testing.assert_array_equal(pair_counts(again), pair_counts(rows))
        assert again.weight[again.bothbad].sum() == _bothbad(root).sum()


def test_humeval_layout_with_tracks_and_groups(tmp_path):
    """What `humeval convert` writes (track, item, judge, group, system_a, system_b, outcome),
    split into two CSV files: per track the same counts, and the kept groups are the ranking ids."""
    from humeval.data.export import pairwise_frame, write
    from humeval.simulate import simulate_competition
    rows = simulate_competition(n_systems=5, n_items=40, n_judges=4, n_judgments=300, random_state=2).comparisons
    frame = pairwise_frame(rows).assign(track=np.where(np.arange(len(rows)) % 3 == 0, "de-en", "fr-en"))
    (tmp_path / "d").mkdir()
    write(frame.iloc[:200], tmp_path / "d" / "a.csv")
    write(frame.iloc[200:], tmp_path / "d" / "b.csv")
    write(frame, tmp_path / "all.csv")
    whole = read(tmp_path / "all.csv").comparisons.by_track()
    for options in ({}, {"engine": "duckdb"}):
        streamed = read(tmp_path / "d", keep=("group",), **options).comparisons
        parts = streamed.by_track()
        assert sorted(parts) == ["de-en", "fr-en"]
        for track, part in parts.items():
            np.testing.assert_array_equal(pair_counts(part), pair_counts(whole[track]))
            assert set(part.group) == set(whole[track].group)


def test_commands_that_draw_single_comparisons_expand_streamed_counts(data):
    """compare-models (and plan, active-study) split and subsample single comparisons: the streamed
    counts are expanded to the battles they stand for, and the command says so."""
    root, whole = data
    result = CliRunner().invoke(cli, ["compare-models", str(root / "flat"), "--keep", "item", "-m", "bt",
                                      "--sizes", "200", "--trials", "1", "--min-test", "500"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert f"weighted rows are expanded to {len(whole):,} comparisons" in said and "perplexity" in said


def test_single_comparison_commands_refuse_fractional_weights(tmp_path):
    from humeval.cli.common import UserError, single_comparisons
    from humeval.data.judgments import Judgments, ReadReport
    c = Comparisons(a=[0, 1], b=[1, 0], outcome=[1, 2], weight=[0.5, 2.0], systems=("A", "B"))
    with pytest.raises(UserError, match="cannot split a weighted row"):
        single_comparisons(Judgments(ReadReport("x", "pairwise"), comparisons=c), "plan")
    whole = Comparisons(a=[0, 1], b=[1, 0], outcome=[1, 2], weight=[1.0, 3.0], systems=("A", "B"))
    out = single_comparisons(Judgments(ReadReport("x", "pairwise"), comparisons=whole), "plan", quiet=True)
    assert out.comparisons.a.tolist() == [0, 1, 1, 1] and not out.comparisons.weighted


def test_streamed_and_file_reads_agree_on_missing_weights_and_both_bad_labels(tmp_path):
    """The streaming reader follows the file reader's rules: a row without a weight is skipped and
    counted; a "tie (bothbad)" label mapped to a win is a win, not a both-bad tie."""
    table = pa.table({"model_a": ["x", "x", "y", "x"], "model_b": ["y", "y", "z", "z"],
                      "winner": ["model_a", "tie (bothbad)", "tie (bothbad)", "model_b"],
                      "n": pa.array([2.0, None, 1.0, 3.0])})
    (tmp_path / "d").mkdir()
    pq.write_table(table, tmp_path / "d" / "p.parquet")
    file = read(tmp_path / "d" / "p.parquet", weight="n")
    for options in ({}, {"engine": "duckdb"}):
        streamed = read(tmp_path / "d", columns={"weight": "n"}, **options)
        assert streamed.report.skipped == file.report.skipped == {"rows without a weight (n)": 1}
        np.testing.assert_array_equal(pair_counts(streamed.comparisons), pair_counts(file.comparisons))
        assert streamed.comparisons.weight[streamed.comparisons.bothbad].sum() == 1.0
    relabelled = {"tie (bothbad)": 1}
    file = read(tmp_path / "d" / "p.parquet", weight="n", outcomes=relabelled).comparisons
    streamed = read(tmp_path / "d", columns={"weight": "n"}, outcomes=relabelled).comparisons
    assert not file.bothbad.any() and not streamed.bothbad.any()
    np.testing.assert_array_equal(pair_counts(streamed), pair_counts(file))
