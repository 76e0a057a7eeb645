"""The notebook API (humeval.api) and the reproducibility signature (humeval.signature)."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest
from click.testing import CliRunner

import humeval
from humeval import signature
from humeval.cli import cli


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    path = tmp_path_factory.mktemp("sim") / "sim.csv"
    assert run("simulate", path, "--systems", 5, "--judgments", 600, "--quiet").exit_code == 0
    return path


def test_data_hash_is_the_files_sha256(sim):
    assert signature.data_hash(sim) == "sha256:" + hashlib.sha256(sim.read_bytes()).hexdigest()[:12]


def test_rank_prints_a_signature_and_a_rerun_from_it_is_byte_for_byte(sim):
    first = run("rank", sim, "-m", "bt", "--bootstrap", 40, "--resample", "judge", "--clusters", "--track", "simulated",
                "--random-state", 3, "--l2", 0.5)
    assert first.exit_code == 0, first.output
    line = first.stdout.strip().splitlines()[-1]
    assert line.startswith("signature: humeval:")
    sig = line.split(" ", 1)[1]
    fields = signature.parse(sig)
    assert fields["data"] == signature.data_hash(sim) and fields["model"] == "bt" and fields["boot"] == "40@judge"
    assert (fields["seed"], fields["l2"], fields["clusters"], fields["track"]) == ("3", "0.5", "wmt", "simulated")
    again = run("rank", "--signature", sig, sim)
    assert again.exit_code == 0, again.output
    assert again.stdout == first.stdout
    other_seed = run("rank", sim, "-m", "bt", "--bootstrap", 40, "--resample", "judge", "--clusters", "--track",
                     "simulated", "--l2", 0.5)
    assert other_seed.stdout != first.stdout  # the seed matters, so the signature must carry it


def test_signature_refuses_other_data_and_extra_options(sim, tmp_path):
    sig = run("rank", sim, "-m", "bt").stdout.strip().splitlines()[-1].split(" ", 1)[1]
    changed = tmp_path / "changed.csv"
    changed.write_bytes(sim.read_bytes().replace(b"sys01", b"sys09", 1))
    refused = run("rank", "--signature", sig, changed)
    assert refused.exit_code == 2 and "content hash" in refused.output and "bug in humeval" not in refused.output
    both = run("rank", "--signature", sig, "-m", "elo", sim)
    assert both.exit_code == 2 and "--model" in both.output


def test_the_whole_printed_line_reruns_and_a_bad_signature_names_no_none_path(sim):
    first = run("rank", sim, "-m", "bt")
    line = first.stdout.strip().splitlines()[-1]
    assert line.startswith("signature: ")
    again = run("rank", "--signature", line, sim)  # pasted with its "signature: " prefix
    assert again.exit_code == 0, again.output
    assert again.stdout == first.stdout
    bad = run("rank", "--signature", "signature: model:bt|seed:0", sim)
    assert bad.exit_code == 2 and "the signature lacks humeval, data" in bad.output
    assert "None" not in bad.output and "bug in humeval" not in bad.output


def test_an_input_error_without_a_path_starts_with_the_problem():
    from humeval.errors import InputError
    assert str(InputError(None, None, "no good", "do this")) == "no good (fix: do this)"
    assert str(InputError(None, 3, "no good")) == "line 3: no good"
    assert str(InputError("a.csv", 3, "no good")) == "a.csv:3: no good"
    import pickle
    again = pickle.loads(pickle.dumps(InputError(None, None, "no good")))
    assert again.path is None and str(again) == "no good"


def test_signature_is_stored_in_json_and_out(sim, tmp_path):
    data = json.loads(run("rank", sim, "-m", "bt", "--json").stdout)
    sig = data["simulated"][0]["signature"]
    assert sig.startswith(f"humeval:{humeval.__version__}|cmd:rank|data:{signature.data_hash(sim)}|model:bt|")
    assert {row["signature"] for row in data["simulated"]} == {sig}
    assert run("rank", sim, "-m", "bt", "--out", tmp_path / "t.csv", "-q").exit_code == 0
    table = pd.read_csv(tmp_path / "t.csv")
    assert (table["signature"] == sig).all()


def test_api_rank_equals_the_cli_and_takes_dataframes(sim, tmp_path):
    run("rank", sim, "-m", "bt", "--bootstrap", 30, "--out", tmp_path / "cli.csv", "-q")
    cli_table = pd.read_csv(tmp_path / "cli.csv").set_index("system")
    result = humeval.rank(sim, model="bt", bootstrap=30)
    pd.testing.assert_series_equal(result.table["score"], cli_table["score"], rtol=1e-12)
    assert result.signature == cli_table["signature"].iloc[0]
    assert result.options["n_boot"] == 30 and result.options["model_names"] == "bt"
    from_frame = humeval.rank(pd.read_csv(sim), model="bt", bootstrap=30)
    pd.testing.assert_series_equal(from_frame.table["score"], result.table["score"], rtol=1e-12)
    assert json.loads(result.to_json())["signature"] == result.signature
    assert "<table" in result._repr_html_() and result.signature in result._repr_html_()
    ax = result.plot()
    assert len(ax.get_yticklabels()) == 5


def test_api_agreement_and_report_are_the_cli_verbs(sim, tmp_path):
    shown = json.loads(run("agreement", sim, "--json").stdout)
    result = humeval.agreement(sim)
    rows = next(iter(shown.values()))
    assert {row.pop("signature") for row in rows} == {result.signature}  # the CLI's rows carry it; the API's result
    assert result.table.to_dict("records") == rows
    assert callable(humeval.agreement) and humeval.agreement.agreement_table  # the package stays a package
    report = humeval.report(sim, tmp_path / "r.html", bootstrap=10, trials=1)
    assert report.path.stat().st_size > 10_000 and "<iframe" in report._repr_html_()


def test_api_turns_usage_errors_into_value_errors(sim):
    with pytest.raises(TypeError, match="no option 'modle'"):
        humeval.rank(sim, modle="bt")
    with pytest.raises(ValueError, match="humeval rank"):
        humeval.rank(sim, model="no-such-model")


def test_a_ratings_ranking_without_a_model_signs_model_default_and_reruns(fixture):
    path = fixture("ratings_long.csv")
    first = run("rank", path)
    assert first.exit_code == 0, first.output
    sig = first.stdout.strip().splitlines()[-1].split(" ", 1)[1]
    assert signature.parse(sig)["model"] == "default"  # the file chose it, so no model name is claimed
    again = run("rank", "--signature", sig, path)
    assert again.exit_code == 0 and again.stdout == first.stdout
