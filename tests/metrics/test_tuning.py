import json

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import shared_file

from humeval.cli import cli
from humeval.metrics.meteor import Meteor, Params, score_statistics
from humeval.metrics.tuning import AXES, TuningSet, grid_values, table3, table4, tune

VOCAB = "the a cat cats dog dogs sat sits run running house houses big small red blue on under".split()


def sentences(n, rng):
    refs = [" ".join(rng.choice(VOCAB, rng.integers(4, 12))) for _ in range(n)]
    hyps = []
    for ref in refs:
        words = ref.split()
        keep = [w for w in words if rng.random() > 0.3]  # drop words, change forms, shuffle a little
        keep = [w + "s" if rng.random() < 0.2 else w for w in keep] + list(rng.choice(VOCAB, rng.integers(0, 3)))
        if len(keep) > 2 and rng.random() < 0.5:
            i = rng.integers(0, len(keep) - 1)
            keep[i], keep[i + 1] = keep[i + 1], keep[i]
        hyps.append(" ".join(keep) or "the")
    return hyps, refs


@pytest.fixture(scope="module")
def stats():
    rng = np.random.default_rng(3)
    hyps, refs = sentences(150, rng)
    second = [" ".join(r.split()[::-1]) for r in refs]  # a second, reordered reference
    return Meteor(matchers=("exact", "stem")).statistics(hyps, [refs, second])


GRID = {"alpha": [0.2, 0.5, 0.8], "beta": [0.0, 1.0, 3.0], "gamma": [0.0, 0.4, 0.8], "delta": [0.5, 0.8],
        "w_stem": [0.0, 0.6, 1.0], "w_synonym": [0.0], "w_paraphrase": [0.0]}


def test_grid_kernel_equals_scoring_every_point(stats):
    rng = np.random.default_rng(0)
    human = rng.normal(size=stats.n_segments)
    human[::7] = np.nan  # missing human scores are left out
    data = TuningSet("noise", stats, human=human, higher_is_better=False)
    pairs = rng.integers(0, stats.n_segments, size=(300, 2))
    ranked = TuningSet("pairs", stats, kind="consistency", pairs=pairs)
    for d in (data, ranked):
        grid, values = grid_values(d, GRID)
        assert values.shape == tuple(len(grid[a]) for a in AXES)
        for index in [(0, 0, 0, 0, 0, 0, 0), (2, 1, 2, 1, 1, 0, 0), (1, 2, 1, 0, 2, 0, 0)]:
            p = {a: grid[a][k] for a, k in zip(AXES, index)}
            params = Params(p["alpha"], p["beta"], p["gamma"], p["delta"], (1.0, p["w_stem"], 0.0, 0.0))
            assert values[index] == pytest.approx(d.evaluate(params), abs=1e-10)


def test_tuning_recovers_planted_parameters(stats):
    planted = Params(0.8, 3.0, 0.4, 0.8, (1.0, 0.6, 0.0, 0.0))
    seg = np.full(stats.n_segments, -np.inf)
    np.maximum.at(seg, stats.segment, score_statistics(stats.values, planted))
    rng = np.random.default_rng(1)
    human = seg + rng.normal(scale=0.002, size=len(seg))
    result = tune(TuningSet("planted", stats, human=human), GRID)
    assert result.best == planted and result.value > 0.99
    order = np.argsort(seg)  # rankings implied by the planted metric
    pairs = np.c_[order[1:], order[:-1]][np.diff(seg[order]) > 1e-9]
    ranked = tune(TuningSet("ranked", stats, kind="consistency", pairs=pairs), GRID)
    assert ranked.value == 1.0


def test_tables(stats):
    rng = np.random.default_rng(2)
    sets = [TuningSet(f"s{k}", stats, human=rng.normal(size=stats.n_segments)) for k in range(2)]
    results = [tune(s, GRID) for s in sets]
    t3 = table3(results)
    assert list(t3.index) == ["s0", "s1"] and t3.loc["s0", "objective"] == results[0].value
    t4 = table4(results, sets, {"BLEU": {"s0": rng.normal(size=stats.n_segments)}}, default=Params())
    assert t4.loc["METEOR-NEXT tuned on s1", "s1"] == pytest.approx(results[1].value)  # the oracle diagonal
    assert t4.loc["METEOR-NEXT tuned on s0", "s1"] <= results[1].value + 1e-12
    assert np.isnan(t4.loc["BLEU", "s1"]) and "METEOR (default)" in t4.index


def test_tuning_set_validation(stats):
    with pytest.raises(ValueError, match="one per segment"):
        TuningSet("x", stats, human=np.zeros(3))
    with pytest.raises(ValueError, match="pairs"):
        TuningSet("x", stats, kind="consistency")


def hide_wordnet(monkeypatch, tmp_path):
    """As on a machine without WordNet: HUMEVAL_WORDNET points to an empty directory and the usual
    places are not searched."""
    import importlib
    wordnet = importlib.import_module("humeval.metrics.meteor.wordnet")
    (tmp_path / "no-wordnet").mkdir()
    monkeypatch.setenv("HUMEVAL_WORDNET", str(tmp_path / "no-wordnet"))
    monkeypatch.setattr(wordnet, "SEARCH_PATHS", ())
    return tmp_path / "no-wordnet"


def test_tune_command(tmp_path, monkeypatch):
    # exact and stem matchers need no WordNet: the command must run on machines without it
    empty = hide_wordnet(monkeypatch, tmp_path)
    rng = np.random.default_rng(5)
    hyps, refs = sentences(40, rng)
    (tmp_path / "h.txt").write_text("\n".join(hyps) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(refs) + "\n")
    m = Meteor(matchers=("exact", "stem"), tokenize="none")
    human = m(hyps, refs).segment + rng.normal(scale=0.05, size=len(hyps))
    (tmp_path / "y.txt").write_text("\n".join(f"{v:.6f}" for v in human) + "\n")
    (tmp_path / "da.tsv").write_text("index\tmean\n" + "".join(f"{i}\t{-v}\n" for i, v in enumerate(human)))
    spec = f"{tmp_path / 'h.txt'},{tmp_path / 'r.txt'}"
    import humeval.cli.metric as metric_command
    aligned, align = [], metric_command.meteor_statistics
    monkeypatch.setattr(metric_command, "meteor_statistics", lambda *args: aligned.append(args[3]) or align(*args))
    result = CliRunner().invoke(cli, ["metric", "tune", "--matchers", "exact,stem", "--tokenize", "none",
                                      "--data", f"A={spec},{tmp_path / 'y.txt'}",
                                      "--data", f"B={spec},{tmp_path / 'da.tsv'},lower",
                                      "--alpha", "0.5,0.85", "--beta", "0.2:1.2:0.5", "--json"])
    assert result.exit_code == 0, result.output
    assert aligned == ["A"]  # B scores the same segments: aligned once
    data = json.loads(result.output)
    assert data["grid_points"] == 2 * 3 * 11 * 6
    a, b = data["table3"]
    assert a["objective"] == pytest.approx(b["objective"])  # B is −A with lower-is-better
    assert {row["metric"] for row in data["table4"]} >= {"BLEU", "TER", "METEOR-NEXT tuned on A"}
    bad = CliRunner().invoke(cli, ["metric", "tune", "--matchers", "exact,stem", "--data", f"A={spec}"])
    assert bad.exit_code == 2 and "NAME=HYP,REF,HUMAN" in bad.output
    short = tmp_path / "short.txt"
    short.write_text("0.5\n")
    bad = CliRunner().invoke(cli, ["metric", "tune", "--matchers", "exact,stem", "--data", f"A={spec},{short}"])
    assert bad.exit_code == 2 and "1 scores for 40 hypotheses" in bad.output
    # the synonym matcher without WordNet: a clear message naming the fix, before any work
    missing = CliRunner().invoke(cli, ["metric", "tune", "--matchers", "exact,synonym", "--wordnet", str(empty),
                                       "--data", f"A={spec},{tmp_path / 'y.txt'}"])
    assert missing.exit_code == 2 and "WordNet database files" in missing.output and "wordnet-base" in missing.output


def test_score_command_with_meteor(tmp_path):
    (tmp_path / "h.txt").write_text("the cats sat\nhello world\n")
    (tmp_path / "r.txt").write_text("the cat sat\nhello world\n")
    result = CliRunner().invoke(cli, ["metric", "score", "--hyp", str(tmp_path / "h.txt"), "--ref", str(tmp_path / "r.txt"),
                                      "--metrics", "meteor,bleu", "--matchers", "exact,stem", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["metric"]: r for r in json.loads(result.output)}
    # rank-en (α .85, β .2, γ .6, δ .75, stem weight .6). "the cats sat": "the" (function word) and "sat"
    # exact, cats~cat stem, one chunk covering everything (no penalty): P = R = (.75·(1 + .6) + .25)/(.75·2 + .25)
    # = 29/35. The corpus sums both segments' counts: content 3 exact + 1 stem of 4, function 1 of 1 ->
    # P = R = (.75·3.6 + .25)/(.75·4 + .25) = 59/65, and 2 chunks over 5 matches -> penalty .6·(2/5)^.2
    assert rows["METEOR"]["corpus"] == pytest.approx((1 - 0.6 * 0.4 ** 0.2) * 59 / 65)
    assert rows["METEOR"]["signature"].startswith("meteor|")
    segments = Meteor(matchers=("exact", "stem"))(["the cats sat", "hello world"], ["the cat sat", "hello world"]).segment
    assert segments.tolist() == pytest.approx([29 / 35, 1.0])


def test_mlqe_pe_tuning_beats_defaults_and_baselines():
    from humeval.metrics import bleu
    pe_dir = shared_file("mlqe-pe/et-en/post-editing")
    n = 300
    hyps = (pe_dir / "dev.mt").read_text(encoding="utf-8").splitlines()[:n]
    refs = (pe_dir / "dev.pe").read_text(encoding="utf-8").splitlines()[:n]
    hter = np.loadtxt(pe_dir / "dev.hter")[:n]
    scorer = Meteor(matchers=("exact", "stem"), tokenize="none")
    stats = scorer.statistics(hyps, refs)
    assert stats.searches["beam"] <= 0.03 * n
    data = TuningSet("et-en HTER", stats, human=hter, higher_is_better=False)
    result = tune(data)
    assert result.value > data.evaluate(scorer.params) + 0.05  # tuning helps
    assert result.value > data.objective(bleu(hyps, [refs]).segment)  # and beats sentence BLEU
    assert result.best.beta >= 1.0  # HTER wants a harsh fragmentation penalty shape (paper §5.3)
