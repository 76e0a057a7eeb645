"""The campaign report's ratings sections: controls, annotators, model hook, WMT ranking and heatmap."""

import numpy as np
import pandas as pd

from humeval.data.judgments import Judgments, ReadReport
from humeval.data.tables import Ratings
from humeval.ratings import rank_ratings
from humeval.report.ratings import ratings_sections, without_controls
from humeval.simulate.ratings import simulate_ratings


def test_ratings_sections_tell_the_story_of_a_simulated_campaign():
    sim = simulate_ratings(n_systems=4, n_items=15, n_judges=20, n_ratings=8000, bad_ref=0.1, repeat=0.05,
                           random_judges=0.2, random_state=1)
    summary, methods = [], []
    sections = ratings_sections(sim.ratings, "sim.csv", n_boot=100, summary=summary, methods=methods)
    controls, models, ranking = sections
    counts = controls.tables[0].frame.loc["simulated"]
    kinds = np.array(sim.ratings.kinds)[sim.ratings.kind]
    assert counts.to_dict() == {k: int((kinds == k).sum()) for k in ("BAD_REF", "REPEAT", "SYSTEM")}
    qc = controls.tables[1].frame
    assert sorted(qc.index[qc["flag"] == "fail"]) == sorted(map(str, sim.truth.random_judges))
    assert "4 of 20 annotators with degraded-reference pairs fail WMT's quality control." in summary
    held = models.tables[0].frame
    assert {"raw", "z-mean", "mixed"} <= set(held.index) and held["log_score"].is_monotonic_decreasing
    assert models.notes == [f"simulated: {held.index[0]} predicts unseen ratings best"]
    assert models.tables[0].command == "humeval rank sim.csv --heldout --track simulated"
    table = ranking.tables[0].frame
    system_only = sim.ratings.take(kinds == "SYSTEM").compact()
    expected = rank_ratings(system_only, model="z-mean").table
    assert table.index.tolist() == expected.index.tolist()
    assert np.allclose(table["z"], expected["z"]) and table["cluster"].tolist() == expected["cluster"].tolist()
    assert table["ratings"].sum() == (kinds == "SYSTEM").sum()  # no control row is ranked
    assert all(f.png.startswith(b"\x89PNG") for f in ranking.figures) and len(ranking.figures) == 2
    assert any("head to head" in f.title for f in ranking.figures)
    assert ranking.tables[0].command == ("humeval rank sim.csv --model z-mean --bootstrap 100 --significance wilcoxon "
                                         "--rank-sets --random-state 0 --track simulated")
    # the rank confidence sets beside WMT's clusters: those of the same 100 resamples (rank --rank-sets)
    from humeval.experiments.rank_sets import ratings_rank_sets
    sets, _ = ratings_rank_sets(rank_ratings(system_only, model="z-mean", n_boot=100, random_state=0))
    assert table[["rank set", "marginal", "top1"]].to_dict() == sets.loc[table.index].to_dict()
    assert list(table.columns[-2:]) == ["wins", "cluster"] and "rank set: every system's rank" in ranking.tables[0].how


def test_a_file_without_controls_says_so_and_still_ranks():
    rng = np.random.default_rng(0)
    rows = [(f"s{i}", s, f"a{j}", float(np.clip(q + rng.normal(0, 10), 0, 100)))
            for i in range(20) for s, q in (("A", 80), ("B", 50)) for j in range(3)]
    ratings = Ratings.from_pandas(pd.DataFrame(rows, columns=["item", "system", "judge", "score"]), scale="0-100")
    sections = ratings_sections(ratings, "r.csv", n_boot=50)
    assert "marks no degraded-reference (BAD_REF) or repeat items" in sections[0].notes[0]
    assert sections[0].tables[0].frame.to_dict() == {"unmarked": {"(no track)": 120}}
    assert sections[2].tables[0].frame.index.tolist() == ["A", "B"]


def test_without_controls_leaves_system_ratings_only():
    df = pd.DataFrame({"judge": ["a", "a", "a"], "item": ["1", "1", "2"], "system": ["S", "S", "S"],
                       "kind": ["SYSTEM", "BAD_REF", "REF"], "score": [80.0, 20.0, 90.0]})
    judgments = Judgments(ReadReport("x", "ratings"), ratings=Ratings.from_pandas(df))
    kept = without_controls(judgments).ratings
    assert len(kept) == 1 and kept.score.tolist() == [80.0]
    assert len(judgments.ratings) == 3  # the original is untouched


def test_a_ratings_report_with_nothing_to_assess_says_so():
    """Issue 27: no 'pairs skipped' caption on ratings, no all-'–' agreement table, no '0 of 4 judges
    flagged' when none could be assessed, and the ratings papers cited (not the ranking models')."""
    from humeval.report import build_report, to_markdown
    rng = np.random.default_rng(0)
    # four judges, each rating their own items: no item is rated twice, no judge shares a pair
    rows = [(f"s{i}", s, f"a{i % 4}", float(np.clip(q + rng.normal(0, 10), 0, 100)))
            for i in range(40) for s, q in (("A", 80), ("B", 50), ("C", 60))]
    ratings = Ratings.from_pandas(pd.DataFrame(rows, columns=["item", "system", "judge", "score"]), scale="0-100")
    report = build_report(Judgments(ReadReport("r.csv", "ratings"), ratings=ratings), "r.csv", n_boot=20, trials=1)
    md = to_markdown(report)
    assert "pairs skipped" not in md and "Counted per track from the file as read." in md
    assert "Inter- and intra-annotator agreement" not in md
    assert "no agreement to measure: no item was judged twice" in md
    assert "Judges: none of the 4 judges could be assessed: each shares fewer than 20 pairs with the other judges." \
        in report.summary and not any("judges flagged" in s for s in report.summary)
    assert "Graham et al. 2017" in report.references and "Hopkins & May 2013" not in report.references
    assert "Cohen 1960" not in report.references  # no agreement computed, none cited
    assert all(key in md for key in report.references)  # every listed reference is cited in the text


def test_the_ratings_ranking_says_how_few_ratings_reverse_each_order(tmp_path):
    """A: 10, 9, 1 (mean 6.67), B: 5, 5, 4 (4.67), C: 3, 3 (by hand, as test_robustness): A > B falls
    by dropping A's 10 and B's 4 (rows 1 and 6: two of 8 ratings, 25 %), B > C by no drop; a
    BAD_REF control rating of C (99) is not counted, and ``rank --robustness`` prints the same rows."""
    from click.testing import CliRunner

    from humeval.cli import cli
    rows = [("A", 10), ("A", 9), ("A", 1), ("B", 5), ("B", 5), ("B", 4), ("C", 3), ("C", 3)]
    df = pd.DataFrame({"item": [f"s{i}" for i in range(8)], "system": [s for s, _ in rows],
                       "judge": ["j1", "j2"] * 4, "score": [float(v) for _, v in rows], "kind": "SYSTEM"})
    df.loc[len(df)] = ["s0", "C", "j1", 99.0, "BAD_REF"]
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    ratings = Ratings.from_pandas(df, scale="0-100")
    summary = []
    sections = ratings_sections(ratings, str(path), n_boot=50, summary=summary)
    ranking = sections[2]
    table = next(t for t in ranking.tables if "reverse each order" in t.title)
    assert table.frame.index.tolist() == ["A > B", "B > C"]
    assert table.frame.columns.tolist() == ["gap", "dropped", "share", "rows"]  # row_list is rank --json's
    assert table.frame.loc["A > B", "dropped"] == 2 and table.frame.loc["A > B", "share"] == 0.25
    assert table.frame.loc["A > B", "rows"] == "1, 6" and pd.isna(table.frame.loc["B > C", "dropped"])
    assert "raw means is the ranking's above" in table.how
    assert any(line.endswith("rank 1 by mean rating, A, falls by dropping 2 of 8 ratings (25.0%)") for line in summary)
    # a human reference above them is no contestant: rank 1 is still A's, counted among all ratings
    df.loc[len(df)] = ["s1", "ref", "j2", 100.0, "SYSTEM"]
    summary = []
    ratings_sections(Ratings.from_pandas(df, scale="0-100"), str(path), n_boot=50, summary=summary)
    assert any(line.endswith("rank 1 by mean rating among the systems, A, falls by dropping 2 of 9 ratings (22.2%)")
               for line in summary), summary
    printed = CliRunner().invoke(cli, table.command.split()[1:])
    assert printed.exit_code == 0, printed.output
    line = next(li for li in printed.output.splitlines() if "A > B" in li)
    assert "1, 6" in line and " 2 " in line


def test_the_ranking_on_an_organisers_file_names_their_protocol():
    """On WMT's per-annotator DA file the report ranks by humeval's default procedure, so it says
    so and names the command that gives WMT's numbers (an audit found "Ratings ranking as WMT"
    and "cluster: WMT's groups" over numbers that differ from WMT22's); other files get no such note."""
    from pathlib import Path

    import humeval
    from humeval.ratings.protocols import organisers
    path = Path(__file__).parents[1] / "fixtures" / "wmt_da_toen" / "ad-csen-good-stnd.csv"
    judgments = humeval.read(path)
    assert [p.name for p in organisers(judgments.report.format)] == ["wmt-da-toen"]
    assert [p.name for p in organisers("wmt-da-seg")] == ["wmt-da-toen"]
    assert [p.name for p in organisers("wmt25-jsonl")] == ["wmt25"]
    assert organisers("pairwise") == [] and organisers(None) == []
    methods = []
    sections = ratings_sections(judgments.ratings, str(path), n_boot=20, methods=methods,
                                fmt=judgments.report.format)
    ranking = sections[-1]
    assert any(n.startswith("not wmt-da-toen: this file is in the layout of WMT direct assessment into English")
               and f"`humeval rank {path} --protocol wmt-da-toen" in n for n in ranking.notes), ranking.notes
    assert "not an organiser's protocol" in ranking.tables[0].how
    assert any(m.startswith("Ratings ranking, humeval's default procedure") for m in methods)
    sim = simulate_ratings(n_systems=3, n_items=10, n_judges=6, n_ratings=600, random_state=2)
    plain = ratings_sections(sim.ratings, "sim.csv", n_boot=20)[-1]
    assert not any(n.startswith("not ") for n in plain.notes)


def test_the_agreement_caption_describes_only_the_measures_in_the_table():
    """Continuous scores get Krippendorff's alpha and the repeat correlation only: the caption no
    longer describes P(A) and cites Cohen for them (found reviewing the judges change)."""
    from humeval.report.campaign import REFERENCES, agreement_caption
    alpha = agreement_caption({"Krippendorff alpha (interval)", "repeat correlation (Pearson)"})
    assert "Cohen 1960" not in alpha and "P(A) = share" not in alpha
    assert "alpha = 1 − D_o / D_e" in alpha and "Krippendorff 2004" in alpha and "Pearson's r" in alpha
    kappa = agreement_caption({"exact-match kappa", "linearly weighted kappa"})
    assert "Cohen 1960" in kappa and "Krippendorff" not in kappa and "Pearson" not in kappa
    assert "mean disagreement weight" in kappa
    assert "mean disagreement weight" not in agreement_caption({"exact-match kappa"})
    assert "Krippendorff 2004" in REFERENCES
