"""Arena-Hard-Auto's judgments (lmarena/arena-hard-auto): ``data/<bench>/model_judgment/<judge>/<model>.jsonl``,
one JSON object per (question, model), as its ``gen_judgment.py`` writes them::

    {"uid": "…", "category": "hard_prompt", "judge": "gpt-4.1", "model": "my-model",
     "baseline": "o3-mini-2025-01-31",
     "games": [{"score": "B>A", "judgment": {…}, "prompt": [...]},     # game 1: A = baseline, B = model
               {"score": "A>>B", "judgment": {…}, "prompt": [...]}]}   # game 2: A = model, B = baseline

(v0.1 files name the question ``question_id``, carry no ``baseline`` or ``category``; their baseline
was the configuration's ``baseline_model``, ``gpt-4-0314`` by default). Each game is one battle in
the order shown to the judge: game 1 a = baseline, b = model; game 2 a = model, b = baseline, so
a position bias shows. The verdict ``A>>B``/``A>B`` is a win for a, ``B>A``/``B>>A`` (also written
``A<B``, ``A<<B``) a win for b, ``A=B`` a tie. A game without a verdict (``null``: the judge gave
none, or the game is missing) is counted and skipped, as is an unrecognised verdict.

Arena-Hard's ``show_result.py`` counts a strong verdict (``>>``) three times; here it counts once
(three copies of one verdict would make an interval too narrow) unless ``strong_weight=3``. The
judge (``judge``) is an automatic judge: ``judge_kind`` is its name. item = ``uid`` (or
``question_id``); category = ``category``. Read all of a judge's files at once by concatenating
them (``cat model_judgment/gpt-4.1/*.jsonl``).
"""

from __future__ import annotations

from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers._io import shown
from humeval.data.readers._jsonl import head_keys, json_lines
from humeval.data.readers._llm import comparisons, judge_name, text
from humeval.errors import InputError

FORMAT = "arena-hard"
V01_BASELINE = "gpt-4-0314"  # arena-hard-auto v0.1's config/judge_config.yaml baseline_model
# verdict -> (outcome for a = the first shown, strong)
VERDICTS = {"A>>B": (1, True), "A>B": (1, False), "A=B": (0, False), "B=A": (0, False), "B>A": (2, False),
            "B>>A": (2, True), "A<B": (2, False), "A<<B": (2, True), "B<A": (1, False), "B<<A": (1, True)}
FIX = "give Arena-Hard-Auto's model_judgment JSONL unchanged"


def looks_like(line: str) -> bool:
    """A JSON line with Arena-Hard-Auto's ``games``, ``model`` and ``judge`` and a question id."""
    keys = head_keys(line)
    return {"games", "model", "judge"} <= keys and bool({"uid", "question_id"} & keys)


def read_arena_hard(path, encoding: str = "utf-8", baseline: str | None = None,
                    strong_weight: float = 1.0) -> Judgments:
    """Read Arena-Hard-Auto judgments (see the module doc) into ``Comparisons``, two battles per
    record. ``baseline`` names the baseline of files that do not (v0.1); ``strong_weight`` is the
    weight of a strong verdict (``A>>B``; Arena-Hard's leaderboard uses 3)."""
    if isinstance(strong_weight, bool) or not isinstance(strong_weight, (int, float)) or not strong_weight > 0:
        raise InputError(path, None, f"strong_weight is {shown(strong_weight)}, expected a positive number",
                         "pass strong_weight=1 (one battle per verdict) or 3 (Arena-Hard's leaderboard)")
    report = ReadReport(str(path), FORMAT)
    rows, strong, assumed, unknown = [], 0, 0, []
    for line, record in json_lines(path, encoding, "one Arena-Hard-Auto judgment record (a JSON object)"):
        report.rows += 1
        item = text(record.get("uid", record.get("question_id")), path, line, "the question id (uid)", FIX)
        model = text(record.get("model"), path, line, "the model", FIX)
        judge = judge_name(record.get("judge"), path, line, FIX)
        base = record.get("baseline", baseline)
        if base is None:
            base, assumed = V01_BASELINE, assumed + 1
        base = text(base, path, line, "the baseline", FIX)
        games = record.get("games")
        if not isinstance(games, list):
            raise InputError(path, line, f"games is {shown(type(games).__name__)}, expected a list of two games", FIX)
        category = record.get("category")
        category = None if category is None else str(category)
        for number, game in enumerate(games[:2], 1):
            score = game.get("score") if isinstance(game, dict) else None
            if score is None:
                report.skip("games without a verdict (score null: the judge gave none)", lines=[line])
                continue
            verdict = VERDICTS.get(str(score).strip().upper().replace(" ", ""))
            if verdict is None:
                report.skip("games with an unrecognised verdict (not A>>B, A>B, A=B, B>A, B>>A)", lines=[line])
                if len(unknown) < 3 and shown(score, 20) not in unknown:
                    unknown.append(shown(score, 20))
                continue
            outcome, is_strong = verdict
            strong += is_strong
            a, b = (base, model) if number == 1 else (model, base)
            rows.append((a, b, outcome, item, judge, float(strong_weight) if is_strong else 1.0, category))
        if len(games) > 2:
            report.skip("games past the second (Arena-Hard plays two per question)", len(games) - 2, lines=[line])
        elif len(games) < 2:
            report.skip("games missing from records with fewer than two", 2 - len(games), lines=[line])
    if assumed:
        report.notes.append(f"{assumed:,} records name no baseline (v0.1): taken as {V01_BASELINE}, v0.1's "
                            "default (pass baseline= to name another)")
    if unknown:
        report.notes.append(f"unrecognised verdicts such as {', '.join(repr(u) for u in unknown)}")
    if strong:
        report.notes.append(f"{strong:,} strong verdicts (A>>B) counted with weight {strong_weight:g}"
                            + (" (Arena-Hard's leaderboard counts them 3 times: strong_weight=3)"
                               if strong_weight == 1 else ""))
    return comparisons(rows, report)
