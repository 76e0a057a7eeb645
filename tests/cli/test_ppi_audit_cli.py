"""`humeval ppi --audit`: the Kendall τ, tie-calibrated accuracy, self-preference and reliability rows,
the reliability PNG, and the options that need --audit; `humeval ppi --rank-sets`."""

from click.testing import CliRunner

from humeval.cli import cli
from humeval.simulate.judged import battles_frame, judged_battles
from conftest import partly_judged_battles


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_audit_prints_the_new_measures_and_draws_the_diagram(tmp_path):
    _, h, j = judged_battles(n_human=300, n_judge=1500, favour=1.0, random_state=4)
    path = tmp_path / "battles.csv"
    battles_frame(h, j, judge_name="S0-judge").to_csv(path, index=False)  # family "S": every system — pass S0
    png = tmp_path / "reliability.png"
    result = run("ppi", path, "--audit", "--family", "S0", "--reliability", png)
    assert result.exit_code == 0, result.output
    for line in ("Kendall tau, system level", "Kendall tau, battle level", "tie-calibrated accuracy",
                 "self-preference: family 'S0' (S0): judge − humans", "reliability"):
        assert line in result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_audit_options_need_audit(tmp_path):
    _, h, j = judged_battles(n_human=100, n_judge=300, random_state=0)
    path = tmp_path / "battles.csv"
    battles_frame(h, j).to_csv(path, index=False)
    for option in (("--family", "gpt"), ("--reliability", tmp_path / "r.png")):
        result = run("ppi", path, *option)
        assert result.exit_code == 2 and "goes with --audit" in result.output


def test_rank_sets_table(tmp_path):
    from humeval.experiments.ppi_ranks import ppi_rank_sets
    _, h, j = judged_battles(n_human=300, n_judge=2000, spread=2.0, random_state=6)
    path = tmp_path / "battles.csv"
    battles_frame(h, j).to_csv(path, index=False)
    result = run("ppi", path, "--rank-sets")
    assert result.exit_code == 0, result.output
    assert "rank sets, all systems at once with 95% coverage" in " ".join(result.output.split())
    sets = ppi_rank_sets(*_read(path))
    best = sets["ppi"].index[0]
    lo, hi = (int(v) for v in sets["ppi"].loc[best, ["lower", "upper"]])  # pandas 2.2 upcasts the row to float
    span = str(lo) if lo == hi else f"{lo}–{hi}"
    assert any(line.split("│")[0].strip() == best and f" {span} " in line for line in result.output.splitlines()), result.output
    ratings = run("ppi", path, "--rank-sets", "--json")
    assert ratings.exit_code == 2 and "--rank-sets goes with a battles FILE" in ratings.output


def _read(path):
    import numpy as np

    from humeval.data import read
    c = read(path).comparisons
    kinds = np.asarray(c.judge_kinds, dtype=object)[c.judge_kind]
    return c.take(np.flatnonzero(kinds == "human")), c.take(np.flatnonzero(kinds != "human"))


def test_rank_sets_show_the_humans_alone_on_all_their_battles(tmp_path, monkeypatch):
    """The rank sets' human and combined columns use only the battles the judge also judged; with
    2,000 human battles of which the judge judged 150, the humans alone on all 2,000 give tighter
    sets, shown beside with a warning (WMT10 es-en, the crowd judging the experts: mean set size
    6.33 against 9.27 combined)."""
    import pandas as pd
    import pytest

    from humeval.experiments.ppi_ranks import ppi_rank_sets, rank_span
    partly, frame = partly_judged_battles(spread=2.0)
    path = tmp_path / "battles.csv"
    partly.to_csv(path, index=False)
    humans = frame[frame.judge_kind == "human"]
    # the humans' win probabilities on all 2,000 battles by hand: wins (ties ½) over games played
    wins = pd.concat([humans.model_a.where(humans.winner == "model_a"), humans.model_b.where(humans.winner == "model_b")])
    ties = humans[humans.winner == "tie"]
    played = pd.concat([humans.model_a, humans.model_b]).value_counts()
    rate = (wins.value_counts().reindex(played.index, fill_value=0)
            + 0.5 * pd.concat([ties.model_a, ties.model_b]).value_counts().reindex(played.index, fill_value=0)) / played
    h_all, _ = _read(path)
    alone = ppi_rank_sets(h_all, h_all)["human"]
    assert alone["score"].to_dict() == pytest.approx(rate.to_dict(), abs=1e-12)
    monkeypatch.chdir(tmp_path)  # a relative path: titles holding a long temporary path would wrap
    result = run("ppi", path.name, "--rank-sets")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    combined = ppi_rank_sets(*_read(path))["ppi"]
    sizes = [float((t["upper"] - t["lower"] + 1).mean()) for t in (alone, combined)]
    assert sizes[0] < sizes[1]
    assert f"Mean rank set size: all humans {sizes[0]:.2f}, combined {sizes[1]:.2f}." in text
    assert "warning: the humans alone give the tighter rank sets here" in text
    spans, shown = rank_span(alone), {}
    for line in result.output.split("rank sets, all systems")[1].splitlines():  # the rank-sets table
        cells = [c.strip() for c in line.split("│")]
        if cells[0] in spans.index:
            shown[cells[0]] = cells[1]  # the first column: all humans ranks
    assert shown == spans.to_dict()
    # when the judge judged every human battle there is nothing to add
    frame.to_csv(path, index=False)
    text = run("ppi", path, "--rank-sets").output
    assert "all humans ranks" not in text and "tighter rank sets" not in text
