"""Reading one language pair of a test set in mt-metrics-eval's directory layout (Freitag et al.;
google-research/mt-metrics-eval):

    sources/SRC-TGT.txt                       one segment per line
    references/SRC-TGT.NAME.txt               line-aligned with the source
    system-outputs/SRC-TGT/NAME.txt           line-aligned with the source
    documents/SRC-TGT.docs                    "DOMAIN DOCID" per source line (optional)
    human-scores/SRC-TGT.NAME.LEVEL.score     "SYSTEM SCORE" lines ("None" = missing); NAME is
                                              wmt-raw / wmt-z (DA), mqm, psqm, esa, …
    metric-scores/SRC-TGT/METRIC-REF.LEVEL.score

LEVEL is sys, domain, doc or seg; seg files hold one block per system, one line per segment in
order. Scores come back as pandas Series in the same shape as ``read_metric_scores``: system
level indexed by system, segment level by (item, system) with item = the 1-based line number as
a string. Domain and document levels are listed but not read. ``root`` may also be the folder
holding the test sets (``mt-metrics-eval-v2/``), with ``lp`` = "wmt20/de-en" (``locate``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from humeval.data.readers._io import read_text
from humeval.data.readers.wmt_metrics import _series
from humeval.errors import InputError


@dataclass
class EvalSet:
    root: Path
    lp: str
    sources: list[str]
    references: dict[str, list[str]]
    outputs: dict[str, list[str]]
    human: dict[tuple[str, str], pd.Series] = field(default_factory=dict)  # (name, level) → scores
    metrics: dict[tuple[str, str, str], pd.Series] = field(default_factory=dict)  # (metric, ref, level) → scores
    skipped: list[str] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)  # document id of each source line, when documents/ has it


def _lines(path: Path) -> list[str]:
    text = read_text(path)
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def _aligned(path: Path, n: int) -> list[str]:
    lines = _lines(path)
    if len(lines) != n:
        raise InputError(path, None, f"{len(lines)} lines, the source has {n}",
                         "every reference and system output must be line-aligned with sources/SRC-TGT.txt")
    return lines


def read_scores(path, level: str, n_segments: int) -> pd.Series:
    """A human- or metric-score file of the given level (``sys`` or ``seg``)."""
    path = Path(path)
    systems, scores, lines = [], [], []
    for number, line in enumerate(_lines(path), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise InputError(path, number, f"{len(parts)} fields, expected 'SYSTEM SCORE'", "one system and score per line")
        try:
            scores.append(np.nan if parts[1] == "None" else float(parts[1]))
        except ValueError:
            scores.append(None)
        if scores[-1] is None or np.isinf(scores[-1]):
            raise InputError(path, number, f"score {parts[1]!r} is not a number", "write a number or None")
        systems.append(parts[0])
        lines.append(number)
    if level == "sys":
        return _series(path, systems, lines, scores, "system")
    counts = pd.Series(systems).value_counts()
    wrong = counts[counts != n_segments]
    if len(wrong):
        raise InputError(path, None, f"system {wrong.index[0]} has {wrong.iloc[0]} segment scores, the source "
                         f"{n_segments} segments", "segment-level files hold one block of scores per system, one per segment")
    items = [str(k % n_segments + 1) for k in range(len(systems))]
    index = pd.MultiIndex.from_arrays([items, systems], names=["item", "system"])
    return pd.Series(scores, index=index, dtype=float).dropna()


def testsets(root) -> list[str]:
    """Test sets (sub-directories with ``sources/``) of an mt-metrics-eval data directory."""
    root = Path(root)
    return sorted(p.name for p in root.iterdir() if (p / "sources").is_dir()) if root.is_dir() else []


def language_pairs(root) -> list[str]:
    """Language pairs of a test-set directory (``sources/LP.txt``)."""
    source = Path(root) / "sources"
    return sorted(p.stem for p in source.glob("*.txt")) if source.is_dir() else []


def locate(root, lp: str) -> tuple[Path, str]:
    """(test-set directory, language pair) for ``root`` = a test-set directory and ``lp`` = "de-en",
    or ``root`` = the data directory holding test sets (``mt-metrics-eval-v2``) and ``lp`` =
    "wmt20/de-en" (or "de-en" when only one test set has that pair)."""
    root = Path(root)
    if (root / "sources").is_dir():
        return root, lp
    testset, _, pair = lp.rpartition("/")
    if testset:
        return root / testset, pair
    having = [t for t in testsets(root) if lp in language_pairs(root / t)]
    if len(having) == 1:
        return root / having[0], lp
    raise InputError(root, None, f"{len(having) or 'no'} test sets with {lp}" if having or testsets(root)
                     else "no sources/ here and no test-set directories below",
                     f"name one as TESTSET/{lp} ({', '.join(having)})" if having else
                     f"test sets here: {', '.join(testsets(root))}" if testsets(root) else
                     "give an mt-metrics-eval test-set directory (sources/, references/, system-outputs/, …) "
                     "or the folder holding them")


def read_mtme(root, lp: str) -> EvalSet:
    """Sources, references, system outputs, human and metric scores of ``lp`` under ``root`` (a
    test-set directory such as ``mt-metrics-eval-v2/wmt20``, or the folder of test sets with
    ``lp`` = "wmt20/de-en"; see ``locate``)."""
    root, lp = locate(root, lp)
    source = root / "sources" / f"{lp}.txt"
    if not source.is_file():
        have = sorted(p.stem for p in (root / "sources").glob("*.txt")) if (root / "sources").is_dir() else []
        raise InputError(source, None, "not found", f"language pairs here: {', '.join(have)}" if have
                         else "give a test-set directory of mt-metrics-eval (with sources/, references/, system-outputs/)")
    sources = _lines(source)
    n = len(sources)
    references = {p.name[len(lp) + 1:-4]: _aligned(p, n) for p in sorted((root / "references").glob(f"{lp}.*.txt"))}
    outputs = {p.stem: _aligned(p, n) for p in sorted((root / "system-outputs" / lp).glob("*.txt"))}
    result = EvalSet(root, lp, sources, references, outputs)
    docs = root / "documents" / f"{lp}.docs"
    if docs.is_file():
        result.documents = [line.split()[-1] if line.split() else "" for line in _aligned(docs, n)]
    for p in sorted((root / "human-scores").glob(f"{lp}.*.score")):
        name, level = p.name[len(lp) + 1:-len(".score")].rsplit(".", 1)
        if level in ("sys", "seg"):
            result.human[(name, level)] = read_scores(p, level, n)
        else:
            result.skipped.append(f"{p.name} ({level} level)")
    for p in sorted((root / "metric-scores" / lp).glob("*.score")):
        stem, level = p.name[:-len(".score")].rsplit(".", 1)
        metric, _, ref = stem.rpartition("-") if "-" in stem else (stem, "", "")
        if level in ("sys", "seg"):
            result.metrics[(metric, ref, level)] = read_scores(p, level, n)
        else:
            result.skipped.append(f"{p.name} ({level} level)")
    return result
