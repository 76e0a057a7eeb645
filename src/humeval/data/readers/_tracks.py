"""Guessing a language pair from a path, for files that do not name their track."""

from __future__ import annotations

import re
from pathlib import Path

LANGS = set("ar bg cs cz da de el en es et fi fr gu ha hi hr hu is it ja kk km ko lt lv ne nl "
            "pl ps pt ro ru si sk sl sv ta tr uk vi xh zh zu".split())


def track_from_path(path) -> str | None:
    """``…/et-en/…`` or ``train.eten.df.tsv`` or ``mqm_ted_ende.tsv`` -> ``et-en``; else None."""
    for part in reversed(Path(path).parts):
        for token in re.split(r"[._/]", part.lower()):
            pair = re.fullmatch(r"([a-z]{2})-?([a-z]{2})", token)
            if pair and pair.group(1) in LANGS and pair.group(2) in LANGS and pair.group(1) != pair.group(2):
                return f"{pair.group(1)}-{pair.group(2)}"
    return None
