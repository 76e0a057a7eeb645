"""``humeval.cli.common.load`` takes every input as a parameter: nothing comes from click's context."""

import click
import pytest

from humeval.cli.common import load

def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_load_reads_the_delimiter_it_is_given_and_nothing_from_the_context(tmp_path):
    path = write(tmp_path, "r.csv", "item;system;score\n1;A;3\n2;B;4\n1;B;5\n")
    assert sorted(load(path, quiet=True, delimiter=";").ratings.score.tolist()) == [3, 4, 5]
    # a command's context (the old ctx.meta stash, a command named compare-models) changes nothing
    with click.Context(click.Command("compare-models")) as ctx:
        ctx.meta["humeval.read.delimiter"] = ";"
        with pytest.raises(ValueError, match="delimiter"):
            load(path, quiet=True)  # read as a comma file: one column, and the reader says which delimiter


def test_single_expands_weighted_rows_only_when_asked(tmp_path):
    path = write(tmp_path, "w.csv", "model_a,model_b,winner,weight\ngpt,claude,model_a,2\nclaude,llama,tie,3\n")
    weighted = load(path, quiet=True, reader={"weight": "weight"}).comparisons
    assert weighted.weighted
    rows = load(path, quiet=True, reader={"weight": "weight"}, single="plan").comparisons
    assert len(weighted) == 2 and not rows.weighted and len(rows) == 5  # 2 + 3 copies
    assert rows.outcome.tolist().count(0) == 3
