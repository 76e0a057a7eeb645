"""WMT direct assessment (DA) files, scores 0–100 or standardised per annotator (Graham et al. 2013, 2017).

- ``wmt-da``: one score per annotator, item and output, as the WMT17–21 manual evaluation
  publishes them (e.g. ``ad-csen-good-stnd.csv``, ``ad-good-raw.csv`` of
  wmt-conference/wmt21-news-systems/humaneval): a space-separated header
  ``HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time`` above
  tab-separated rows (some files separate a row's cells by tabs and spaces: such rows are split
  at any whitespace). ``type`` is ``SYSTEM`` (a system's output) or a quality control:
  ``REPEAT`` (an output shown again), ``BAD_REF`` (a degraded output), ``REF`` (the reference).
  Only ``SYSTEM`` rows are read unless ``controls=True``, which keeps every row and the type in
  ``Ratings.kind``; skipped controls are counted by type. Judge = ``WorkerId``, item = ``sid``,
  track = ``Input.src-Input.trg`` (else from the file name).
- ``wmt-da-seg``: segment scores averaged over annotators, space-separated with a header:
  ``LP DATA SYSTEM SID HUMAN`` (WMT17–19 metrics task ``DA-seglevel.csv``; ``HUMAN`` is the mean
  z-score; ``DATA`` optional) or ``SYS SID RAW.SCR Z.SCR N`` (WMT20–21 ``ad-seg-scores-xx-yy.csv``,
  track from the file name; ``Z.SCR`` is read unless ``score_column="RAW.SCR"``; the item is
  ``SID``, or ``DATA:SID`` when the file holds several test sets). A system id
  joining several systems with ``+`` (identical outputs) gives the score to each of them; a
  second score of the same (track, system, segment) is skipped and counted. Judges are unknown.

A score that is not a number is an error naming its line; ``NA`` scores are counted and skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers._io import check_names, decode, finite_number, first_line, read_bytes
from humeval.data.readers._sniff import check_delimiter, one_line_end
from humeval.data.readers._tracks import track_from_path
from humeval.data.tables import Ratings
from humeval.errors import InputError

FORMAT, FORMAT_SEG = "wmt-da", "wmt-da-seg"
SYSTEM_COLUMNS = ("sys_id", "system", "sys")
SEG_LAYOUTS = ({"lp", "system", "sid", "human"}, {"sys", "sid", "z.scr"})
NA = ("", "NA", "N/A", "NaN", "nan", "None")


def looks_like(header: str) -> bool:
    cells = {c.lower() for c in header.split()}
    return {"workerid", "sid", "score"} <= cells and bool(cells & set(SYSTEM_COLUMNS))


def looks_like_seg(header: str) -> bool:
    cells = {c.lower() for c in header.split()}
    return any(layout <= cells for layout in SEG_LAYOUTS)


KEPT_WORKERS = re.compile(r"(?:^|[-_.])good-stnd(?:-redup)?\.csv$", re.IGNORECASE)


def kept_workers_file(path, fmt: str | None) -> bool:
    """Whether ``path`` read as ``fmt`` is one of WMT's kept-workers files: a ``wmt-da`` file named as
    WMT names the standardised judgments of the workers its quality control kept
    (``ad-<xxen>-good-stnd.csv`` and its ``-redup`` copy; the raw ``ad-good-raw.csv`` is not
    recognised)."""
    return fmt == FORMAT and bool(KEPT_WORKERS.search(Path(str(path)).name))


def _rows(path, encoding, needed: int):
    """(header cells in lower case, iterator of (line number, cells)) of a whitespace-headed file."""
    data = read_bytes(path)
    check_delimiter(path, first_line(data), " ", needed=needed)
    lines = one_line_end(decode(data, path, encoding)).splitlines()
    header = [c.strip('"').lower() for c in lines[0].split()]
    check_names(header, path)
    return header, ((n, line) for n, line in enumerate(lines[1:], 2))


def _cells(line: str, width: int, path, number: int) -> list[str] | None:
    cells = line.rstrip("\r").split("\t")
    if len(cells) != width:
        cells = line.split()
    if len(cells) != width:
        raise InputError(path, number, f"{len(cells)} fields, expected {width} as in the header",
                         "check the tabs of this row")
    return [c.strip().strip('"') for c in cells]


def _score(text: str, path, number: int, column: str) -> float | None:
    return finite_number(text, NA, path, number, column, "a number (or NA)", "fix the score")


def _track(path) -> str | None:
    """The language pair of ``…/de-en/…``, ``x.deen.tsv`` or ``ad-seg-scores-de-en.csv``."""
    found = track_from_path(path)
    if found is None:
        pair = re.search(r"(?<![a-z])([a-z]{2})-([a-z]{2})(?![a-z])", Path(path).name.lower())
        found = f"{pair.group(1)}-{pair.group(2)}" if pair and pair.group(1) != pair.group(2) else None
    return found


def _scored(rows, width: int, path, score: int, column: str, report: ReadReport | None = None):
    """(line number, cells, score) of each row with a score; blank lines and NA scores are
    counted in ``report`` (when given)."""
    for number, line in rows:
        if not line.strip():
            if report:
                report.skip("blank lines", lines=[number])
            continue
        cells = _cells(line, width, path, number)
        if report:
            report.rows += 1
        value = _score(cells[score], path, number, column)
        if value is None:
            if report:
                report.skip("rows without a score (NA)", lines=[number])
            continue
        yield number, cells, value


def _need(path, header, names) -> list[int]:
    missing = [n for n in names if n not in header]
    if missing:
        raise InputError(path, 1, f"columns {', '.join(missing)} missing (found {', '.join(header)})",
                         "is this a WMT DA file? see the wmt-da and wmt-da-seg formats")
    return [header.index(n) for n in names]


def _scale(scores) -> str:
    return "0-100" if len(scores) and min(scores) >= 0 and max(scores) > 1 and max(scores) <= 100 else "z"


def read_wmt_da(path, encoding: str = "utf-8", controls: bool = False) -> Judgments:
    """Read a WMT per-annotator DA file into ``Ratings`` (criterion ``DA``)."""
    header, rows = _rows(path, encoding, needed=4)
    system_column = next((c for c in SYSTEM_COLUMNS if c in header), "sys_id")
    judge, item, system, score = _need(path, header, ["workerid", "sid", system_column, "score"])
    kind = header.index("type") if "type" in header else None
    src, trg = (header.index(c) if c in header else None for c in ("input.src", "input.trg"))
    fallback = _track(path)
    report = ReadReport(str(path), FORMAT)
    out, seen = [], {}
    for number, cells, value in _scored(rows, len(header), path, score, "score", report):
        what = cells[kind].upper() if kind is not None else "SYSTEM"
        if what != "SYSTEM" and not controls:
            report.skip(f"quality-control rows of type {what} (controls=True keeps them)", lines=[number])
            continue
        if not cells[system]:
            report.skip(f"rows without a system name ({header[system]} empty)", lines=[number])
            continue
        track = f"{cells[src]}-{cells[trg]}" if src is not None and trg is not None else fallback
        key = (track, cells[judge], cells[item], cells[system], what)
        seen[key] = seen.get(key, 0) + 1
        out.append((*key, value))
    if not out:
        raise InputError(path, None, "no scores read" + (f" ({report.n_skipped:,} rows skipped)" if report.rows else ""),
                         "check the file; controls=True keeps quality-control rows")
    repeated = sum(n - 1 for n in seen.values() if n > 1)
    if repeated:
        report.notes.append(f"{repeated:,} scores repeat a (judge, item, system) already scored; all are kept")
    df = pd.DataFrame(out, columns=["track", "judge", "item", "system", "kind", "score"])
    df["criterion"] = "DA"
    return Judgments(report, ratings=Ratings.from_pandas(df, scale=_scale(df.score.to_numpy())))


def read_wmt_da_seg(path, encoding: str = "utf-8", score_column: str | None = None) -> Judgments:
    """Read segment-level DA averages (``LP DATA SYSTEM SID HUMAN`` or ``SYS SID RAW.SCR Z.SCR N``)
    into ``Ratings`` (criterion ``DA``, no judges)."""
    header, rows = _rows(path, encoding, needed=3)
    graham = "human" in header and "lp" in header
    column = (score_column or ("human" if graham else "z.scr")).lower()
    names = ["lp", "system", "sid", column] if graham else ["sys", "sid", column]
    where = _need(path, header, names)
    data = header.index("data") if "data" in header else None
    fallback = _track(path)
    report = ReadReport(str(path), FORMAT_SEG)
    out, first, shared = [], {}, 0
    for number, cells, value in _scored(rows, len(header), path, where[-1], column.upper(), report):
        track = cells[where[0]] if graham else fallback
        systems = [s for s in cells[where[-3]].split("+") if s]
        if not systems:
            report.skip("rows without a system name", lines=[number])
            continue
        shared += len(systems) > 1
        for system in systems:
            key = (track, system, cells[data] if data is not None else "", cells[where[-2]])
            if key in first:
                report.skip("repeated (track, system, segment) scores (the first is kept)", lines=[number])
                continue
            first[key] = number
            out.append((*key, value))
    if not out:
        raise InputError(path, None, "no scores read", "check the file")
    if shared:
        report.notes.append(f"{shared:,} scores of outputs shared by several systems ('+') given to each")
    df = pd.DataFrame(out, columns=["track", "system", "data", "item", "score"])
    if df.data.nunique() > 1:  # segment numbers of several test sets: the item names its set
        df["item"] = df.data + ":" + df.item
    df["criterion"] = "DA"
    scale = "0-100" if column == "raw.scr" else "z"
    return Judgments(report, ratings=Ratings.from_pandas(df, scale=scale))


def read_worker_stats(path, encoding: str = "utf-8") -> pd.DataFrame:
    """WMT's per-worker mean and s.d. (``ad-<xxen>-trk-mean-sd.txt``): R console output, three
    lines per worker (``[1] "M1407"``, ``[1] 61.01064``, ``[1] 10.18485``; 7 significant digits).

    Returns a frame indexed by ``judge`` with columns ``mean`` and ``sd`` (WMT lists workers who
    gave one score throughout with sd 0). A worker listed twice with different values, a negative
    sd or a line that breaks the pattern is an ``InputError``.
    """
    text = one_line_end(decode(read_bytes(path), path, encoding))
    lines = [(n, re.sub(r"^\s*\[\d+\]\s*", "", line).strip()) for n, line in enumerate(text.splitlines(), 1)
             if line.strip()]
    if not lines or len(lines) % 3:
        raise InputError(path, None, f"{len(lines)} non-empty lines, not three per worker (name, mean, sd)",
                         "give WMT's *-trk-mean-sd.txt as R printed it")
    out: dict[str, tuple[float, float]] = {}
    for k in range(0, len(lines), 3):
        (n_name, name), (n_mean, mean), (n_sd, sd) = lines[k:k + 3]
        name = name.strip('"')
        values = []
        for number, text_value, what in ((n_mean, mean, "mean"), (n_sd, sd, "sd")):
            value = finite_number(text_value, (), path, number, what, "a number", "three lines per worker: name, mean, sd")
            values.append(value)
        if not name or values[1] < 0:
            raise InputError(path, n_name, f"worker {name!r}: sd {values[1]:g}" if name else "empty worker name",
                             "each worker needs a name and an sd ≥ 0")
        if name in out and out[name] != tuple(values):
            raise InputError(path, n_name, f"worker {name} listed twice with different values", "keep one")
        out[name] = (values[0], values[1])
    frame = pd.DataFrame.from_dict(out, orient="index", columns=["mean", "sd"])
    frame.index.name = "judge"
    frame.attrs["path"] = str(path)  # named by the protocol's errors about this file
    return frame


def worker_stats_beside(path) -> Path | None:
    """WMT's ``ad-<xxen>-trk-mean-sd.txt`` beside ``ad-<xxen>-good-stnd[-redup].csv``, if it exists."""
    name = Path(path).name
    stem = re.sub(r"-good-stnd(-redup)?\.csv$", "", name)
    if stem == name:
        return None
    found = Path(path).with_name(f"{stem}-trk-mean-sd.txt")
    return found if found.is_file() else None


def segment_scores_beside(path) -> Path | None:
    """WMT's ``ad-seg-scores-<xx>-en.csv`` beside ``ad-<xxen>-good-stnd[-redup].csv``, if it exists."""
    match = re.fullmatch(r"ad-([a-z]{2})([a-z]{2})-good-stnd(-redup)?\.csv", Path(path).name)
    if match is None:
        return None
    found = Path(path).with_name(f"ad-seg-scores-{match.group(1)}-{match.group(2)}.csv")
    return found if found.is_file() else None


def has_segment_counts(path, encoding: str = "utf-8") -> bool:
    """Whether a ``wmt-da-seg`` file has WMT20–22's ``RAW.SCR`` and ``N`` columns (the
    ``LP DATA SYSTEM SID HUMAN`` layout has neither), so ``read_segment_scores`` reads it."""
    cells = {c.strip('"').lower() for c in first_line(read_bytes(path), encoding).split()}
    return {"sys", "sid", "raw.scr", "z.scr", "n"} <= cells


def read_segment_scores(path, encoding: str = "utf-8") -> pd.DataFrame:
    """WMT20–22's segment scores ``SYS SID RAW.SCR Z.SCR N`` as a frame (system, item, raw, z, n),
    every row kept (WMT's own zero-valued rows included), for comparing a protocol's segments."""
    header, rows = _rows(path, encoding, needed=3)
    where = _need(path, header, ["sys", "sid", "raw.scr", "z.scr", "n"])
    out = []
    for number, line in rows:
        if not line.strip():
            continue
        cells = _cells(line, len(header), path, number)
        raw, z, n = (_score(cells[where[k]], path, number, header[where[k]].upper()) for k in (2, 3, 4))
        out.append((cells[where[0]], cells[where[1]], raw, z, n))
    if not out:
        raise InputError(path, None, "no segment scores", "check the file")
    frame = pd.DataFrame(out, columns=["system", "item", "raw", "z", "n"])
    frame.attrs["path"] = str(path)  # named by the protocol's errors about this file
    return frame
