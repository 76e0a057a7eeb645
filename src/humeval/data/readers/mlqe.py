"""MLQE-PE (Fomicheva et al. 2020): direct assessments and post-edits.

- DA files ``{split}.{lp}.df.short.tsv``: TSV, no quoting, header ``index original
  translation scores mean z_scores z_mean model_scores``; ``scores`` is a list of raw 0–100
  scores, one per annotator. Annotator ids are not given (position i in two rows need not be
  the same person), so the judge is left unknown. One NMT system per language pair.
- Post-edit files ``{split}.src/.mt/.pe/.hter``: line-aligned; line i is row ``index`` = i of
  the DA file of the same split. Name any of them (or the common prefix).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._io import SCALE_LIMIT, check_names, out_of_scale, read_text, records, shown, text_stream
from humeval.data.readers._tracks import track_from_path
from humeval.data.tables import PostEdits, Ratings
from humeval.errors import InputError

DA_FORMAT, PE_FORMAT = "mlqe-da", "mlqe-pe"
DA_HEADER = ["index", "original", "translation", "scores", "mean", "z_scores", "z_mean", "model_scores"]
PE_PARTS = ("src", "mt", "pe", "hter")


def looks_like_da(header: str) -> bool:
    return header.split("\t")[:4] == DA_HEADER[:4]


def looks_like_pe(path) -> bool:
    return Path(path).suffix.lstrip(".") in PE_PARTS or \
        all(Path(f"{path}.{p}").exists() for p in ("mt", "pe"))


def read_mlqe_da(path, system: str = "mlqe-nmt", encoding: str = "utf-8") -> Judgments:
    """One ``Ratings`` row per raw DA score (criterion ``DA``, scale 0-100)."""
    report = ReadReport(str(path), DA_FORMAT)
    reader = csv.reader(text_stream(read_text(path, encoding)), delimiter="\t", quoting=csv.QUOTE_NONE)
    lines = records(reader, path)
    header = next(lines)[1]
    check_names(header, path)
    if header[:4] != DA_HEADER[:4] or "scores" not in header:
        raise InputError(path, 1, f"not an MLQE-PE DA header: {shown(header[:4])}",
                         "expected index, original, translation, scores, … separated by tabs")
    at_index, at_scores = header.index("index"), header.index("scores")
    rows = []
    for line, fields in lines:
        if not fields or fields == [""]:
            continue
        if len(fields) != len(header):
            raise InputError(path, line, f"{len(fields)} fields, expected {len(header)}",
                             "check for tabs inside the text of this row")
        report.rows += 1
        scores = _scores(fields[at_scores], path, line)
        if not scores:
            report.skip("rows with an empty score list", lines=[line])
        rows += [(fields[at_index], s) for s in scores]
    if not rows:
        nonempty(Judgments(report))
    report.notes.append("annotator ids are not in the file: judges left unknown")
    df = pd.DataFrame(rows, columns=["item", "score"])
    df["system"], df["track"], df["criterion"] = system, track_from_path(path), "DA"
    return Judgments(report, ratings=Ratings.from_pandas(df, scale="0-100"))


def _scores(text: str, path, line: int) -> list[float]:
    """A DA score list: a JSON list of numbers from 0 to 100."""
    try:
        scores = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deep, not a list of numbers either
        scores = None
    if not isinstance(scores, list) or not all(isinstance(s, (int, float)) and not isinstance(s, bool)
                                               for s in scores):
        raise InputError(path, line, f"scores is '{shown(text, 40)}', expected a list of numbers like [90, 75, 80]",
                         "fix the list in this row")
    wrong = [s for s in scores if not 0 <= s <= 100]  # NaN and inf fail this too
    if wrong:
        raise InputError(path, line, f"score {wrong[0]} in '{shown(text, 40)}' is outside the DA scale 0–100",
                         "fix the score in this row")
    return [float(s) for s in scores]


def _lines(text: str) -> list[str]:
    """A line-aligned file's lines: line ends (LF or CRLF) removed, blank lines at the end dropped."""
    lines = [x.removesuffix("\r") for x in text.split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def read_mlqe_pe(path, system: str = "mlqe-nmt", encoding: str = "utf-8") -> Judgments:
    """``PostEdits`` from the line-aligned ``.src``, ``.mt``, ``.pe`` (and ``.hter``) files."""
    path = Path(path)
    prefix = path.with_suffix("") if path.suffix.lstrip(".") in PE_PARTS else path
    files = {p: Path(f"{prefix}.{p}") for p in PE_PARTS}
    for need in ("mt", "pe"):
        if not files[need].exists():
            raise InputError(files[need], None, "missing: post-edits need the .mt and .pe files side by side",
                             "put the files of one split in one folder with a common prefix")
    texts = {p: _lines(read_text(f, encoding)) for p, f in files.items() if f.exists()}
    n = len(texts["mt"])
    for part, lines in texts.items():
        if len(lines) != n:
            raise InputError(files[part], min(len(lines), n) + 1,
                             f"{len(lines)} lines, but {files['mt'].name} has {n}", "the files must be line-aligned")
    hter = [float("nan")] * n
    for i, value in enumerate(texts.get("hter", [])):
        try:
            hter[i] = float(value)
        except ValueError:
            raise InputError(files["hter"], i + 1, f"'{shown(value)}' is not a number", "fix the HTER value") from None
        if not 0 <= hter[i] < float("inf"):  # NaN fails this too
            raise InputError(files["hter"], i + 1, f"HTER '{shown(value)}' is not a finite number ≥ 0",
                             "fix the HTER value")
        if hter[i] > SCALE_LIMIT:
            raise InputError(files["hter"], i + 1, out_of_scale("HTER", hter[i]), "fix the HTER value")
    df = pd.DataFrame({"item": [str(i) for i in range(n)], "hypothesis": texts["mt"], "post_edit": texts["pe"],
                       "source": texts.get("src"), "hter": hter})
    df["system"], df["track"], df["action"] = system, track_from_path(prefix), "EDIT"
    report = ReadReport(str(prefix), PE_FORMAT, rows=n)
    report.notes.append(f"read {', '.join(sorted(texts))} of {prefix.name}")
    return Judgments(report, post_edits=PostEdits.from_pandas(df))
