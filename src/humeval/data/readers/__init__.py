"""Readers, one module per format, and ``read`` which guesses the format and says so."""

from __future__ import annotations

import gzip
import inspect
import json
import os
import tarfile
from pathlib import Path

from humeval.data.judgments import Judgments, nonempty
from humeval.data.readers import (
    alpacaeval,
    appraise,
    appraise_csv,
    arena_hard,
    esa,
    graham_da,
    mlqe,
    mqm,
    mt_bench,
    pairwise,
    pearmut,
    ratings,
    wmt25,
    wmt_acc,
    wmt_csv,
    wmt_da,
    wmt_edits,
    wmt_legacy,
)
from humeval.data.readers._arrow import delimiter_of, kind_of
from humeval.data.readers._io import (
    check_encoding,
    check_header,
    check_json_depth,
    check_magic,
    check_path,
    encoding_of,
    first_line,
    head_text,
    is_blank,
    shown,
)
from humeval.data.readers._sniff import NAMES, sniff
from humeval.data.readers.alpacaeval import read_alpacaeval
from humeval.data.readers.appraise import read_appraise
from humeval.data.readers.appraise_csv import read_appraise_csv
from humeval.data.readers.arena_hard import read_arena_hard
from humeval.data.readers.esa import read_esa
from humeval.data.readers.graham_da import read_graham_da
from humeval.data.readers.mlqe import read_mlqe_da, read_mlqe_pe
from humeval.data.readers.mqm import MQMWeights, read_mqm, read_mqm_avg
from humeval.data.readers.mt_bench import read_mt_bench
from humeval.data.readers.pairwise import read_pairwise
from humeval.data.readers.pearmut import read_pearmut
from humeval.data.readers.ratings import read_ratings
from humeval.data.readers.wmt25 import read_wmt25
from humeval.data.readers.wmt_acc import read_wmt_acc
from humeval.data.readers.wmt_csv import read_wmt_csv
from humeval.data.readers.wmt_da import read_wmt_da, read_wmt_da_seg
from humeval.data.readers.wmt_edits import read_wmt_edits
from humeval.data.readers.wmt_legacy import read_wmt_legacy
from humeval.errors import InputError

READERS = {
    "wmt-csv": read_wmt_csv,
    "wmt-legacy": read_wmt_legacy,
    "appraise-xml": read_appraise,
    "pairwise": read_pairwise,
    "ratings": read_ratings,
    "mlqe-da": read_mlqe_da,
    "mlqe-pe": read_mlqe_pe,
    "mqm": read_mqm,
    "mqm-avg": read_mqm_avg,
    "wmt-edits": read_wmt_edits,
    "wmt-da": read_wmt_da,
    "wmt-da-seg": read_wmt_da_seg,
    "esa": read_esa,
    "wmt-acc": read_wmt_acc,
    "appraise-csv": read_appraise_csv,
    "wmt25-jsonl": read_wmt25,
    "pearmut": read_pearmut,
    "graham-da": read_graham_da,
    "arena-hard": read_arena_hard,
    "alpacaeval": read_alpacaeval,
    "mt-bench": read_mt_bench,
}
FORMATS = tuple(READERS)
HEAD_BYTES = 1 << 16


def read(path, format: str | None = None, **options) -> Judgments:
    """Read a judgments file into tables, guessing the format unless ``format`` names it.

    ``options`` go to the format's reader (e.g. ``columns=`` for pairwise and ratings files,
    ``weights=`` for MQM, ``encoding=`` for text formats). The report says what was guessed.
    A directory or glob of Parquet/CSV files, a ``duckdb://`` address or ``sql=`` is streamed
    to weighted distinct comparisons (``humeval.data.stream.read_dataset``, its options too).
    """
    from humeval.data.stream import is_dataset, is_duckdb_file, read_dataset
    if os.path.lexists(path) and not os.path.isdir(path):  # a FIFO or a device: refused before anything opens it
        check_path(path)
    if is_dataset(path) or is_duckdb_file(path) or {"sql", "engine", "keep"} & set(options):  # streamed to counts
        if options.get("delimiter") is not None:
            raise InputError(path, None, "delimiter= applies to one CSV/TSV file, not to a streamed dataset",
                             "leave out --delimiter, or read one file")
        options.pop("delimiter", None)
        return read_dataset(path, format, **options)
    guessed = None
    if format is None:
        format, guessed = guess_format(path, check_encoding(options.get("encoding", "utf-8"), path),
                                       options.get("columns"), options.get("delimiter"))
    if format not in READERS:
        raise InputError(path, None, f"unknown format {format!r}", f"use one of {', '.join(FORMATS)}")
    reader = READERS[format]
    accepted = inspect.signature(reader).parameters
    wrong = [k for k in options if k not in accepted]
    if wrong:
        takes = ", ".join(p for p in accepted if p != "path") or "no options"
        raise InputError(path, None, f"option {', '.join(wrong)} does not apply to format {format}",
                         f"{format} takes {takes}")
    try:
        result = nonempty(reader(path, **options))
    except InputError as error:
        if guessed is None:  # the format the user named refused the file: say which one its header fits
            other = _fitting_format(path, options, format)
            if other is not None:
                raise InputError(error.path, error.line, error.problem,
                                 f"{error.fix + '; or' if error.fix else 'or'} read it as the format its header "
                                 f"fits: format={other!r} (CLI: --format {other})") from None
        raise
    if guessed:
        result.report.notes.insert(0, f"format {format} guessed from {guessed}")
    return result


def _fitting_format(path, options: dict, refused: str) -> str | None:
    """The format ``guess_format`` finds for ``path``, when it is another than the ``refused``
    one the user named (an ESA export read with --format wmt-da): with the user's columns and
    delimiter, else with neither (they may be part of the mistake); None when nothing fits."""
    for columns, delimiter in ((options.get("columns"), options.get("delimiter")), (None, None)):
        try:
            other, _ = guess_format(path, check_encoding(options.get("encoding", "utf-8"), path), columns, delimiter)
        except Exception:  # noqa: BLE001  only a hint: whatever stops the guess, the reader's own error stands
            continue
        return other if other != refused else None
    return None


def guess_format(path, encoding: str = "utf-8", columns: dict | None = None,
                 delimiter: str | None = None) -> tuple[str, str]:
    """(format, what gave it away). Raises ``InputError`` when nothing fits. ``columns`` (a
    pairwise or ratings mapping) counts when matching a header to those layouts; with the
    user's ``delimiter`` the header is split at it and only those two layouts are tried."""
    p = Path(path)
    name = p.name.lower()
    if name.endswith((".xml", ".xml.gz")):
        return "appraise-xml", "the .xml ending"
    if p.suffix.lstrip(".") in mlqe.PE_PARTS or (not p.exists() and mlqe.looks_like_pe(p)):
        return "mlqe-pe", f"the .{p.suffix.lstrip('.') or 'mt/.pe'} ending"
    if graham_da.looks_like(p):
        return "graham-da", "the file name (sys.LP, human-post-edit.LP, human-scores.LP.csv)"
    check_path(p)  # before anything opens it: a FIFO or a device would never end
    kind = kind_of(p)
    if kind == "parquet":
        import pyarrow.parquet as pq
        try:
            cells = pq.read_schema(p).names
        except Exception as error:
            raise InputError(p, None, f"not a readable Parquet file ({shown(error)})", "check the file") from None
        return _by_columns(p, cells, "the Parquet columns", columns)
    head = _head(p)
    line = first_line(head, encoding)
    if is_blank(head):
        raise InputError(p, None, "the file is empty", "check that the export finished")
    check_magic(head, p)  # a spreadsheet or an archive, not text: say so rather than guess an encoding
    if delimiter is not None and kind in ("csv", "tsv"):
        cells = [c.strip().strip('"') for c in line.split(delimiter_of(delimiter, kind, p))]
        return _by_columns(p, cells, f"the header split at {delimiter!r}", columns)
    if kind in ("json", "jsonl") or line.lstrip().startswith(("{", "[")):
        check_json_depth(head, p)  # a value nested too deep: say so rather than "cannot tell the format"
    if kind == "json" and alpacaeval.looks_like(head_text(head, encoding, HEAD_BYTES)):
        return "alpacaeval", "AlpacaEval's generator_1, generator_2 and preference keys"
    if kind == "json":  # one JSON array of records: the keys of the first record
        return _by_columns(p, _first_record_keys(head_text(head, encoding, HEAD_BYTES)), "the JSON keys", columns)
    if appraise.looks_like(head_text(head, encoding).encode()):
        return "appraise-xml", "the XML content"
    check_header(line, p, encoding_of(head, encoding))
    for fmt, module in (("wmt-acc", wmt_acc), ("wmt-csv", wmt_csv), ("wmt-legacy", wmt_legacy),
                        ("wmt-edits", wmt_edits),
                        ("mqm", mqm)):
        if module.looks_like(line):
            return fmt, "the header"
    if mlqe.looks_like_da(line):
        return "mlqe-da", "the header"
    for fmt, test in (("wmt-da", wmt_da.looks_like), ("wmt-da-seg", wmt_da.looks_like_seg)):
        if test(line):
            return fmt, "the header"
    if mqm.looks_like_avg(line):
        return "mqm-avg", "the header"
    if esa.looks_like(line):
        return "esa", esa.describe(line)
    if appraise_csv.looks_like(line):
        return "appraise-csv", "Appraise's 9-field segment rows"
    if pearmut.looks_like_download(head_text(head, encoding)):
        return "pearmut", "the campaigns of Pearmut's annotations.json"
    for fmt, module, what in (("wmt25-jsonl", wmt25, "WMT25's doc_id, scores and tgt_text keys"),
                              ("pearmut", pearmut, "Pearmut's user_id, item_i and annotation keys"),
                              ("arena-hard", arena_hard, "Arena-Hard-Auto's games, model and judge keys"),
                              ("mt-bench", mt_bench, "MT-Bench's question_id, judge and model keys")):
        if module.looks_like(line):
            return fmt, what
    if alpacaeval.looks_like(head_text(head, encoding, HEAD_BYTES)):
        return "alpacaeval", "AlpacaEval's generator_1, generator_2 and preference keys"
    other = sniff(line) if not any(c in line for c in ",\t{") else None
    if other:
        raise InputError(p, 1, f"cannot tell the format: the header is one column at commas and tabs but "
                         f"{other[1]} at {NAMES[other[0]]}s, so it looks {NAMES[other[0]]}-delimited (a wrong "
                         "delimiter?)", f"pass delimiter='{other[0]}' (CLI: --delimiter '{other[0]}') for a pairwise or "
                         "ratings file, or save the file comma- or tab-delimited")
    if line.lstrip().startswith("{"):
        try:
            cells = list(json.loads(line))
        except (ValueError, RecursionError):
            cells = []
    else:
        cells = [c.strip().strip('"') for c in line.split("\t" if kind == "tsv" or "\t" in line else ",")]
    return _by_columns(p, cells, "the header", columns)


def _by_columns(path, cells, where, columns=None) -> tuple[str, str]:
    if pairwise.looks_like(cells, columns):
        return "pairwise", where + (" and columns=" if columns else "")
    if ratings.looks_like(cells, columns):
        return "ratings", where + (" and columns=" if columns else "")
    error = pairwise.near_miss(cells, columns, path)
    if error is not None:
        raise error
    raise InputError(path, 1, f"cannot tell the format from {where} ({shown(', '.join(cells[:8]))}"
                     f"{', …' if len(cells) > 8 else ''})",
                     f"pass format= (CLI: --format) with one of {', '.join(FORMATS)}; "
                     "for pairwise or ratings files with other column names also pass columns=")


def _first_record_keys(text: str) -> list[str]:
    """The keys of the first record of a JSON array whose start is ``text`` ([] when it cannot
    be decoded from the head: then no format fits and the error says so)."""
    start = text.find("{")
    try:
        record, _ = json.JSONDecoder().raw_decode(text, start) if start >= 0 else ({}, 0)
    except (ValueError, RecursionError):  # RecursionError: nested too deep (the reader refuses it by name)
        return []
    return list(record) if isinstance(record, dict) else []


def _head(path: Path) -> bytes:
    check_path(path)
    name = path.name.lower()
    try:
        if name.endswith((".tar.gz", ".tgz")):
            with tarfile.open(path) as tar:
                member = next((m for m in tar.getmembers() if m.isfile()), None)
                return tar.extractfile(member).read(HEAD_BYTES) if member else b""
        if name.endswith(".gz"):
            with gzip.open(path) as handle:
                return handle.read(HEAD_BYTES)
        with open(path, "rb") as handle:
            return handle.read(HEAD_BYTES)
    except (OSError, EOFError, tarfile.TarError) as error:
        raise InputError(path, None, f"cannot be read ({error})", "check the file") from None


__all__ = ["FORMATS", "MQMWeights", "READERS", "guess_format", "read", *(f.__name__ for f in READERS.values())]
