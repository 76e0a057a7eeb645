"""Readers of LLM-judge benchmarks: Arena-Hard-Auto's model_judgment JSONL, AlpacaEval's
annotations.json and MT-Bench's pairwise and single-answer judgments, on small fixtures written
after the layouts the tools' own code writes (see each module's doc); malformed variants end in a
counted read or an ``InputError`` naming the file, never another exception."""

import json
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.data.readers import guess_format, read
from humeval.errors import InputError

FIXTURES = Path(__file__).parent.parent / "fixtures"
BUG = "this is a bug in humeval"


def battles(judgments):
    df = judgments.comparisons.to_pandas()
    cols = [c for c in ("a", "b", "outcome", "item", "judge", "judge_kind", "weight", "category") if c in df]
    return sorted(tuple(r) for r in df[cols].itertuples(index=False))


def test_arena_hard_games_in_the_order_shown():
    path = FIXTURES / "arena_hard_small.jsonl"
    assert guess_format(path)[0] == "arena-hard"
    j = read(path)
    g = "gpt-4.1"
    assert battles(j) == sorted([
        ("o3-mini", "llama-3", 2, "q1", g, g, 1.0, "hard_prompt"),   # game 1: A = baseline, "B>A"
        ("llama-3", "o3-mini", 1, "q1", g, g, 1.0, "hard_prompt"),   # game 2: A = model, "A>>B"
        ("o3-mini", "llama-3", 0, "q2", g, g, 1.0, "hard_prompt"),   # "A=B"; game 2 null
        ("o3-mini", "qwen-2", 1, "q1", g, g, 1.0, "hard_prompt"),    # "A>B"
        ("qwen-2", "o3-mini", 2, "q1", g, g, 1.0, "hard_prompt"),    # "A<<B": b wins
    ])
    assert j.report.skipped == {"games without a verdict (score null: the judge gave none)": 2,
                                "games with an unrecognised verdict (not A>>B, A>B, A=B, B>A, B>>A)": 1}
    assert any("'A>>>B'" in n for n in j.report.notes)
    strong = read(path, strong_weight=3).comparisons
    assert sorted(strong.weight.tolist()) == [1.0, 1.0, 1.0, 3.0, 3.0]  # the two >> verdicts


def test_arena_hard_v01_baseline():
    path = FIXTURES / "arena_hard_v01_small.jsonl"
    j = read(path)
    assert [r[:4] for r in battles(j)] == [("gpt-4-0314", "vicuna", 2, "328c"), ("vicuna", "gpt-4-0314", 1, "328c")]
    assert any("taken as gpt-4-0314" in n for n in j.report.notes)
    assert {r[0] for r in battles(read(path, baseline="gpt-4-turbo"))} == {"gpt-4-turbo", "vicuna"}


def test_alpacaeval_preferences_and_weighted_split():
    path = FIXTURES / "alpacaeval_annotations_small.json"
    assert guess_format(path)[0] == "alpacaeval"
    j = read(path)
    w = "weighted_alpaca_eval_gpt4_turbo"
    assert battles(j) == sorted([
        ("gpt4_turbo", "my-model", 1, "Name three colours.", w, w, 0.75, "helpful_base"),  # 1.25: P(a) = 0.75
        ("gpt4_turbo", "my-model", 2, "Name three colours.", w, w, 0.25, "helpful_base"),
        ("gpt4_turbo", "my-model", 2, "Say hi.", w, w, 1.0, "koala"),
        ("gpt4_turbo", "my-model", 0, "Count to two.", w, w, 1.0, "koala"),              # 1.5: a draw
    ])
    assert j.report.skipped == {"annotations without a preference (null or NaN: the annotator failed)": 1}
    # AlpacaEval's win rate of my-model: mean of (preference - 1) = (0.25 + 1 + 0.5) / 3
    c = j.comparisons
    y = np.where(c.outcome == 2, 1.0, np.where(c.outcome == 0, 0.5, 0.0))
    assert np.sum(c.weight * y) / np.sum(c.weight) == pytest.approx(1.75 / 3)


def test_mt_bench_pairwise_games_and_single_scores():
    j = read(FIXTURES / "mt_bench_pair_small.jsonl")
    assert guess_format(FIXTURES / "mt_bench_pair_small.jsonl")[0] == "mt-bench"
    assert [r[:5] for r in battles(j)] == sorted([
        ("vicuna-13b", "gpt-3.5-turbo", 2, "81:1", "gpt-4"),   # g1 winner model_2
        ("gpt-3.5-turbo", "vicuna-13b", 1, "81:1", "gpt-4"),   # g2 shows model_2 first; winner model_2
        ("vicuna-13b", "gpt-3.5-turbo", 0, "81:2", "gpt-4"),
        ("gpt-3.5-turbo", "vicuna-13b", 2, "81:2", "gpt-4"),   # g2 winner model_1 = b
        ("llama-13b", "vicuna-13b", 2, "82:1", "gpt-4"),       # g1 error skipped
    ])
    assert j.report.skipped == {"games without a verdict (winner error or missing)": 1}
    assert j.comparisons.judge_kinds == ("gpt-4",)
    s = read(FIXTURES / "mt_bench_single_small.jsonl")
    df = s.ratings.to_pandas()
    assert sorted(zip(df["item"], df["system"], df["score"], df["judge_kind"])) == [
        ("81:1", "vicuna-13b", 7.0, "gpt-4"), ("81:2", "vicuna-13b", 5.0, "gpt-4"), ("82:1", "llama-13b", 3.0, "gpt-4")]
    assert s.report.skipped == {"single-answer judgments without a score (-1: the judge gave none)": 1}
    assert s.ratings.scale == "1-10"


def test_errors_name_file_line_and_fix(tmp_path):
    path = tmp_path / "judgment.jsonl"
    path.write_text('{"uid": "q1", "model": "m", "judge": "j", "games": "A>B"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"judgment.jsonl:1: games is str, expected a list of two games"):
        read(path)
    path.write_text('{"uid": "q1", "model": null, "judge": "j", "games": []}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"judgment.jsonl:1: the model is 'None', expected a name"):
        read(path)
    path.write_text('{"question_id": 1, "model_1": "a", "model_2": "b", "g1_winner": "A", "g2_winner": "tie", '
                    '"judge": ["gpt-4", "pair-v2"]}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"judgment.jsonl:1: g1_winner is 'A', expected model_1"):
        read(path)
    path.write_text('{"question_id": 1, "model": "a", "judge": ["gpt-4", "single-v1"], "judgment": "…", "score": "7"}\n')
    with pytest.raises(InputError, match=r"judgment.jsonl:1: score is 7, expected a number"):
        read(path)
    ann = tmp_path / "annotations.json"
    ann.write_text(json.dumps([{"instruction": "x", "generator_1": "a", "generator_2": "b", "preference": 3}]))
    with pytest.raises(InputError, match=r"record 1: preference is 3, expected 1"):
        read(ann)
    ann.write_text(json.dumps({"generator_1": "a", "generator_2": "b", "preference": 1}))
    with pytest.raises(InputError, match=r"expected an array of annotations"):
        read(ann, format="alpacaeval")
    ann.write_text('[{"instruction": "x", "generator_1": "a", "generator_2": "b", "preference": 1},')
    with pytest.raises(InputError, match=r"not valid JSON"):
        read(ann, format="alpacaeval")


def test_a_first_line_longer_than_the_head_is_still_recognised(tmp_path):
    path = tmp_path / "long.jsonl"
    record = {"uid": "q", "category": "c", "judge": "j", "model": "m", "baseline": "b",
              "games": [{"score": "A>B", "prompt": "x" * 100_000}, {"score": "B>A", "prompt": "y"}]}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert guess_format(path)[0] == "arena-hard"
    assert len(read(path).comparisons) == 2


SOURCES = ["arena_hard_small.jsonl", "mt_bench_pair_small.jsonl", "mt_bench_single_small.jsonl",
           "alpacaeval_annotations_small.json"]
VALUES = [None, True, 0, -1, 1.5, 3, "x", "", "\x00", [], {}, [None], 1e400, "A>>B", "model_1", "tie", "error"]


def _mutate(value, rng, depth=0):
    """One random change deep inside a JSON value: a key dropped, or a value replaced."""
    if isinstance(value, dict) and value and depth < 3:
        key = rng.choice(sorted(value))
        value = dict(value)
        if rng.random() < 0.3:
            del value[key]
        else:
            value[key] = _mutate(value[key], rng, depth + 1)
        return value
    if isinstance(value, list) and value and depth < 3:
        value = list(value)
        i = rng.randrange(len(value))
        value[i] = _mutate(value[i], rng, depth + 1)
        return value
    return rng.choice(VALUES)


CASES = [(source, seed) for source in SOURCES for seed in range(12)]


@pytest.mark.parametrize("source,seed", CASES)
def test_fuzzed_records_count_or_refuse(source, seed, tmp_path):
    rng = random.Random(f"{source}:{seed}")
    text = (FIXTURES / source).read_text(encoding="utf-8")
    if source.endswith(".json"):
        records = json.loads(text)
        i = rng.randrange(len(records))
        records[i] = _mutate(records[i], rng)
        out = json.dumps(records)
    else:
        lines = [json.loads(x) for x in text.splitlines()]
        i = rng.randrange(len(lines))
        lines[i] = _mutate(lines[i], rng)
        out = "\n".join(json.dumps(x) for x in lines) + "\n"
    path = tmp_path / source
    path.write_text(out, encoding="utf-8")
    fmt = {"arena": "arena-hard", "mt": "mt-bench", "alpacaeval": "alpacaeval"}[source.split("_")[0]]
    try:
        j = read(path, format=fmt)
    except InputError as error:
        assert str(path) in str(error)
    else:
        assert j.report.rows == len(json.loads(out)) if source.endswith(".json") else j.report.rows == len(lines)
    result = CliRunner().invoke(cli, ["info", str(path)])
    assert result.exit_code in (0, 2), result.output
    assert BUG not in (result.output + (result.stderr or ""))


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("kind", ["nesting", "cr_only", "gzip", "utf16", "truncated", "empty"])
def test_structural_variants_read_or_refuse(source, kind, tmp_path):
    """Deep nesting, CR-only line ends, a .gz file, UTF-16 with a byte-order mark, a file cut short,
    an empty file: a counted read (the same rows as the plain file where the content is kept) or an
    ``InputError`` naming the file."""
    import gzip
    text = (FIXTURES / source).read_text(encoding="utf-8")
    name = source
    if kind == "nesting":
        deep = "[" * 200 + "]" * 200
        text = text.replace('"judge"', f'"deep": {deep}, "judge"', 1).replace('"instruction"', f'"deep": {deep}, '
                                                                                             '"instruction"', 1)
        data = text.encode()
    elif kind == "cr_only":
        data = text.replace("\n", "\r").encode()
    elif kind == "gzip":
        name, data = source + ".gz", gzip.compress(text.encode())
    elif kind == "utf16":
        data = text.encode("utf-16")
    elif kind == "truncated":
        data = text.encode()[: len(text) // 2]
    else:
        data = b""
    path = tmp_path / name
    path.write_bytes(data)
    plain = read(FIXTURES / source)
    try:
        j = read(path)
    except InputError as error:
        assert str(error).startswith(str(path)), error
        assert kind in ("nesting", "truncated", "empty") or (kind == "cr_only" and source.endswith(".json")), error
        return
    assert kind not in ("nesting", "empty")
    if kind in ("gzip", "utf16", "cr_only"):
        assert j.report.rows == plain.report.rows
        assert {k: len(t) for k, t in j.tables().items()} == {k: len(t) for k, t in plain.tables().items()}
    result = CliRunner().invoke(cli, ["info", str(path)])
    assert result.exit_code in (0, 2) and BUG not in result.output


@pytest.mark.parametrize("fmt", ["arena-hard", "mt-bench", "wmt25-jsonl", "pearmut"])
def test_json_lines_nested_past_pythons_recursion_are_refused(fmt, tmp_path):
    """A JSON line nested 100,000 deep made json.loads raise RecursionError (the "bug" line) in every
    JSON-lines reader when the format was named; ``json_lines`` now checks the depth first."""
    path = tmp_path / "deep.jsonl"
    path.write_text('{"uid": "q", "model": "m", "judge": "j", "games": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(InputError, match=r"deep.jsonl:1: JSON nested deeper than 64"):
        read(path, format=fmt)
    result = CliRunner().invoke(cli, ["info", str(path), "--format", fmt])
    assert result.exit_code == 2 and BUG not in result.output


def test_mt_bench_human_judgment_release_marks_humans_and_gpt4(tmp_path):
    path = tmp_path / "mt_bench_human_judgments.jsonl"
    rows = [{"question_id": 81, "model_a": "alpaca-13b", "model_b": "gpt-3.5-turbo", "winner": "model_b",
             "judge": "author_2", "turn": 1, "conversation_a": [], "conversation_b": []},
            {"question_id": 81, "model_a": "alpaca-13b", "model_b": "gpt-3.5-turbo", "winner": "tie",
             "judge": "expert_0", "turn": 2, "conversation_a": [], "conversation_b": []},
            {"question_id": 81, "model_a": "alpaca-13b", "model_b": "gpt-3.5-turbo", "winner": "model_a",
             "judge": "gpt4_pair", "turn": 1, "conversation_a": [], "conversation_b": []}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    j = read(path, format="mt-bench")
    assert [r[:6] for r in battles(j)] == sorted([
        ("alpaca-13b", "gpt-3.5-turbo", 2, "81:1", "author_2", "human"),
        ("alpaca-13b", "gpt-3.5-turbo", 0, "81:2", "expert_0", "human"),
        ("alpaca-13b", "gpt-3.5-turbo", 1, "81:1", "gpt4_pair", "gpt4_pair")])
    assert any("gpt4_pair" in n for n in j.report.notes)
    path.write_text(json.dumps({**rows[0], "winner": "A"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r":1: winner is 'A', expected model_a, model_b or tie"):
        read(path, format="mt-bench")


def test_ppi_combines_the_mt_bench_release(tmp_path):
    from humeval.experiments.ppi import ppi_bradley_terry
    from humeval.simulate.judged import judged_battles
    _, h, j = judged_battles(n_human=150, n_judge=600, random_state=7)
    lines = []
    for c, judge in ((h, "expert_{}"), (j, "gpt4_pair")):
        systems = np.asarray(c.systems)
        for i, (a, b, o) in enumerate(zip(c.a, c.b, c.outcome)):
            lines.append(json.dumps({"question_id": int(np.asarray(c.items)[c.item[i]][1:]), "model_a": systems[a],
                                     "model_b": systems[b], "winner": "model_a" if o == 1 else "model_b",
                                     "judge": judge.format(i % 3), "turn": 1}))
    path = tmp_path / "release.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["ppi", str(path), "--format", "mt-bench", "--json"])
    assert result.exit_code == 0, result.output
    want = ppi_bradley_terry(h, j)["ppi"]
    got = json.loads(result.output)
    assert got["lambda"] == pytest.approx(want.lam, abs=1e-9) and got["n"] == 150
