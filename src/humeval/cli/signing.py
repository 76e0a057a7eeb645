"""Every command's reproducibility signature (``humeval.signature``): made before the command
runs, printed under its tables, stored in its ``--json`` and its ``--out`` tables; and rank's
``--signature SIG``, which reads one back to re-run exactly that.

``sign`` wraps every command (``humeval.cli._group.Group.get_command``), so a new command is
signed without code of its own: its tables are those drawn by ``common.render``, its result
tables the outputs of type ``common.TABLE_OUT`` (written through ``humeval.data.export.write``),
its JSON what it prints with ``--json``."""

from __future__ import annotations

import contextlib
import functools
import io
import json

import click

META = "humeval.signature"
TABLES = "humeval.signature.tables"  # how many tables the running command drew (``common.render``)
UNSIGNED = {"serve"}  # a server's state, not a result


def current() -> str | None:
    """The running command's signature (None outside a signed command)."""
    ctx = click.get_current_context(silent=True)
    return of(ctx.meta) if ctx is not None else None


def of(meta: dict) -> str | None:
    """The signature a command's context holds (``ctx.meta``), made on first use: the inputs are
    hashed only once a result is shown or written, never for a command that stops before (an
    input it refuses, such as a folder it cannot read, is not read for the hash first)."""
    value = meta.get(META)
    if callable(value):
        value = meta[META] = value()
    return value


def signature_field() -> dict:
    """``{"signature": SIG}`` for a command's ``--json`` (empty outside a signed command)."""
    sig = current()
    return {"signature": sig} if sig else {}


def stamp(df):
    """``df`` with a last column ``signature`` (what ``--out`` and ``--json`` write)."""
    sig = current()
    return df.assign(signature=sig) if sig and "signature" not in df.columns else df


def table_drawn() -> None:
    """Count a table the running command shows (``common.render``): its signature follows them."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta[TABLES] = ctx.meta.get(TABLES, 0) + 1


def field(row) -> str:
    """``signature``, or ``humeval_signature`` where a row already has a ``signature`` of another
    kind (``metric``'s sacrebleu signatures)."""
    return "humeval_signature" if "signature" in row else "signature"


def signed_json(text: str, sig: str) -> str:
    """A command's ``--json`` output with the signature in it: a ``signature`` field (``field``) in
    every row of every table (a list of objects), as rank's rows carry it; without tables, a
    top-level field. Output that already holds the signature, or is not one JSON document, is left
    as it is."""
    if sig in text:
        return text
    try:
        payload = json.loads(text)
    except ValueError:
        return text
    rows = 0

    def walk(value):
        nonlocal rows
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for row in value:
                row[field(row)] = sig
                rows += 1
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)

    walk(payload)
    if not rows:
        if not isinstance(payload, dict):
            return text
        payload[field(payload)] = sig
    return json.dumps(payload, indent=2) + "\n"


def sign(command: click.Command, name: str | None = None) -> click.Command:
    """Make ``command`` (every command under a group) sign its results: the signature of its
    parameters (``humeval.signature.make``) is set before it runs (``current``, made on first
    use: ``of``); after it, a last line ``signature: SIG`` follows the tables it drew (not with
    --quiet or --json), its ``--json`` gets the signature (``signed_json``) and its ``--out``
    tables a last column."""
    from humeval import signature as sig
    name = name or command.name
    if isinstance(command, click.Group):
        for sub_name, sub in command.commands.items():
            sign(sub, f"{name} {sub_name}")
        return command
    if getattr(command, "_signed", False) or command.callback is None or name in UNSIGNED:
        return command
    callback = command.callback
    from humeval.cli.common import TABLE_OUT
    tables = [p.name for p in command.params if p.type is TABLE_OUT]

    @functools.wraps(callback)
    def signed_callback(*args, **kwargs):
        ctx = click.get_current_context()
        default_model = ("model_names" in kwargs
                         and ctx.get_parameter_source("model_names") == click.core.ParameterSource.DEFAULT)
        ctx.meta[META] = functools.partial(sig.make, command, dict(kwargs), default_model=default_model, name=name)
        ctx.meta[TABLES] = 0
        as_json = bool(kwargs.get("as_json"))
        printed = io.StringIO()
        paths = [v for key in tables for v in sig.values(kwargs.get(key))]
        finished = False
        try:
            with sig.signing_tables(paths, current), \
                    contextlib.redirect_stdout(printed) if as_json else contextlib.nullcontext():
                result = callback(*args, **kwargs)
            finished = True
        finally:
            if as_json:  # what it printed: signed when it finished, as it was when it failed
                text = printed.getvalue()
                click.echo(signed_json(text, of(ctx.meta)) if finished else text, nl=False)
        if ctx.meta[TABLES] and not (kwargs.get("quiet") or as_json):
            click.echo(f"signature: {of(ctx.meta)}")
        return result

    command.callback = signed_callback
    command._signed = True
    return command


def signed(command_function):
    """Adds ``--signature SIG`` to a command taking ``file`` (rank): with it, the options are the
    signature's (result-changing options given beside it are refused; input-file options are
    given again and must have the signature's content hash) and the file must have the
    signature's content hash. The signature of the run is then made from them (``sign`` made
    it from the command line before)."""
    from humeval import signature as sig

    @click.option("--signature", "signature", metavar="SIG", default=None,
                  help="Re-run exactly what a printed signature says (its options); refuses a file whose content "
                       "hash differs from the signature's.")
    @functools.wraps(command_function)
    def wrapper(**kwargs):
        ctx = click.get_current_context()
        given = kwargs.pop("signature")
        command = ctx.command
        if given:
            inputs = {p.name for p in command.params if sig.is_input(p)}
            explicit = [name for name in kwargs if name not in sig.OUTPUT_ONLY and name not in inputs
                        and ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE]
            if explicit:
                hints = ", ".join(max(p.opts, key=len) for p in command.params if p.name in explicit)
                raise click.UsageError(f"--signature sets the options; {hints} given beside it would change them")
            kwargs.update(sig.options(command, given, kwargs["file"], given=kwargs))
            changed = sig.changed_versions(sig.parse(given))
            if changed:
                click.echo(f"warning: the signature was made with {', '.join(changed)}: numbers may differ where "
                           "the models changed (see CHANGELOG.md)", err=True)
            default_model = sig.parse(given)["model"] == "default"  # no --model: the file chose it (ratings)
            ctx.meta[META] = sig.make(command, kwargs, default_model=default_model)
        return command_function(**kwargs)

    return wrapper
