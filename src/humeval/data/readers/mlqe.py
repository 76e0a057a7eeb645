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

from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers._io import read_text, text_stream
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
    header = next(reader)
    if header[:4] != DA_HEADER[:4] or "scores" not in header:
        raise InputError(path, 1, f"not an MLQE-PE DA header: {header[:4]}",
                         "expected index, original, translation, scores, … separated by tabs")
    at_index, at_scores = header.index("index"), header.index("scores")
    rows = []
    for fields in reader:
        line = reader.line_num
        if not fields or fields == [""]:
            continue
        if len(fields) != len(header):
            raise InputError(path, line, f"{len(fields)} fields, expected {len(header)}",
                             "check for tabs inside the text of this row")
        report.rows += 1
        try:
            scores = json.loads(fields[at_scores])
            scores = [float(s) for s in scores]
        except (ValueError, TypeError):
            raise InputError(path, line, f"scores is {fields[at_scores][:40]!r}, expected a list like [90, 75, 80]",
                             "fix the list in this row") from None
        if not scores:
            report.skip("rows with an empty score list", lines=[line])
        rows += [(fields[at_index], s) for s in scores]
    if not rows:
        raise InputError(path, None, "no scores found", "check that the file is an MLQE-PE DA file")
    report.notes.append("annotator ids are not in the file: judges left unknown")
    df = pd.DataFrame(rows, columns=["item", "score"])
    df["system"], df["track"], df["criterion"] = system, track_from_path(path), "DA"
    return Judgments(report, ratings=Ratings.from_pandas(df, scale="0-100"))


def read_mlqe_pe(path, system: str = "mlqe-nmt", encoding: str = "utf-8") -> Judgments:
    """``PostEdits`` from the line-aligned ``.src``, ``.mt``, ``.pe`` (and ``.hter``) files."""
    path = Path(path)
    prefix = path.with_suffix("") if path.suffix.lstrip(".") in PE_PARTS else path
    files = {p: Path(f"{prefix}.{p}") for p in PE_PARTS}
    for need in ("mt", "pe"):
        if not files[need].exists():
            raise InputError(files[need], None, "missing: post-edits need the .mt and .pe files side by side",
                             "put the files of one split in one folder with a common prefix")
    texts = {p: read_text(f, encoding).rstrip("\n").split("\n") for p, f in files.items() if f.exists()}
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
            raise InputError(files["hter"], i + 1, f"{value!r} is not a number", "fix the HTER value") from None
    df = pd.DataFrame({"item": [str(i) for i in range(n)], "hypothesis": texts["mt"], "post_edit": texts["pe"],
                       "source": texts.get("src"), "hter": hter})
    df["system"], df["track"], df["action"] = system, track_from_path(prefix), "EDIT"
    report = ReadReport(str(prefix), PE_FORMAT, rows=n)
    report.notes.append(f"read {', '.join(sorted(texts))} of {prefix.name}")
    return Judgments(report, post_edits=PostEdits.from_pandas(df))
