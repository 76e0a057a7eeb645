"""Stable pseudonyms for the people in a table (judges, editors, annotators).

Usernames and crowd-worker ids are personal data. A pseudonym is ``judge-`` plus the first
12 hex digits of SHA-256(salt + name): the same name always gets the same pseudonym, so
files anonymised separately still line up. Without a secret ``salt`` anyone holding the
original ids can recompute the mapping; pass one when that matters.

``anonymize`` serves one table, ``anonymize_judgments`` every table read from a file (what the
CLI's ``--anonymize`` applies right after reading, so no output carries the ids), and
``anonymize_annotations`` HMEANT annotation sets.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import replace

from humeval.data.tables import Table

PEOPLE = {"judges": "judge", "editors": "editor"}


def pseudonym(name: str, salt: str = "", prefix: str = "judge", digits: int = 12) -> str:
    return f"{prefix}-{hashlib.sha256((salt + name).encode('utf-8')).hexdigest()[:digits]}"


def pseudonyms(names, salt: str = "", prefix: str = "judge") -> dict[str, str]:
    """name → pseudonym for every distinct name, lengthened in the (astronomically unlikely) case
    of a collision so that different people stay different."""
    names = list(dict.fromkeys(names))
    digits = 12
    while True:
        renamed = [pseudonym(n, salt, prefix, digits) for n in names]
        if len(set(renamed)) == len(renamed):
            return dict(zip(names, renamed))
        digits += 4


def anonymize(table: Table, salt: str = "") -> Table:
    """The same table with every judge/editor label replaced by its pseudonym (codes unchanged)."""
    labels = dict(table._labels)
    for label_set, prefix in PEOPLE.items():
        if label_set in labels:
            mapping = pseudonyms(labels[label_set], salt, prefix)
            labels[label_set] = tuple(mapping[n] for n in labels[label_set])
    return table._rebuild(dict(table._cols), labels)


def anonymize_judgments(judgments, salt: str = ""):
    """``Judgments`` with every table's judges and editors pseudonymised (a new object; the
    read report is shared)."""
    result = copy.copy(judgments)
    for name, table in judgments.tables().items():
        setattr(result, name, anonymize(table, salt))
    return result


def anonymize_annotations(annotations, salt: str = ""):
    """An HMEANT ``AnnotationSet`` whose annotators are pseudonymised (``annotator-…``)."""
    result = copy.copy(annotations)
    mapping = pseudonyms([a.annotator for a in annotations.annotations], salt, "annotator")
    result.annotations = [replace(a, annotator=mapping[a.annotator]) for a in annotations.annotations]
    return result
