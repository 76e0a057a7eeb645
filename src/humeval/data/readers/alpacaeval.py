"""AlpacaEval's annotations (tatsu-lab/alpaca_eval): ``results/<model>/<annotator>/annotations.json``,
one JSON array of records, as ``PairwiseAnnotator`` saves them::

    [{"instruction": "…", "output_1": "…", "generator_1": "gpt4_1106_preview",
      "output_2": "…", "generator_2": "my-model", "dataset": "helpful_base",
      "annotator": "weighted_alpaca_eval_gpt4_turbo", "preference": 1.83, …}, …]

``preference`` is AlpacaEval's: 1 = output_1 preferred, 2 = output_2 preferred, 0 or 1.5 a draw
(``alpaca_eval.metrics.winrate``); a weighted annotator writes 1 + P(output_2 preferred), a number
between 1 and 2. Each record is one battle a = ``generator_1`` (the reference), b = ``generator_2``;
a weighted preference p becomes two rows, a win for a weighted 2 − p and a win for b weighted
p − 1 (the judge's probability kept: its expected verdict is P(a preferred) = 2 − p). A record
without a preference (``null``/NaN: the annotator failed) is counted and skipped; any other value
is an error. AlpacaEval shows the two outputs in a random order and stores the preference in the
record's order, so the file does not say which was shown first (no position bias can be measured).

item = ``instruction``; category = ``dataset``; judge = ``annotator`` (an automatic judge:
``judge_kind`` is its name).
"""

from __future__ import annotations

import json
import math
import re

from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers._io import check_json_depth, decode, read_bytes, shown
from humeval.data.readers._llm import comparisons, judge_name, text
from humeval.errors import InputError

FORMAT = "alpacaeval"
KEYS = {"generator_1", "generator_2", "preference"}
FIX = "give AlpacaEval's annotations.json unchanged"


def looks_like(head: str) -> bool:
    """A JSON array whose records carry AlpacaEval's ``generator_1``, ``generator_2`` and
    ``preference`` (looked for as keys in the head when the first record is too long to decode)."""
    stripped = head.lstrip()
    if not stripped.startswith("["):
        return False
    start = stripped.find("{")
    try:
        record, _ = json.JSONDecoder().raw_decode(stripped, start) if start >= 0 else (None, 0)
        keys = set(record) if isinstance(record, dict) else set()
    except (ValueError, RecursionError):
        keys = set(re.findall(r'"([A-Za-z_0-9]{1,64})"\s*:', stripped))
    return KEYS <= keys


def read_alpacaeval(path, encoding: str = "utf-8") -> Judgments:
    """Read AlpacaEval's ``annotations.json`` (see the module doc) into ``Comparisons``."""
    data = read_bytes(path)
    check_json_depth(data, path)
    body = decode(data, path, encoding)
    try:
        records = json.loads(body)
    except json.JSONDecodeError as error:
        raise InputError(path, error.lineno, f"not valid JSON ({error.msg} at column {error.colno})", FIX) from None
    if not isinstance(records, list):
        raise InputError(path, 1, f"the file holds a JSON {type(records).__name__}, expected an array of annotations",
                         FIX)
    report = ReadReport(str(path), FORMAT, unit="record")
    rows, split = [], 0
    for number, record in enumerate(records, 1):
        report.rows += 1
        if not isinstance(record, dict):
            raise InputError(path, None, f"record {number:,} is a JSON {type(record).__name__}, expected an object", FIX)
        where = f"record {number:,}: "
        a = text(record.get("generator_1"), path, None, where + "generator_1", FIX)
        b = text(record.get("generator_2"), path, None, where + "generator_2", FIX)
        item = text(record.get("instruction"), path, None, where + "the instruction", FIX)
        judge = judge_name(record.get("annotator", "unknown annotator"), path, None, FIX)
        category = record.get("dataset")
        category = None if category is None else str(category)
        p = record.get("preference")
        if p is None or (isinstance(p, float) and math.isnan(p)):
            report.skip("annotations without a preference (null or NaN: the annotator failed)", lines=[number])
            continue
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not (p == 0 or 1 <= p <= 2):
            raise InputError(path, None, f"{where}preference is {shown(p)}, expected 1 (output_1 preferred), 2 "
                             "(output_2), 0 or 1.5 (a draw), or a number between 1 and 2", FIX)
        if p in (0, 1.5):
            rows.append((a, b, 0, item, judge, 1.0, category))
        elif p in (1, 2):
            rows.append((a, b, int(p), item, judge, 1.0, category))
        else:  # a weighted annotator's 1 + P(output_2 preferred): one win for each side, by probability
            split += 1
            rows.append((a, b, 1, item, judge, 2.0 - p, category))
            rows.append((a, b, 2, item, judge, p - 1.0, category))
    if split:
        report.notes.append(f"{split:,} weighted preferences (between 1 and 2) split into a win for each output "
                            "weighted by the annotator's probability")
    report.notes.append("AlpacaEval does not record which output was shown first: a = generator_1 (the reference)")
    return comparisons(rows, report)
