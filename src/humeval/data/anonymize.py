"""Stable pseudonyms for the people in a table (judges, editors).

Usernames and crowd-worker ids are personal data. A pseudonym is ``judge-`` plus the first
12 hex digits of SHA-256(salt + name): the same name always gets the same pseudonym, so
files anonymised separately still line up. Without a secret ``salt`` anyone holding the
original ids can recompute the mapping; pass one when that matters.
"""

from __future__ import annotations

import hashlib

from humeval.data.tables import Table

PEOPLE = {"judges": "judge", "editors": "editor"}


def pseudonym(name: str, salt: str = "", prefix: str = "judge", digits: int = 12) -> str:
    return f"{prefix}-{hashlib.sha256((salt + name).encode('utf-8')).hexdigest()[:digits]}"


def anonymize(table: Table, salt: str = "") -> Table:
    """The same table with every judge/editor label replaced by its pseudonym (codes unchanged)."""
    labels = dict(table._labels)
    for label_set, prefix in PEOPLE.items():
        if label_set in labels:
            names = labels[label_set]
            digits = 12
            while True:  # lengthen in the (astronomically unlikely) case of a collision
                renamed = tuple(pseudonym(n, salt, prefix, digits) for n in names)
                if len(set(renamed)) == len(renamed):
                    break
                digits += 4
            labels[label_set] = renamed
    return table._rebuild(dict(table._cols), labels)
