"""Arena battles: FastChat's clean_battle JSON (a JSON array with conv_metadata), both-bad ties
kept apart, covariates (style control and user-named columns), weights and categories; bad
values are counted skips or errors naming file and line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import humeval
from conftest import FIXTURES
from humeval.data.readers import guess_format
from humeval.data.readers.arena import column
from humeval.data.readers._arrow import load_table
from humeval.errors import InputError

BATTLES = FIXTURES / "arena_battles.json"
WEIGHTS = FIXTURES / "arena_weights.csv"


def fastchat_style(records) -> np.ndarray:
    """FastChat's preprocess_for_style written out from its description: per element the count
    (a dict counts as the sum of its values), (a − b) / (a + b + 1), standardised (np.std, ddof 0)."""
    elements = [("sum_assistant_a_tokens", "sum_assistant_b_tokens"), ("header_count_a", "header_count_b"),
                ("list_count_a", "list_count_b"), ("bold_count_a", "bold_count_b")]
    value = lambda v: sum(v.values()) if isinstance(v, dict) else v
    columns = []
    for ea, eb in elements:
        xa = np.array([value(r["conv_metadata"][ea]) for r in records], dtype=float)
        xb = np.array([value(r["conv_metadata"][eb]) for r in records], dtype=float)
        d = (xa - xb) / (xa + xb + 1)
        columns.append((d - d.mean()) / d.std())
    return np.column_stack(columns)


def test_clean_battle_json_is_guessed_and_keeps_both_bad_ties_apart():
    assert guess_format(BATTLES) == ("pairwise", "the JSON keys")
    j = humeval.read(BATTLES)
    c = j.comparisons
    assert len(c) == 8 and c.systems == ("claude", "gpt", "llama")
    assert c.outcome.tolist() == [1, 2, 0, 0, 2, 0, 2, 1]
    assert c.bothbad.tolist() == [False, False, False, True, False, True, False, False]  # q4, q6
    assert c.judges == ("u1", "u2", "u3") and c.items[0] == "q1"
    assert c.covariate_names == () and not c.weighted


def test_style_features_match_fastchat_recipe():
    records = json.loads(BATTLES.read_text())
    c = humeval.read(BATTLES, style="fastchat").comparisons
    assert c.covariate_names == ("length", "headers", "lists", "bold")
    np.testing.assert_allclose(c.covariates, fastchat_style(records), atol=1e-12)
    # by hand, before standardising: q1's length feature is (300 − 100) / (300 + 100 + 1)
    lengths = np.array([200 / 401, -100 / 201, 0, -40 / 81, -80 / 321, 0, -180 / 361, 400 / 601])
    np.testing.assert_allclose(c.covariates[:, 0], (lengths - lengths.mean()) / lengths.std(), atol=1e-12)
    assert any("as FastChat does" in note for note in humeval.read(BATTLES, style="fastchat").report.notes)


def test_style_features_are_the_ratios_by_default():
    c = humeval.read(BATTLES, style=True).comparisons
    lengths = [200 / 401, -100 / 201, 0, -40 / 81, -80 / 321, 0, -180 / 361, 400 / 601]
    np.testing.assert_allclose(c.covariates[:, 0], lengths, atol=1e-15)
    # q1 headers: a has h1 2 + h2 1 = 3, b none: 3/4; q5 bold: a 1 + 1 = 2, b 2 + 0 = 2: 0
    assert c.covariates[0, 1] == pytest.approx(3 / 4) and c.covariates[4, 3] == 0
    # q7 lists: a 0, b 0 + 5 = 5: −5/6
    assert c.covariates[6, 2] == pytest.approx(-5 / 6)
    with pytest.raises(InputError, match="style='loud' is not one of"):
        humeval.read(BATTLES, style="loud")


def test_style_from_parquet_with_nested_metadata(tmp_path):
    import pyarrow.parquet as pq
    path = tmp_path / "battles.parquet"
    pq.write_table(load_table(BATTLES, "json"), path)
    from_json = humeval.read(BATTLES, style="fastchat").comparisons
    from_parquet = humeval.read(path, style="fastchat").comparisons
    np.testing.assert_allclose(from_parquet.covariates, from_json.covariates)
    assert from_parquet.bothbad.tolist() == from_json.bothbad.tolist()


def test_category_from_a_nested_field_and_from_a_column():
    c = humeval.read(BATTLES, category="category_tag.math_v0.1.math").comparisons
    assert c.categories == ("false", "true")
    assert c.category.tolist() == [1, 0, 1, 0, 0, 1, 0, 1]
    c = humeval.read(BATTLES, category="language").comparisons
    assert [c.categories[k] for k in c.category] == ["English", "English", "German", "German", "English",
                                                     "English", "German", "German"]
    with pytest.raises(InputError, match="holds records.*category_tag.FIELD"):
        humeval.read(BATTLES, category="category_tag")
    with pytest.raises(InputError, match="no column 'category_tag.math_v0.1.nope'"):
        humeval.read(BATTLES, category="category_tag.math_v0.1.nope")


def test_csv_weights_covariates_category_and_counted_skips():
    j = humeval.read(WEIGHTS, weight="weight", covariates="len_a/len_b,style_diff", category="category")
    c, report = j.comparisons, j.report
    # kept: lines 2, 3, 4, 8; line 5 has no style_diff, line 6 no weight, line 7 weight 0
    assert report.skipped == {"rows without a value of covariate style_diff": 1,
                              "rows without a weight (weight)": 1, "rows of weight 0 (weight)": 1}
    assert report.examples["rows without a value of covariate style_diff"] == [5]
    assert report.examples["rows without a weight (weight)"] == [6]
    assert report.examples["rows of weight 0 (weight)"] == [7]
    assert c.weight.tolist() == [2.0, 1.0, 0.5, 3.0] and c.weighted
    assert c.covariate_names == ("len_a-len_b", "style_diff")
    np.testing.assert_array_equal(c.covariates, [[200, 0.5], [-100, -0.25], [0, 0], [-180, -1.5]])
    assert c.categories == ("coding", "math") and c.category.tolist() == [0, 0, 1, -1]
    assert c.bothbad.tolist() == [False, False, False, False]  # the both-bad row (line 5) was skipped
    assert any("1 rows have no category" in n for n in report.notes)


def test_covariates_travel_through_pandas():
    c = humeval.read(WEIGHTS, covariates=["len_a/len_b"]).comparisons
    df = c.to_pandas()
    assert df["len_a-len_b"].tolist() == [200, -100, 0, -40, -80, 0, -180]
    back = type(c).from_pandas(df)
    np.testing.assert_array_equal(back.covariates, c.covariates)


@pytest.mark.parametrize("cell, message", [
    ("-1", "weight 'weight' is -1; a weight must be finite and ≥ 0"),
    ("inf", "weight .weight. is inf; a weight must be finite and ≥ 0"),
    ("heavy", "'heavy', expected a number"),
])
def test_bad_weights_are_errors_naming_the_line(tmp_path, cell, message):
    text = WEIGHTS.read_text().splitlines()
    fields = text[1].split(",")  # line 2
    fields[4] = cell
    text[1] = ",".join(fields)
    path = tmp_path / "w.csv"
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(InputError, match=message) as error:
        humeval.read(path, weight="weight")
    assert "w.csv:2" in str(error.value) and "fix" in str(error.value)


def test_text_in_a_covariate_names_file_and_line(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(WEIGHTS.read_text().replace(",0.1,math", ",lots,math"))
    with pytest.raises(InputError, match=r"c.csv:6: style_diff is 'lots', expected a number"):
        humeval.read(path, covariates="style_diff")


def test_json_record_errors_name_the_record(tmp_path):
    records = json.loads(BATTLES.read_text())
    records[2]["weight"] = -3
    for r in records[:2]:
        r["weight"] = 1
    path = tmp_path / "b.json"
    path.write_text(json.dumps(records))
    with pytest.raises(InputError, match=r"record 3\)"):
        humeval.read(path, weight="weight")
    path.write_text("[{\"model_a\": 1,}]")
    with pytest.raises(InputError, match="not valid JSON"):
        humeval.read(path, format="pairwise")
    records[1]["weight"] = "heavy"
    path.write_text(json.dumps(records))
    with pytest.raises(InputError, match=r"'weight' is a string here but a number in record 1 \(record 2\)"):
        humeval.read(path)
    path.write_text(json.dumps(records[:1])[:-1] + " " + json.dumps(records[1]) + "]")
    with pytest.raises(InputError, match="b.json:1: expected ',' or ']' after a record"):
        humeval.read(path, format="pairwise")


def test_pretty_printed_json_array_with_a_byte_order_mark(tmp_path):
    records = json.loads(BATTLES.read_text())
    path = tmp_path / "pretty.json"
    path.write_text("\ufeff" + json.dumps(records, indent=2), encoding="utf-8")
    c = humeval.read(path, style=True).comparisons
    np.testing.assert_array_equal(c.covariates, humeval.read(BATTLES, style=True).comparisons.covariates)
    assert c.bothbad.sum() == 2


def test_style_needs_conv_metadata_and_unknown_options_are_refused():
    with pytest.raises(InputError, match="style features need conv_metadata.sum_assistant_a_tokens"):
        humeval.read(WEIGHTS, style=True)
    with pytest.raises(InputError, match="no column 'nope'"):
        humeval.read(WEIGHTS, covariates="nope")
    with pytest.raises(InputError, match="does not apply to format wmt-csv"):
        humeval.read(FIXTURES / "wmt10_small.csv", weight="w")


def test_column_reaches_into_records_with_dotted_names():
    table = load_table(BATTLES, "json")
    values = column(table, "category_tag.criteria_v0.1.complexity", BATTLES).to_pylist()
    assert values == [False, True, False, True, True, False, True, False]


def test_info_counts_both_bad_ties_apart():
    from humeval.data.describe import describe
    df = describe(humeval.read(BATTLES))["comparisons"]
    row = df.iloc[0]
    assert (row["ties"], row["both-bad ties"]) == (3, 2)
    assert isinstance(df, pd.DataFrame)


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".jsonl"])
def test_converted_files_keep_the_arena_columns(tmp_path, suffix):
    from humeval.data.export import pairwise_frame, write
    c = humeval.read(WEIGHTS, weight="weight", covariates="len_a/len_b,style_diff", category="category").comparisons
    both = humeval.read(BATTLES).comparisons
    for table, covariates in ((c, "len_a-len_b,style_diff"), (both, None)):
        path = write(pairwise_frame(table), tmp_path / f"own{suffix}")
        back = humeval.read(path, covariates=covariates).comparisons
        assert back.weight.tolist() == table.weight.tolist() and back.bothbad.tolist() == table.bothbad.tolist()
        assert [back.categories[k] if k >= 0 else None for k in back.category] == \
            [table.categories[k] if k >= 0 else None for k in table.category]
        np.testing.assert_array_equal(back.covariates, table.covariates)
    plain = pairwise_frame(humeval.read(FIXTURES / "arena_small.csv").comparisons)
    assert list(plain.columns) == ["track", "item", "judge", "group", "system_a", "system_b", "outcome", "bothbad"]


def test_own_layout_bothbad_must_be_yes_or_no(tmp_path):
    path = tmp_path / "own.csv"
    path.write_text("system_a,system_b,outcome,bothbad\nx,y,0,true\nx,y,0,0\nx,y,1,maybe\n")
    with pytest.raises(InputError, match="own.csv:4: bothbad is 'maybe', expected true or false"):
        humeval.read(path)
    path.write_text("system_a,system_b,outcome,bothbad\nx,y,0,true\nx,y,0,0\nx,y,1,1\n")
    assert humeval.read(path).comparisons.bothbad.tolist() == [True, False, False]  # a win is no tie
