"""``humeval hmeant …``: HMEANT from semantic-frame annotations, role weights, agreement."""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np
import pandas as pd

from humeval.cli.common import (TABLE_OUT, SEED, anonymize_options, common_options, count, jsonable, needs, out,
                                pseudonym_salt, render)
from humeval.data.export import write
from humeval.errors import InputError

LANGUAGES = {"de": "german", "en": "english", "fr": "french", "es": "spanish", "cs": "czech", "ru": "russian"}


def read_annotations(paths):
    from humeval.data.readers.hmeant import read_wmt13
    from humeval.metrics.hmeant import AnnotationSet, read_json
    merged = AnnotationSet([], source=", ".join(map(str, paths)))
    for path in map(Path, paths):
        if path.suffix.lower() == ".json":
            part = read_json(path)
        elif path.is_dir() or path.name in ("slots", "actions", "annotations", "sentences"):
            part = read_wmt13(path)
        else:
            raise InputError(path, None, "neither an HMEANT JSON file nor an hmeant-wmt13 directory",
                             "give a .json file in humeval's HMEANT format or the directory of the tab-separated tables")
        merged.annotations += part.annotations
        for reason, n in part.skipped.items():
            merged.skip(reason, n)
    if not merged.outputs():
        raise InputError(merged.source, None, "no annotations of MT outputs", "HMEANT needs output annotations aligned to references")
    return merged


def read_weights(spec: str, annotations, types):
    from humeval.metrics.hmeant import Weights, frequency_weights, uniform_weights
    if spec == "frequency":
        return frequency_weights(annotations)
    if spec == "uniform":
        return uniform_weights(types)
    try:
        data = json.loads(Path(spec).read_text(encoding="utf-8"))
        return Weights(float(data.get("pred", 1.0)), {k: float(v) for k, v in data.get("roles", {}).items()},
                       float(data.get("partial", 0.5)), float(data.get("default", 0.0)))
    except FileNotFoundError:
        raise click.BadParameter(f"{spec!r} is not uniform, frequency or an existing weights file", param_hint="--weights") from None
    except (ValueError, AttributeError, TypeError) as e:
        raise InputError(spec, None, f"not a weights file ({e})",
                         'write JSON like {"pred": 1, "partial": 0.5, "roles": {"AGENT": 0.8}}') from None


def read_human(path) -> pd.Series:
    import io

    from humeval.data.readers._io import read_text
    text = read_text(path)
    sep = "\t" if "\t" in text.split("\n", 1)[0] else ","
    df = pd.read_csv(io.StringIO(text), sep=sep, dtype={"item": str, "system": str})
    missing = {"item", "system", "score"} - set(df.columns)
    if missing:
        raise InputError(path, 1, f"columns {sorted(missing)} missing (found {', '.join(df.columns)})",
                         "human scores need the columns item, system, score (higher = more adequate)")
    scores = pd.to_numeric(df.score, errors="coerce")
    bad = scores.isna() & df.score.notna()
    if bad.any():
        row = int(np.argmax(bad.to_numpy()))
        raise InputError(path, row + 2, f"score {df.score.iloc[row]!r} is not a number", "scores are numbers")
    return pd.Series(scores.to_numpy(), index=pd.MultiIndex.from_frame(df[["item", "system"]])).dropna().groupby(level=[0, 1]).mean()


def output_metrics(annotations) -> pd.DataFrame:
    """Sentence BLEU, chrF, −TER and METEOR (exact + stem) of every annotated output with texts."""
    from humeval.metrics import Meteor, bleu, chrf, ter
    texts = {}
    for a in annotations.outputs():
        if a.output.text and a.reference.text:
            texts.setdefault((a.item, a.system), (a.output.text, a.reference.text, a.language))
    if not texts:
        return pd.DataFrame()
    frame = pd.DataFrame([(k[0], k[1], h, r, lang) for k, (h, r, lang) in texts.items()],
                         columns=["item", "system", "hyp", "ref", "language"])
    parts = []
    for language, g in frame.groupby(frame.language.fillna("en")):
        hyps, refs = list(g.hyp), list(g.ref)
        meteor = Meteor(params="universal", matchers=("exact", "stem"), language=LANGUAGES.get(language, "english"),
                        tokenize="none", function_words=frozenset())
        parts.append(pd.DataFrame({"BLEU": bleu(hyps, [refs], tokenize="none").segment,
                                   "chrF": chrf(hyps, [refs]).segment, "-TER": -ter(hyps, [refs]).segment,
                                   "METEOR": meteor(hyps, [refs]).segment},
                                  index=pd.MultiIndex.from_frame(g[["item", "system"]])))
    return pd.concat(parts)


def tau_table(candidates: dict[str, pd.Series], target: pd.Series) -> pd.DataFrame:
    """Kendall τ of each candidate score with ``target`` over pairs of outputs of the same item
    that ``target`` ranks differently (ties of a candidate count as discordant)."""
    rows = []
    for name, scores in candidates.items():
        common = scores.dropna().index.intersection(target.dropna().index)
        df = pd.DataFrame({"s": scores[common], "t": target[common]}).reset_index()
        pairs = df.merge(df, on="item")
        pairs = pairs[pairs.t_x > pairs.t_y]
        concordant = int((pairs.s_x > pairs.s_y).sum())
        tau = (2 * concordant - len(pairs)) / len(pairs) if len(pairs) else np.nan
        rows.append({"metric": name, "pairs": len(pairs), "kendall tau": tau})
    return pd.DataFrame(rows).set_index("metric")


@click.command("hmeant")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--weights", "weight_spec", default="frequency", show_default=True,
              help="Role weights: frequency (relative frequency in the references), uniform, or a JSON file.")
@click.option("--tune", "human_file", type=click.Path(dir_okay=False),
              help="Human adequacy scores (columns item, system, score): tune the weights to them and compare.")
@click.option("--cv", "folds", type=count(2),
              help="With --tune: also K-fold cross-validation by item — weights tuned on K−1 folds, Kendall τ on "
                   "the held-out fold, beside relative-frequency and uniform weights.")
@click.option("--random-state", default=0, show_default=True, type=SEED, help="Seed for the --cv folds.")
@click.option("--metrics/--no-metrics", default=False, show_default=True,
              help="Also score the outputs with BLEU, chrF, TER and METEOR (needs the texts) and compare.")
@click.option("--out", "out_file", type=TABLE_OUT, help="Write HMEANT per (item, system, annotator).")
@anonymize_options
@common_options
def hmeant_command(files, weight_spec, human_file, folds, random_state, metrics, out_file, anon, salt, quiet, as_json):
    """HMEANT of every annotated output, per system and language, with the role weights used and
    the two annotators' agreement (Lo & Wu 2011, 2012; Birch et al. 2013).

    FILES: the hmeant-wmt13 directory (its tab-separated tables) or HMEANT JSON files.

    \b
    Example:
      humeval hmeant hmeant-wmt13/ --weights frequency
      humeval hmeant annotations.json --tune adequacy.csv --cv 5
      humeval hmeant hmeant-wmt13/ --out hmeant.csv --anonymize --salt "$SECRET"
    """
    from humeval.metrics.hmeant import (
        alignment_agreement,
        frame_statistics,
        frequency_weights,
        hmeant,
        score_agreement,
        tune_weights,
        uniform_weights,
        weights_table,
    )
    needs(click.get_current_context(), {"folds": "--cv", "random_state": "--random-state"}, human_file is not None,
          "without --tune FILE: cross-validation scores weights against human adequacy judgments (the WMT13 "
          "HMEANT data has none; see the README for the comparison on simulated judgments)")
    salt = pseudonym_salt(anon, salt)
    annotations = read_annotations(files)
    if salt is not None:
        from humeval.data.anonymize import anonymize_annotations
        annotations = anonymize_annotations(annotations, salt)
    stats = frame_statistics(annotations)
    weights = read_weights(weight_spec, annotations, stats.types)
    scores = hmeant(stats, weights)
    skipped = dict(annotations.skipped, **scores.attrs["skipped"])
    if out_file:
        write(scores, out_file)
    systems = (scores.groupby(["language", "system"], dropna=False)
               .agg(outputs=("item", "nunique"), annotations=("hmeant", "count"), precision=("precision", "mean"),
                    recall=("recall", "mean"), hmeant=("hmeant", "mean")))
    systems.index = pd.Index([f"{lang} {system}" if isinstance(lang, str) else str(system)
                              for lang, system in systems.index], name="language system")
    frequency = frequency_weights(annotations)
    shown = pd.DataFrame({"weight": [weights.pred] + [weights.roles.get(t, weights.default) for t in stats.types]},
                         index=pd.Index(["predicate"] + stats.types, name="role"))
    shown["normalised"] = shown.weight / shown.weight.sum()
    agree = score_agreement(scores)
    kappa = alignment_agreement(annotations.annotations)
    per_output = scores.groupby(["item", "system"])["hmeant"].mean()
    result = {"systems": systems, "weights": shown, "kappa": kappa}
    notes = []
    automatic = output_metrics(annotations) if metrics or human_file else None  # texts scored once
    if metrics:
        if automatic.empty:
            notes.append("--metrics: the annotations carry no texts, so no automatic metric was computed")
        else:
            result["metrics vs HMEANT"] = tau_table({c: automatic[c] for c in automatic.columns}, per_output)
    if human_file:
        human = read_human(human_file)
        tuned = tune_weights(stats, human, start=uniform_weights(stats.types))
        result["table 1"] = weights_table(frequency, tuned.weights, stats.types)
        candidates = {"HMEANT (supervised weights, in-sample)": hmeant(stats, tuned.weights).groupby(["item", "system"])["hmeant"].mean(),
                      "HMEANT (relative-frequency weights)": hmeant(stats, frequency).groupby(["item", "system"])["hmeant"].mean(),
                      "HMEANT (uniform weights)": hmeant(stats, uniform_weights(stats.types)).groupby(["item", "system"])["hmeant"].mean()}
        candidates.update({c: automatic[c] for c in automatic.columns})
        result["table 3"] = tau_table(candidates, human)
        if folds:
            from humeval.metrics.hmeant.crossval import cross_validate
            try:
                result["cross-validation"] = cross_validate(annotations, human, k=folds, random_state=random_state)
            except ValueError as error:
                raise click.BadParameter(str(error), param_hint="--cv") from None
    else:
        notes.append("no human adequacy judgments given (--tune FILE): supervised weights and correlations with "
                     "humans need them; none are invented")
    if as_json:
        click.echo(json.dumps({k: jsonable(v) for k, v in result.items()} | {
            "agreement": agree, "predicate F1": kappa.attrs["predicate F1"], "skipped": skipped, "notes": notes},
            indent=2, default=float))
        return
    if quiet:
        return
    out.print(render(systems, f"HMEANT per system ({weight_spec} weights)", "language system"))
    out.print(render(shown, "Role weights", "role"))
    out.print(f"Two annotators of the same output: {agree['outputs']:,} outputs, Pearson {agree['pearson']:.3f}, "
              f"Kendall τ-b {agree['kendall']:.3f}, mean |difference| {agree['mean abs difference']:.3f}; "
              f"predicate F1 {kappa.attrs['predicate F1']:.3f}")
    out.print(render(kappa, "Agreement on alignment decisions (units both annotators marked)", "decision"))
    if "metrics vs HMEANT" in result:
        out.print(render(result["metrics vs HMEANT"], "Automatic metrics against HMEANT (not against humans): "
                                                      "Kendall τ over same-item output pairs", "metric"))
    if "table 1" in result:
        out.print(render(result["table 1"], "Table 1: relative frequency vs optimised weight (normalised)", "role"))
        out.print(render(result["table 3"], f"Table 3: sentence-level Kendall τ with {Path(human_file).name}", "metric"))
    if "cross-validation" in result:
        out.print(render(result["cross-validation"], f"Kendall τ on held-out items ({folds}-fold cross-validation; "
                                                     "mean weighted by pairs)", "fold"))
    for reason, n in skipped.items():
        out.print(f"  skipped {n:,} {reason}")
    for note in notes:
        out.print(f"  note: {note}")
