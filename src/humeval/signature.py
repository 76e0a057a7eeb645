"""Reproducibility signatures: one line that says how a result was made, as sacrebleu's.

``humeval:0.2.0|cmd:rank|data:sha256:3f2a…|model:rao-kupper|l2:1|boot:1000@judge|ci:0.95|clusters:wmt|protocol:none|seed:0|numpy:2.4.0|scipy:1.17.0|numba:0.68.0|pandas:3.1.0``

Every command's signature is made here (``make``), in one layout: humeval's version, the command
(``cmd``; ``metric.score`` for a subcommand), ``data``: the first 12 hex digits of the SHA-256 of
each input file given as an argument (comma-separated, in order; ``none`` without), then the
command's fixed fields (``FIXED_FIELDS``: rank's model, prior precision ``l2``, bootstrap count and
unit, confidence, cluster rule, ratings protocol and seed), then every other option that changes
the result and was given a non-default value as ``NAME:VALUE`` (the option's long name without
dashes, e.g. ``track:Czech-English``; an input-file option by its content hash,
``drop-judges:sha256:…``), and last the versions of the numeric libraries that can change the
numbers (``NUMERIC``). Options that only choose where output goes or how it is shown (``--out``,
``--plot``, ``--json``, ``--quiet``, ``--jobs``, ``--force`` … ``OUTPUT_ONLY`` and every output
path) are never part of it. ``humeval rank --signature SIG FILE`` parses the line back into the
options (``options``) and refuses a file whose hash differs.

Kept free of numpy and pandas (``humeval --help`` and ``--version`` import it).
"""

from __future__ import annotations

import contextlib
import contextvars
import glob
import hashlib
import os
from pathlib import Path

from humeval.errors import InputError

HASH_DIGITS = 12
NUMERIC = ("numpy", "scipy", "numba", "pandas")  # the libraries whose versions can change humeval's numbers
# option name (click's parameter name) -> signature field, for rank's fixed fields
FIXED = {"model_names": "model", "l2": "l2", "confidence": "ci", "protocol": "protocol", "random_state": "seed"}
FIXED_FIELDS = {"rank": ("model", "l2", "boot", "ci", "clusters", "protocol", "seed")}  # a command's fixed fields
# parameters that choose where output goes, how it is shown or how fast it runs: never in a signature
OUTPUT_ONLY = {"out_file", "plot", "heatmap", "jobs", "backend", "scheduler", "as_json", "quiet", "force", "threads",
               "signature", "output", "report_format",
               "salt"}  # a pseudonym salt is a secret; it changes names, never scores
_HEAD = ("humeval", "cmd", "data")


def version() -> str:
    from humeval import __version__
    return __version__


def versions() -> dict[str, str]:
    """humeval's version and its numeric dependencies', read from the installed metadata
    (importlib.metadata: nothing is imported, so ``--version`` stays as fast as ``--help``)."""
    from importlib import metadata
    found = {"humeval": version()}
    for name in NUMERIC:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


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


def fingerprint(value) -> str:
    """``data_hash`` of an input path; of a glob pattern, of every file it matches (relative
    name and bytes, sorted); ``missing`` when nothing is there (the command then says so)."""
    value = str(value)
    if os.path.exists(value):
        return data_hash(value)
    matches = sorted(m for m in glob.glob(value, recursive=True) if os.path.isfile(m))
    if not matches:
        return "missing"
    digest = hashlib.sha256()
    for match in matches:
        digest.update(os.path.basename(match).encode("utf-8") + b"\0")
        _update(digest, Path(match))
    return "sha256:" + digest.hexdigest()[:HASH_DIGITS]


def _update(digest, path: Path) -> None:
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as error:
        raise InputError(path, None, f"cannot read it for the result's signature (its content hash): {error.strerror}",
                         "check its permissions") from None


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return ",".join(_text(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 1e15 else repr(value)
    return str(value)


def values(value) -> list:
    """A parameter's value as a list: none, one, or a repeated option's several."""
    if value is None or _unset(value):
        return []
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _is_output(param) -> bool:
    return type(param.type).__name__ == "OutputPath"  # humeval.cli.common (not imported: startup)


def is_input(param) -> bool:
    """Whether a click parameter names an input file or folder (a path that is not an output):
    signed by its content hash, never its path."""
    import click
    return isinstance(param.type, click.Path) and not _is_output(param)


def make(command, params: dict, path=None, defaults: dict | None = None, default_model: bool = False,
         name: str | None = None) -> str:
    """The signature of running ``command`` (a click command) with ``params``.

    ``path``: the input whose hash is ``data`` (default: every input-file argument in ``params``);
    ``defaults``: the parameters' defaults (read from ``command`` when not given);
    ``default_model``: no model was asked for (``model:default``: on ratings the file chooses it);
    ``name``: the command's name as typed (``metric score``; default ``command.name``)."""
    import click
    name = name or command.name
    defaults = defaults if defaults is not None else {p.name: p.default for p in command.params}
    if path is not None:
        data = data_hash(path)
    else:
        data = ",".join(fingerprint(v) for p in command.params if isinstance(p, click.Argument) and is_input(p)
                        for v in values(params.get(p.name))) or "none"
    fields = {"humeval": version(), "cmd": name.replace(" ", "."), "data": data}
    fixed = FIXED_FIELDS.get(name, ())
    if fixed:
        fields["model"] = "default" if default_model else _text(params.get("model_names") or "default")
        fields["l2"] = "default" if params.get("l2") is None else _text(params["l2"])
        fields["boot"] = f"{_text(params.get('n_boot') or 0)}@{params.get('resample') or 'comparison'}"
        fields["ci"] = _text(params.get("confidence", 0.95))
        fields["clusters"] = "wmt" if params.get("clusters") else "none"
        fields["protocol"] = params.get("protocol") or "none"
        fields["seed"] = _text(params.get("random_state", 0))
    by_name = {p.name: p for p in command.params}
    for key, value in params.items():
        param = by_name.get(key)
        if (param is None or key in OUTPUT_ONLY or _is_output(param) or isinstance(param, click.Argument)
                or fixed and (key in FIXED or key in ("n_boot", "resample", "clusters"))):
            continue
        default = defaults.get(key)
        if hasattr(value, "tolist"):  # a grid option's numpy array
            value = value.tolist()
        if value is None or value is False or value in ((), []) or _unset(value) or _text(value) == _text(default) and not _unset(default):
            continue
        long = max(param.opts, key=len).lstrip("-")
        text = ",".join(fingerprint(v) for v in values(value)) if is_input(param) else _text(value)
        if "|" in text:
            raise InputError(None, None, f"--{long} {text!r} holds '|', which separates a signature's fields",
                             "rename it without '|'")
        fields[long] = text
    fields.update((library, v.replace(" ", "-")) for library, v in versions().items() if library != "humeval")
    return "|".join(f"{key}:{value}" for key, value in fields.items())


def _unset(value) -> bool:
    return type(value).__name__ == "Sentinel"


def parse(signature: str) -> dict[str, str]:
    """The signature's fields, in order: ``{"humeval": "0.2.0", "cmd": "rank", "data": "sha256:…", …}``.

    The whole printed line reads too: a leading ``signature:`` (as humeval prints it) is dropped."""
    fields = {}
    text = signature.strip()
    if text.lower().startswith("signature:"):
        text = text[len("signature:"):].strip()
    for part in text.split("|"):
        key, sep, value = part.partition(":")
        if not sep or not key:
            raise InputError(None, None, f"{part!r} in the signature is not NAME:VALUE",
                             "paste the whole line humeval printed after 'signature:'")
        fields[key] = value
    missing = [k for k in ("humeval", "data") if k not in fields]
    if missing:
        raise InputError(None, None, f"the signature lacks {', '.join(missing)}",
                         "paste the whole line humeval printed after 'signature:'")
    return fields


def changed_versions(fields: dict[str, str]) -> list[str]:
    """``"numpy 2.3.0 (now 2.4.0)"`` for every library whose version in the signature differs from
    the one installed (humeval's included); a signature without a library's field says nothing."""
    now = {k: v.replace(" ", "-") for k, v in versions().items()}
    return [f"{k} {fields[k]} (now {v})" for k, v in now.items() if k in fields and fields[k] != v]


def options(command, signature: str, path, given: dict | None = None) -> dict:
    """The command's parameters that ``signature`` names, typed as click would type them from the
    command line; refuses a file whose hash differs from the signature's, a signature made by
    another command, and an input-file option (``--drop-judges``) not given again (``given``)
    or given with other content."""
    import click
    fields = parse(signature)
    if fields.get("cmd", command.name) != command.name:
        raise InputError(None, None, f"the signature was made by `humeval {fields['cmd'].replace('.', ' ')}`, "
                         f"not `humeval {command.name}`", "re-run it with the command it names")
    missing = [k for k in FIXED_FIELDS.get(command.name, ()) if k not in fields and k not in ("l2", "clusters",
                                                                                             "protocol")]
    if missing:
        raise InputError(None, None, f"the signature lacks {', '.join(missing)}",
                         "paste the whole line humeval printed after 'signature:'")
    actual = fingerprint(path)
    if fields["data"] != actual:
        raise InputError(path, None, f"the file's content hash is {actual}, the signature's is {fields['data']}: "
                         "this is not the data the signature was made on", "rank the file the signature names")
    # every spelling, old ones included (a signature made before --cluster became --cluster-by still reads)
    by_long = {o.lstrip("-"): p for p in command.params for o in [*p.opts, *getattr(p, "old", ())]}
    by_name = {p.name: p for p in command.params}
    ctx = click.Context(command)
    params = {}
    given = given or {}

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
        if key in _HEAD or key in FIXED_FIELDS.get(command.name, ()) or key in NUMERIC:
            continue
        if key not in by_long:
            raise InputError(None, None, f"the signature names {key!r}, which `humeval {command.name}` does not take",
                             "make the signature with the same command")
        param = by_long[key]
        if is_input(param):  # a file's content hash: the file is given again, and must be the same
            files = values(given.get(param.name))
            hashes = ",".join(fingerprint(v) for v in files)
            if hashes != value:
                raise InputError(files[0] if files else None, None,
                                 f"the signature's --{key} has content hash {value}, "
                                 + (f"the file given has {hashes}" if files else "and no such file was given"),
                                 f"give --{key} with the file the signature was made with")
            params[param.name] = given[param.name]
            continue
        params[param.name] = typed(param.name, value)
    return params


# -- where a command's result tables are written (``humeval.data.export.write`` stamps them) -------

_TABLES: contextvars.ContextVar = contextvars.ContextVar("humeval_signed_tables", default=None)


@contextlib.contextmanager
def signing_tables(paths, current):
    """While in the block, ``stamp`` adds a last column ``signature`` (``current()``) to the
    tables written to ``paths`` (a command's result-table outputs, ``--out``)."""
    token = _TABLES.set(({os.path.abspath(str(p)) for p in paths}, current))
    try:
        yield
    finally:
        _TABLES.reset(token)


def stamp(df, path):
    """``df`` with a last column ``signature`` when ``path`` is a signed result table (see
    ``signing_tables``) and it has none yet (``humeval_signature`` beside a ``signature`` of another
    kind, as metric's); else ``df`` unchanged."""
    active = _TABLES.get()
    if active is None or os.path.abspath(str(path)) not in active[0]:
        return df
    sig = active[1]()
    if not sig or sig in set(df.get("signature", ())) or "humeval_signature" in df.columns:
        return df
    return df.assign(**{"humeval_signature" if "signature" in df.columns else "signature": sig})
