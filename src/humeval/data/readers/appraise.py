"""Appraise XML exports of WMT15–WMT16 ranking tasks (``.xml`` or ``.xml.gz``).

``<HIT source-language="deu" target-language="eng">`` holds ``<ranking-task id="581">``
holding ``<ranking-result duration=".." user="..">`` holding one ``<translation
system="…" rank="3"/>`` per displayed output. Since WMT15 identical outputs were shown once:
``system`` may name several comma-separated systems that share that output and its rank.
They become one entry each, marked with the same ``output`` so they are never compared with
each other. The track is ``source-target`` and the item the ranking-task id. Usernames are
kept as given (``humeval convert --anonymize`` replaces them).
"""

from __future__ import annotations

import re
from xml.parsers import expat

from humeval.data.builders import RankingRows, parse_rank
from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._io import decode, encoding_of, read_bytes
from humeval.errors import InputError

FORMAT = "appraise-xml"


def looks_like(data: bytes) -> bool:
    head = data[:4096].lstrip()
    return head.startswith(b"<") and (b"<HIT" in head or b"ranking-task" in head or b"<set" in head)


def read_appraise(path) -> Judgments:
    """Read an Appraise ranking export into ``Rankings`` (and their ``Comparisons``)."""
    data = read_bytes(path)
    if encoding_of(data) != "utf-8":  # UTF-16/32 with a byte-order mark: expat gets UTF-8
        data = re.sub(r"^(\s*<\?xml[^>]*?)\s+encoding=\S+?(?=\s|\?>)", r"\1", decode(data, path)).encode()
    report = ReadReport(str(path), FORMAT)
    rows = RankingRows()
    parser = expat.ParserCreate()
    languages: list[tuple[str | None, str | None]] = [(None, None)]
    state = {"task": None, "result": None}

    def start(tag, attrs):
        src, trg = attrs.get("source-language"), attrs.get("target-language")
        languages.append((src or languages[-1][0], trg or languages[-1][1]))
        if tag == "ranking-task":
            state["task"] = attrs.get("id")
        elif tag == "ranking-result":
            state["result"] = {"user": attrs.get("user"), "line": parser.CurrentLineNumber,
                               "systems": [], "ranks": [], "outputs": [], "position": 0}
        elif tag == "translation" and state["result"] is not None:
            _add_translation(state["result"], attrs, report, path, parser.CurrentLineNumber)

    def end(tag):
        languages.pop()
        if tag == "ranking-result" and state["result"] is not None:
            result, state["result"] = state["result"], None
            report.rows += 1
            if len(set(result["outputs"])) < 2:
                report.skip("ranking results with fewer than two outputs", lines=[result["line"]])
                return
            src, trg = languages[-1]
            rows.add(f"{src}-{trg}" if src and trg else None, state["task"], result["user"],
                     result["systems"], result["ranks"], result["outputs"])

    parser.StartElementHandler, parser.EndElementHandler = start, end
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        raise InputError(path, error.lineno, f"not well-formed XML at column {error.offset + 1} "
                         f"({expat.errors.messages[error.code]})",
                         "check that the export is complete and not truncated") from None
    if not len(rows):
        raise InputError(path, None, "no <ranking-result> elements with two or more outputs found",
                         "is this an Appraise ranking export? Other task types hold no rankings")
    return nonempty(Judgments(report, rankings=rows.build()))


def _add_translation(result, attrs, report: ReadReport, path, line: int) -> None:
    position = result["position"]
    result["position"] += 1
    names = [s.strip() for s in (attrs.get("system") or "").split(",") if s.strip()]
    if not names:
        report.skip("translations without a system name", lines=[line])
        return
    rank = parse_rank(attrs.get("rank"), path, line, "rank in <translation>")
    result["systems"] += names
    result["ranks"] += [rank] * len(names)
    result["outputs"] += [position] * len(names)

