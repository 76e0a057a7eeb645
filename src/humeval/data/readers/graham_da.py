"""Graham et al.'s DA data set with post-edits (``graham-da``): DA segment scores beside the MT
output they score and its human post-edit, so one folder gives both DA and HTER.

Y. Graham, T. Baldwin, M. Dowling, M. Eskevich, T. Lynn, L. Tounsi, "Is all that glitters in
machine translation quality estimation really gold?", COLING 2016; the scripts and data of
``github.com/ygraham/direct-assessment``. Per language pair ``LP`` three files side by side:

- ``sys.LP``: the MT output, one segment per line;
- ``human-post-edit.LP``: its human post-edit, line-aligned with ``sys.LP``;
- ``human-scores.LP.csv``: DA segment scores in the layout the DA scripts write
  (``score-segs-strict-unique.sh`` → ``ad-raw-seg-scores-*.csv`` / ``ad-stnd-seg-scores-*.csv``,
  described in the repository's README): a header ``HIT N SID SYS SCR`` (cells separated by
  spaces, tabs or commas), one row per segment: ``N`` judgments averaged into ``SCR``, ``SID``
  the one-based line number of the segment in ``sys.LP``, ``SYS`` the system. Only ``SID`` and
  ``SCR`` are required.

Name any of the three; the others are found by their
names. The scores become ``Ratings`` (criterion ``DA``, item = ``SID``, no judges: the file holds
means) and the two text files ``PostEdits`` with the same item numbers, so ``metric hter``
scores the outputs against their post-edits and ``metric correlate``-style analyses can pair
HTER with DA per segment. The scale is ``z`` when the scores file name says ``stnd`` (the
standardised file), ``0-100`` when it says ``raw``, otherwise read from the values (negative → z)
and the report says which. Line counts that differ, a ``SID`` beyond ``sys.LP`` and a score that is
not a number are errors naming file and line; ``NA`` scores are counted and skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers._io import check_names, finite_number, read_text
from humeval.data.readers._sniff import one_line_end
from humeval.data.tables import PostEdits, Ratings
from humeval.errors import InputError

FORMAT = "graham-da"
NAMES = re.compile(r"^(?:sys|human-post-edit)\.(?P<lp>[^./\\]+)$|^human-scores\.(?P<lp2>[^/\\]+)\.csv$", re.I)
GUESSED = re.compile(r"^(?:sys|human-post-edit)\.[a-z]{2,3}-[a-z]{2,3}$|^human-scores\.[a-z]{2,3}-[a-z]{2,3}\.csv$", re.I)
NA = ("", "NA", "N/A", "NaN", "nan", "None")


def looks_like(path) -> bool:
    """A file named as in the data set with a language pair like ``de-en`` (``sys.txt`` is not one;
    other pair spellings are read with ``format="graham-da"``)."""
    return GUESSED.match(Path(path).name) is not None


def files_of(path) -> tuple[str, dict[str, Path]]:
    """(LP, {"scores", "mt", "pe": path}) for any of the three files."""
    p = Path(path)
    match = NAMES.match(p.name)
    if match is None:
        raise InputError(p, None, "not a file of Graham et al.'s DA data set",
                         "name sys.LP, human-post-edit.LP or human-scores.LP.csv")
    lp = match.group("lp") or match.group("lp2")
    folder = p.parent
    return lp, {"scores": folder / f"human-scores.{lp}.csv", "mt": folder / f"sys.{lp}",
                "pe": folder / f"human-post-edit.{lp}"}


def _lines(path, encoding) -> list[str]:
    lines = one_line_end(read_text(path, encoding)).split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _scale(name: str, scores: list[float]) -> tuple[str, str]:
    lower = name.lower()
    if "stnd" in lower or "z-" in lower:
        return "z", "the file name says standardised ('stnd')"
    if "raw" in lower:
        return "0-100", "the file name says raw"
    if scores and min(scores) < 0:
        return "z", "negative scores (standardised)"
    return "0-100", "no negative score and no 'stnd' in the name (raw 0–100)"


def _scores(path: Path, encoding: str, report: ReadReport, n_lines: int | None) -> pd.DataFrame:
    lines = _lines(path, encoding)
    if not lines:
        raise InputError(path, None, "the file is empty", "check that the file was written completely")
    split = (lambda s: [c.strip().strip('"') for c in s.split(",")]) if "," in lines[0] else str.split
    header = [c.lower() for c in split(lines[0])]
    check_names(header, path)
    missing = [c for c in ("sid", "scr") if c not in header]
    if missing:
        raise InputError(path, 1, f"columns {', '.join(c.upper() for c in missing)} missing "
                         f"(found {', '.join(header) or 'nothing'})",
                         "Graham's DA segment scores have the header HIT N SID SYS SCR")
    at_sid, at_scr = header.index("sid"), header.index("scr")
    at_sys, at_n = (header.index(c) if c in header else None for c in ("sys", "n"))
    rows, seen = [], set()
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            report.skip("blank lines", lines=[number])
            continue
        cells = split(line)
        if len(cells) != len(header):
            raise InputError(path, number, f"{len(cells)} fields, expected {len(header)} as in the header",
                             "check the separators of this row")
        report.rows += 1
        sid = cells[at_sid]
        if not sid.isdigit() or int(sid) < 1:
            raise InputError(path, number, f"SID '{sid}' is not a line number (1, 2, …)",
                             "SID is the one-based line of the segment in sys.LP")
        if n_lines is not None and int(sid) > n_lines:
            raise InputError(path, number, f"SID {sid} is beyond the {n_lines} lines of the MT output file",
                             "give the sys.LP file these scores belong to")
        score = finite_number(cells[at_scr], NA, path, number, "SCR", "a number (or NA)", "fix the score")
        if score is None:
            report.skip("rows without a score (NA)", lines=[number])
            continue
        system = cells[at_sys] if at_sys is not None else "sys"
        if (system, sid) in seen:
            report.skip("repeated (system, segment) scores (the first is kept)", lines=[number])
            continue
        seen.add((system, sid))
        n = int(cells[at_n]) if at_n is not None and cells[at_n].isdigit() else None
        rows.append((system, sid, score, n))
    if not rows:
        raise InputError(path, None, "no scores read", "check the file")
    return pd.DataFrame(rows, columns=["system", "item", "score", "n"])


def read_graham_da(path, encoding: str = "utf-8") -> Judgments:
    """DA segment scores (``Ratings``) and the outputs' post-edits (``PostEdits``) of one language
    pair of Graham et al.'s data set (see the module doc)."""
    lp, files = files_of(path)
    report = ReadReport(str(path), FORMAT)
    present = {k: f for k, f in files.items() if f.exists()}
    if "mt" in present and "pe" not in present or "pe" in present and "mt" not in present:
        have, lacking = ("mt", "pe") if "mt" in present else ("pe", "mt")
        raise InputError(files[lacking], None, f"missing beside {files[have].name}: the output and its post-edit "
                         "come as a pair", f"put {files[lacking].name} in the same folder")
    if not present:
        raise InputError(files["scores"], None, "none of the data set's files is here",
                         f"name {files['scores'].name}, {files['mt'].name} or {files['pe'].name}")
    edits = None
    n_lines = None
    if "mt" in present:
        mt, pe = _lines(files["mt"], encoding), _lines(files["pe"], encoding)
        if len(mt) != len(pe):
            raise InputError(files["pe"], min(len(mt), len(pe)) + 1,
                             f"{len(pe)} lines, but {files['mt'].name} has {len(mt)}", "the files must be line-aligned")
        n_lines = len(mt)
    ratings = None
    systems = ["sys"]
    if "scores" in present:
        frame = _scores(files["scores"], encoding, report, n_lines)
        scale, why = _scale(files["scores"].name, frame.score.tolist())
        report.notes.append(f"scale {scale}: {why}")
        if frame.n.notna().any():
            report.notes.append(f"each score averages {int(frame.n.min())}–{int(frame.n.max())} judgments (N); "
                                "the file holds means, so judges are unknown")
        systems = sorted(frame.system.unique())
        frame = frame.assign(track=lp, criterion="DA").drop(columns="n")
        ratings = Ratings.from_pandas(frame, scale=scale)
    else:
        report.notes.append(f"no {files['scores'].name}: post-edits only")
    if n_lines is not None:
        if len(systems) > 1:
            raise InputError(files["mt"], None, f"one output file, but the scores name {len(systems)} systems "
                             f"({', '.join(systems[:4])}{', …' if len(systems) > 4 else ''})",
                             "give one system's scores with its sys.LP")
        report.rows = max(report.rows, n_lines)
        df = pd.DataFrame({"item": [str(i) for i in range(1, n_lines + 1)], "hypothesis": mt, "post_edit": pe})
        df["system"], df["track"], df["action"] = systems[0], lp, "EDIT"
        edits = PostEdits.from_pandas(df)
        report.notes.append(f"read {', '.join(f.name for f in present.values())}; item = the line number (SID)")
    else:
        report.notes.append(f"no {files['mt'].name} / {files['pe'].name}: DA scores only (no HTER)")
    return Judgments(report, ratings=ratings, post_edits=edits)
