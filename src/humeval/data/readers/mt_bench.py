"""MT-Bench's judgments (lm-sys/FastChat, ``fastchat/llm_judge``): ``data/mt_bench/model_judgment/
gpt-4_pair.jsonl`` (pairwise) and ``gpt-4_single.jsonl`` (single-answer grading), one JSON object per
judgment as ``common.play_a_match_pair`` and ``play_a_match_single`` write them::

    {"question_id": 81, "model_1": "vicuna-13b", "model_2": "gpt-3.5-turbo",
     "g1_winner": "model_2", "g2_winner": "tie", "judge": ["gpt-4", "pair-v2"], "turn": 1, …}
    {"question_id": 81, "model": "vicuna-13b", "judge": ["gpt-4", "single-v1"], "score": 7, "turn": 1, …}

A pairwise record holds two games: game 1 shows ``model_1`` as A, game 2 shows ``model_2`` as A;
both winners are written in model terms (``model_1``, ``model_2``, ``tie``; ``error`` when the
judge gave no verdict: counted and skipped). Each game is one battle in the order shown (game 1
a = model_1, game 2 a = model_2), so a position bias shows. Older files hold one ``winner``:
one battle a = model_1. A single-answer record is one rating (1–10); FastChat writes −1 when the
judge gave no score: counted and skipped.

item = ``<question_id>:<turn>`` (turn 2 judges the whole two-turn conversation); judge = the
judge's model (the first of FastChat's [model, prompt] pair; the prompts are listed in a note), an
automatic judge: ``judge_kind`` is its name. A file may mix both kinds of record.

MT-Bench's human-judgment release (lmsys/mt_bench_human_judgments: ``question_id, model_a, model_b,
winner, judge, turn``, its ``human`` and ``gpt4_pair`` splits as JSON lines) is read too when the
format is named (``--format mt-bench``; guessing reads it as arena battles, item = question_id
without the turn): one battle a = model_a per record, winner ``model_a``/``model_b``/``tie``;
``judge_kind`` is ``human`` for its experts and authors, the judge's name for ``gpt4_pair``
(a judge named like GPT-4). The two splits concatenated are a file ``humeval ppi`` combines.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._io import shown
from humeval.data.readers._jsonl import head_keys, json_lines
from humeval.data.readers._llm import comparisons, judge_name, text
from humeval.data.tables import Ratings
from humeval.errors import InputError

FORMAT = "mt-bench"
FIX = "give FastChat's model_judgment JSONL (gpt-4_pair.jsonl or gpt-4_single.jsonl) unchanged"
GAME = {"model_1": 1, "model_2": 2, "tie": 0}  # game 1 (a = model_1); game 2 swaps 1 and 2
RELEASE = {"model_a": 1, "model_b": 2, "tie": 0, "tie (bothbad)": 0}  # lmsys/mt_bench_human_judgments
AUTOMATIC = re.compile(r"gpt-?4", re.IGNORECASE)  # that release's automatic judge: gpt4_pair (experts, authors: humans)


def looks_like(line: str) -> bool:
    """A JSON line with a ``question_id`` and a ``judge``, and MT-Bench's ``model_1``/``model_2``
    (pairwise) or ``model``/``score``/``judgment`` (single-answer grading)."""
    keys = head_keys(line)
    return {"question_id", "judge"} <= keys and ({"model_1", "model_2"} <= keys
                                                 or {"model", "score", "judgment"} <= keys)


def read_mt_bench(path, encoding: str = "utf-8") -> Judgments:
    """Read MT-Bench's pairwise or single-answer judgments (see the module doc): ``Comparisons``
    from pairwise records, ``Ratings`` (scale 1–10) from single-answer ones."""
    report = ReadReport(str(path), FORMAT)
    battles, ratings, prompts = [], [], set()
    for line, record in json_lines(path, encoding, "one MT-Bench judgment (a JSON object)"):
        report.rows += 1
        question = text(record.get("question_id"), path, line, "question_id", FIX)
        turn = record.get("turn")
        item = question if turn is None else f"{question}:{turn}"
        raw_judge = record.get("judge")
        judge = judge_name(raw_judge, path, line, FIX)
        if isinstance(raw_judge, list) and len(raw_judge) > 1:
            prompts.add(str(raw_judge[1]))
        if "model_1" in record or "model_2" in record:
            m1 = text(record.get("model_1"), path, line, "model_1", FIX)
            m2 = text(record.get("model_2"), path, line, "model_2", FIX)
            games = ([("g1_winner", m1, m2, False), ("g2_winner", m2, m1, True)] if "g1_winner" in record
                     else [("winner", m1, m2, False)])
            for key, a, b, swapped in games:
                winner = record.get(key)
                if not isinstance(winner, str) or winner not in GAME:
                    if winner is None or winner == "error":
                        report.skip("games without a verdict (winner error or missing)", lines=[line])
                        continue
                    raise InputError(path, line, f"{key} is {shown(winner)!r}, expected model_1, model_2, tie or error",
                                     FIX)
                outcome = GAME[winner]
                if swapped and outcome:
                    outcome = 3 - outcome  # game 2 shows model_2 as A: a = model_2
                battles.append((a, b, outcome, item, judge, 1.0, None, judge))
        elif "model_a" in record or "model_b" in record:  # MT-Bench's human-judgment release (and its gpt4_pair split)
            a = text(record.get("model_a"), path, line, "model_a", FIX)
            b = text(record.get("model_b"), path, line, "model_b", FIX)
            winner = record.get("winner")
            outcome = RELEASE.get(winner) if isinstance(winner, str) else None
            if outcome is None:
                raise InputError(path, line, f"winner is {shown(winner)!r}, expected model_a, model_b or tie", FIX)
            kind = judge if AUTOMATIC.match(judge) else "human"
            battles.append((a, b, outcome, item, judge, 1.0, None, kind))
        elif "model" in record:
            model = text(record.get("model"), path, line, "model", FIX)
            score = record.get("score")
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise InputError(path, line, f"score is {shown(score)}, expected a number (1 to 10, or -1)", FIX)
            if score == -1:
                report.skip("single-answer judgments without a score (-1: the judge gave none)", lines=[line])
                continue
            ratings.append((item, model, judge, float(score)))
        else:
            raise InputError(path, line, "a record without model_1/model_2 (pairwise) or model (single-answer)", FIX)
    if prompts:
        report.notes.append(f"judge prompts: {', '.join(sorted(prompts))}")
    out = comparisons(battles, report) if battles else Judgments(report)
    if ratings:
        df = pd.DataFrame(ratings, columns=["item", "system", "judge", "score"])
        df["judge_kind"] = df["judge"]
        df["criterion"] = "MT-Bench score"
        out.ratings = Ratings.from_pandas(df, scale="1-10")
        if not battles:
            judges = sorted(df["judge"].unique())
            report.notes.append(f"automatic judge{'s' if len(judges) > 1 else ''} {', '.join(map(shown, judges))} "
                                "(judge_kind: combine with human ratings by humeval ppi)")
    return nonempty(out)
