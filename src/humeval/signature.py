"""Reproducibility signatures: one line that says how a result was made, as sacrebleu's.

``humeval:0.2.0|data:sha256:3f2a…|model:rao-kupper|l2:1|boot:1000@judge|ci:0.95|clusters:wmt|protocol:none|seed:0``

The fixed fields come first, in this order: humeval's version, the first 12 hex digits of the
SHA-256 of the input's bytes, the model, the prior's precision (``l2``), the bootstrap count and
its unit, the confidence, the cluster rule, the ratings protocol and the seed. Every other option
that changes the result and was given a non-default value follows as ``NAME:VALUE`` (the option's
long name without dashes, e.g. ``track:Czech-English``); options that only choose where output
goes (``--out``, ``--plot``, ``--json``, ``--jobs`` …) are not part of it. ``humeval rank
--signature SIG FILE`` parses the line back into the options and refuses a file whose hash differs.

Kept free of numpy and pandas (``humeval --help`` imports the group, which imports nothing heavy).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from humeval.errors import InputError

HASH_DIGITS = 12
# option name (click's parameter name) -> signature field, for the fixed fields
FIXED = {"model_names": "model", "l2": "l2", "confidence": "ci", "protocol": "protocol", "random_state": "seed"}
# parameters that choose where output goes or how fast it runs: never in a signature
OUTPUT_ONLY = {"file", "files", "out_file", "plot", "heatmap", "jobs", "backend", "scheduler", "as_json", "quiet",
               "signature", "output", "report_format",
               "salt"}  # a pseudonym salt is a secret; it changes names, never scores
# second input files whose content decides the numbers: written PATH@sha256:…, checked on a re-run
HASHED = {"joint_file", "families_file"}


def version() -> str:
    from humeval import __version__
    return __version__


def data_hash(path) -> str:
    """``sha256:`` and the first 12 hex digits of the SHA-256 of the file's bytes; of a folder
    (a partitioned dataset), of every file's relative path and bytes in sorted order."""
    path = Path(path)
    digest = hashlib.sha256()
    if path.is_dir():
        for part in sorted(p for p in path.rglob("*") if p.is_file()):
            digest.update(str(part.relative_to(path)).encode("utf-8") + b"\0")
            _update(digest, part)
    elif path.is_file():
        _update(digest, path)
    else:
        raise InputError(path, None, "no such file or folder", "check the path")
    return "sha256:" + digest.hexdigest()[:HASH_DIGITS]


def _update(digest, path: Path) -> None:
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return ",".join(_text(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 1e15 else repr(value)
    return str(value)


def make(command, params: dict, path, defaults: dict | None = None, default_model: bool = False) -> str:
    """The signature of running ``command`` (a click command) with ``params`` on ``path``.

    ``defaults``: the parameters' defaults (read from ``command`` when not given);
    ``default_model``: no model was asked for (``model:default``: on ratings the file chooses it)."""
    defaults = defaults if defaults is not None else {p.name: p.default for p in command.params}
    fields = {"humeval": version(), "data": data_hash(path)}
    fields["model"] = "default" if default_model else _text(params.get("model_names") or "default")
    fields["l2"] = "default" if params.get("l2") is None else _text(params["l2"])
    # the unit as rank --resample gave it; without one the procedure's default (comparison; segment on ratings)
    fields["boot"] = f"{_text(params.get('n_boot') or 0)}@{params.get('resample') or 'comparison'}"
    fields["ci"] = _text(params.get("confidence", 0.95))
    fields["clusters"] = "wmt" if params.get("clusters") else "none"
    fields["protocol"] = params.get("protocol") or "none"
    fields["seed"] = _text(params.get("random_state", 0))
    names = {p.name: p.opts for p in command.params}
    for name, value in params.items():
        if name in OUTPUT_ONLY or name in FIXED or name in ("n_boot", "resample", "clusters") or name not in names:
            continue
        default = defaults.get(name)
        if value in (None, False, (), []) or _text(value) == _text(default) and not _unset(default):
            continue
        long = max(names[name], key=len).lstrip("-")
        text = _text(value) + (f"@{data_hash(value)}" if name in HASHED else "")
        if "|" in text:
            raise InputError(None, None, f"--{long} {text!r} holds '|', which separates a signature's fields",
                             "rename it without '|'")
        fields[long] = text
    return "|".join(f"{key}:{value}" for key, value in fields.items())


def _unset(value) -> bool:
    return type(value).__name__ == "Sentinel"


def parse(signature: str) -> dict[str, str]:
    """The signature's fields, in order: ``{"humeval": "0.2.0", "data": "sha256:…", …}``."""
    fields = {}
    for part in signature.strip().split("|"):
        key, sep, value = part.partition(":")
        if not sep or not key:
            raise InputError(None, None, f"{part!r} in the signature is not NAME:VALUE",
                             "paste the whole line humeval printed after 'signature:'")
        fields[key] = value
    missing = [k for k in ("humeval", "data", "model", "boot", "ci", "seed") if k not in fields]
    if missing:
        raise InputError(None, None, f"the signature lacks {', '.join(missing)}",
                         "paste the whole line humeval printed after 'signature:'")
    return fields


def options(command, signature: str, path) -> dict:
    """The command's parameters that ``signature`` names, typed as click would type them from the
    command line; refuses a file whose hash differs from the signature's."""
    import click
    fields = parse(signature)
    actual = data_hash(path)
    if fields["data"] != actual:
        raise InputError(path, None, f"the file's content hash is {actual}, the signature's is {fields['data']}: "
                         "this is not the data the signature was made on", "rank the file the signature names")
    # every spelling, old ones included (a signature made before --cluster became --cluster-by still reads)
    by_long = {o.lstrip("-"): p for p in command.params for o in [*p.opts, *getattr(p, "old", ())]}
    by_name = {p.name: p for p in command.params}
    ctx = click.Context(command)
    params = {}

    def typed(name, text):
        param = by_name[name]
        if getattr(param, "is_flag", False):
            return text == "true"
        if param.multiple:
            return tuple(param.type.convert(v, param, ctx) for v in text.split(","))
        return param.type.convert(text, param, ctx)

    if fields["model"] != "default":
        params["model_names"] = typed("model_names", fields["model"])
    for key, name in (("ci", "confidence"), ("seed", "random_state")):
        params[name] = typed(name, fields[key])
    if fields.get("l2", "default") != "default":
        params["l2"] = typed("l2", fields["l2"])
    if fields.get("protocol", "none") != "none":
        params["protocol"] = fields["protocol"]
    n, _, by = fields["boot"].partition("@")
    params["n_boot"] = typed("n_boot", n)
    params["resample"] = None if by in ("", "comparison") else typed("resample", by)  # None: the default unit
    params["clusters"] = fields.get("clusters") == "wmt"
    for key, value in fields.items():
        if key in ("humeval", "data", "model", "l2", "boot", "ci", "clusters", "protocol", "seed"):
            continue
        if key not in by_long:
            raise InputError(None, None, f"the signature names {key!r}, which `humeval {command.name}` does not take",
                             "make the signature with the same command")
        name = by_long[key].name
        if name in HASHED:
            value, _, wanted = value.rpartition("@")
            if data_hash(value) != wanted:
                raise InputError(value, None, f"the file's content hash is {data_hash(value)}, the signature's is "
                                 f"{wanted}: this is not the --{key} file the signature was made with",
                                 "give the file the signature names")
        params[name] = typed(name, value)
    return params
