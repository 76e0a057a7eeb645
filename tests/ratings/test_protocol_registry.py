"""The organisers' procedures reach `rank --protocol` and give the numbers their own functions give."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import humeval
from humeval.cli import cli
from humeval.ratings import protocols
from humeval.ratings.esa_wmt24 import wmt24_esa
from humeval.ratings.mqm_google import google_mqm

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_every_named_procedure_is_registered():
    assert {"humeval", "wmt-da-toen", "wmt24-esa", "google-mqm"} <= set(protocols.PROTOCOLS)


@pytest.mark.parametrize("name, fixture, function, column", [
    ("wmt24-esa", "esa_wmt24_small.csv", wmt24_esa, "score"),
    ("google-mqm", "mqm_small.ende.tsv", google_mqm, "mqm"),
])
def test_rank_protocol_equals_the_procedure(name, fixture, function, column):
    path = FIXTURES / fixture
    result = CliRunner().invoke(cli, ["rank", str(path), "--protocol", name, "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output[result.output.index("{"):])
    ratings = humeval.read(path, **({"controls": True} if protocols.get(name).needs_controls else {})).ratings
    for track, part in shown.items():
        assert part["protocol"] == name
        expected = function(ratings.by_track()[track] if len(ratings.tracks) > 1 else ratings).table[column]
        got = {row["system"]: row[column] for row in part["table"]}
        assert got == pytest.approx(expected.to_dict(), rel=1e-12)
