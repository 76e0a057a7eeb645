"""Guessing a language pair from a path, for files that do not name their track."""

from __future__ import annotations

import re
from pathlib import Path

LANGS = set("ar bg cs cz da de el en es et fi fr gu ha hi hr hu is it ja kk km ko lt lv ne nl "
            "pl ps pt ro ru si sk sl sv ta tr uk vi xh zh zu".split())


def track_from_path(path) -> str | None:
    """``…/et-en/…``, ``train.eten.df.tsv``, ``mqm_ted_ende.tsv`` or ``ad-seg-scores-de-en.csv`` -> the
    language pair; else None. A folder must name the pair with a hyphen (``data`` is no da-ta)."""
    parts = Path(path).parts
    for depth, part in enumerate(reversed(parts)):
        pattern = r"(?:^|.*-)([a-z]{2})-?([a-z]{2})" if depth == 0 else r"([a-z]{2})-([a-z]{2})"
        for token in re.split(r"[._/]", part.lower()):
            pair = re.fullmatch(pattern, token)
            if pair and pair.group(1) in LANGS and pair.group(2) in LANGS and pair.group(1) != pair.group(2):
                return f"{pair.group(1)}-{pair.group(2)}"
    return None
