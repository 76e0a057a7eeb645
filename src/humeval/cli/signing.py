"""``--signature``: a command's reproducibility signature (``humeval.signature``) printed under
its tables, stored in its ``--json`` and ``--out``, and read back to re-run exactly that."""

from __future__ import annotations

import functools

import click

META = "humeval.signature"


def current() -> str | None:
    """The running command's signature (None outside a signed command)."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(META) if ctx is not None else None


def signature_field() -> dict:
    """``{"signature": SIG}`` for a command's ``--json`` (empty outside a signed command)."""
    sig = current()
    return {"signature": sig} if sig else {}


def stamp(df):
    """``df`` with a last column ``signature`` (what ``--out`` and ``--json`` write)."""
    sig = current()
    return df.assign(signature=sig) if sig else df


def signed(command_function):
    """Adds ``--signature SIG`` to a command taking ``file``: with it, the options are the
    signature's (result-changing options given beside it are refused) and the file must have
    the signature's content hash; without it, the signature of this run is made. Either way it
    is printed last (unless --quiet/--json) and kept for ``stamp`` and the JSON output."""
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
            explicit = [name for name in kwargs if name not in sig.OUTPUT_ONLY
                        and ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE]
            if explicit:
                hints = ", ".join(max(p.opts, key=len) for p in command.params if p.name in explicit)
                raise click.UsageError(f"--signature sets the options; {hints} given beside it would change them")
            kwargs.update(sig.options(command, given, kwargs["file"]))
            version = sig.parse(given)["humeval"]
            if version != sig.version():
                click.echo(f"warning: the signature was made by humeval {version}; this is {sig.version()} "
                           "(numbers may differ where the models changed: see CHANGELOG.md)", err=True)
        default_model = (sig.parse(given)["model"] == "default" if given else  # no --model: the file chooses (ratings)
                         ctx.get_parameter_source("model_names") == click.core.ParameterSource.DEFAULT)
        ctx.meta[META] = sig.make(command, kwargs, kwargs["file"], default_model=default_model)
        result = command_function(**kwargs)
        if not (kwargs.get("quiet") or kwargs.get("as_json")):
            click.echo(f"signature: {ctx.meta[META]}")
        return result

    return wrapper

