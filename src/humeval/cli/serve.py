"""``humeval serve``: the annotation server (``humeval.serve``)."""

from __future__ import annotations

import gc
import json

import click

from humeval.cli.common import DEFAULT_GC_THRESHOLDS, OutputPath, UserError, common_options, err, out, plural

DEMO_FILES = ("campaign.toml", "source.txt", "reference.txt", "documents.txt", "ai_spans.jsonl")  # = serve.demo.FILES


@click.command("serve")
@click.argument("campaign_file", required=False, type=click.Path(dir_okay=False))
@click.option("--check", is_flag=True, help="Only check the campaign file and its data, then exit.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--db", "database",
              help="SQLite database file, or a postgresql:// URL (default: the campaign's `database`, beside the "
                   "campaign file).")
@click.option("--demo", "demo_dir",
              type=OutputPath(folder=True, beside=lambda path, params: [path / name for name in DEMO_FILES]),
              help="Write a demo campaign into this folder and exit: every task type (pairwise, ranking, DA, "
                   "contrastive ESA with pre-filled ESA^AI spans, MQM-lite) on 16 German–English segments in 4 "
                   "documents from 4 systems of known quality, with a tutorial, attention checks and completion codes; "
                   "3 annotators and an organiser.")
@click.option("--import", "manifest", type=click.Path(dir_okay=False),
              help="Build a campaign from another platform's file: Pearmut's campaign JSON, Appraise's batches JSON "
                   "or WMT's JSONL (texts, documents, tutorial items, attention checks, pre-filled ESA^AI spans); "
                   "written into --into, then exit.")
@click.option("--into", "into_dir", type=OutputPath(folder=True, beside=lambda path, params: [
                  path / name for name in ("campaign.toml", "source.txt", "documents.txt")]),
              help="Folder that --import writes the campaign into.")
@click.option("--hash-password", is_flag=True, help="Read a password (prompted) and print its scrypt hash for the "
                                                    "campaign file's password_hash.")
@common_options
def serve(campaign_file, check, host, port, database, demo_dir, manifest, into_dir, hash_password, quiet, as_json):
    """Serve a judging campaign: annotators log in and judge in the browser, the campaign's strategy
    chooses the next task, the organiser watches the ranking and exports the judgments.

    The campaign file (TOML, checked by --check) names the task types, texts and accounts, and
    optionally [[tutorial]] items answered first, [[checks]] (loud or silent attention checks at
    quality.checks), [completion] codes shown when the quota is done, data.documents (document
    context), data.ai_spans (ESA^AI: pre-filled error spans) and contrastive = N (N outputs side
    by side in ESA); docs/tutorials/serve.md describes each key.

    \b
    Example:
      humeval serve --demo demo/
      humeval serve --check demo/campaign.toml
      humeval serve --import pearmut_campaign.json --into wmt-ende/
    """
    if hash_password:
        from humeval.serve.auth import hash_password as make_hash
        out.print(make_hash(click.prompt("password", hide_input=True, confirmation_prompt=True)))
        return
    if demo_dir:
        from humeval.serve.demo import PASSWORD, write_demo
        path = write_demo(demo_dir)
        if as_json:
            click.echo(json.dumps({"campaign": str(path), "password": PASSWORD}))
        elif not quiet:
            out.print(f"wrote {path}: accounts ann1, ann2, ann3 and organiser, password {PASSWORD!r}; "
                      f"start it with: humeval serve {path}")
        return
    if manifest or into_dir:
        if not (manifest and into_dir):
            raise UserError("--import FILE needs --into DIR (the folder the campaign is written into), and the other "
                            "way round")
        from humeval.serve.campaign import load_campaign
        from humeval.serve.manifest import import_manifest
        path, report = import_manifest(manifest, into_dir)
        load_campaign(path)  # what was written is a campaign the server takes
        if as_json:
            click.echo(json.dumps(report))
        elif not quiet:
            left = "; ".join(f"{n:,} {why}" for why, n in report["left_out"].items())
            out.print(f"wrote {path}: {plural(report['segments'], 'segment')} in "
                      f"{plural(report['documents'], 'document')}, {plural(len(report['systems']), 'system')}, "
                      f"tasks {', '.join(report['tasks'])}, {plural(report['tutorial'], 'tutorial item')}, "
                      f"{plural(report['checks'], 'attention check')}, "
                      f"{plural(report['ai_spans'], 'output')} with pre-filled spans"
                      + (f"; left out: {left}" if left else ""))
            out.print("accounts: " + ", ".join(f"{name} (password {pw})" for name, pw in report["accounts"].items()))
            out.print(f"start it with: humeval serve {path}")
        return
    if campaign_file is None:
        raise UserError("give a campaign file (humeval serve CAMPAIGN.toml), or --demo DIR to write one")
    from humeval.serve.campaign import load_campaign
    campaign = load_campaign(campaign_file, database)
    roles = [a.role for a in campaign.accounts]
    summary = {"segments": len(campaign.items), "systems": list(campaign.systems), "tasks": list(campaign.tasks),
               "strategy": campaign.strategy, "annotators": roles.count("annotator"),
               "organisers": roles.count("organiser"), "database": str(campaign.database)}
    if as_json and check:
        click.echo(json.dumps(summary))
        return
    if not quiet:
        out.print(f"{campaign_file}: {plural(len(campaign.items), 'segment')}, {plural(len(campaign.systems), 'system')}, "
                  f"tasks {', '.join(campaign.tasks)}, strategy {campaign.strategy}, "
                  f"{plural(summary['annotators'], 'annotator')}, {plural(summary['organisers'], 'organiser')}, "
                  f"database {campaign.database}")
    if check:
        if not quiet:
            out.print("campaign file OK")
        return
    try:
        import uvicorn

        from humeval.serve.app import create_app
    except ImportError as error:
        raise UserError(f"humeval serve needs {error.name}: pip install 'humeval[serve]' (in a checkout: "
                        "python -m pip install '.[serve]')") from None
    if not quiet:
        err.print(f"serving on http://{host}:{port}/ (Ctrl-C stops after the requests under way)")
    gc.set_threshold(*DEFAULT_GC_THRESHOLDS)  # a server runs for days: collect cycles at Python's pace (see main)
    from humeval.serve.hardening import uvicorn_options  # timeouts and the request-head deadline
    uvicorn.run(create_app(campaign, process=True), host=host, port=port, log_level="warning",
                **uvicorn_options(campaign))
