"""The organiser's page, written as humeval's report writes its tables: numbers formatted by kind
(``humeval.report.render.number``: counts with separators, scores to 3 significant digits, rates
as percentages), a header row without pandas' index-name row, "not enough ratings" for a value
that cannot be computed yet (never NaN); times in UTC; one count of judgments, from the same
snapshot as the tables; systems too little rated to be ranked listed as such; export links only
for exports that hold something; a PNG chart of each ranking with its intervals, drawn on
the server (``humeval.report.ratings_plot.plot_scores``; the page runs no script); a PNG of
progress over time (answers per hour or day by task type, and per annotator); and the agreement
between annotators per protocol (``humeval.serve.agreement``), "not enough overlap" without
shared items.
"""

from __future__ import annotations

import io
import math
from datetime import datetime, timezone

import numpy as np
import pandas as pd
from markupsafe import Markup, escape


MISSING = "not enough ratings"
# key, title, the task types whose counts say which systems were judged
RANKINGS = (("pairwise", "Ranking from pairwise and k-way judgments (Bradley–Terry, 95% bootstrap intervals)",
             ("pairwise", "ranking")),
            ("da", "Ranking from DA scores (z-mean, WMT clusters)", ("da",)),
            ("esa", "Ranking from ESA scores (z-mean, WMT clusters)", ("esa",)),
            ("mqm", "Ranking from MQM-lite errors (mean MQM score)", ("mqm",)))
QUALITY = (("pairwise_quality", "Pairwise quality controls (degraded outputs, repeats)"),
           ("da_quality", "DA quality controls (WMT: degraded outputs, repeats)"),
           ("esa_quality", "ESA quality controls (degraded outputs, repeats)"))
TYPE_NAMES = {"pairwise": "pairwise", "ranking": "rankings", "da": "DA", "esa": "ESA", "mqm": "MQM-lite"}
EXPORT_LABELS = {"comparisons": "Comparisons (pairwise and k-way, humeval's pairwise layout)",
                 "ratings": "Ratings (DA and ESA scores of system outputs)",
                 "controls": "Ratings with their quality controls (kind column)",
                 "judgments": "Every answer (controls, spans, times, pass/fail)",
                 "annotators": "Per annotator: tasks, minutes, tutorial, attention checks failed, completion code",
                 "esa": "ESA with error spans (WMT24 layout)", "mqm": "MQM per-error TSV (Google's layout)",
                 "appraise": "WMT/Appraise ranking CSV",
                 "documents": "Document-level scores (ratings layout, item = document)"}


def _blank(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def html_table(df: pd.DataFrame, table_id: str) -> Markup:
    """``df`` as an HTML table: its index as the first column, numbers written by kind, blanks as
    "not enough ratings"."""
    from humeval.report.render import column_kind, number  # here, not at the top: the report package
    # (matplotlib, the experiments) would be half of `humeval serve`'s start-up
    first = df.index.name or ""
    kinds = [column_kind(c, df[c]) for c in df.columns]
    head = "".join(f"<th>{escape(str(c))}</th>" for c in (first, *df.columns))
    rows = []
    for label, values in zip(df.index, df.itertuples(index=False)):
        cells = [escape(str(label))] + [escape(MISSING if _blank(v) else number(v, k)) for v, k in zip(values, kinds)]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return Markup(f'<table id="{escape(table_id)}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}'
                  "</tbody></table>")


def when(seconds: float, now: float) -> str:
    """``2026-11-26 14:35:02 UTC (12 s ago)``."""
    stamp = datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    ago = max(0, round(now - seconds))
    return f"{stamp} ({ago:,} s ago)" if ago < 120 else f"{stamp} ({ago // 60:,} min ago)"


def summary(board: dict, now: float) -> str:
    """One count, from one snapshot: ``21 judgments as of …: 10 pairwise, …; 3 of them quality controls``."""
    counts = board.get("counts", {})
    by_type = {t: sum(n for key, n in counts.items() if key.split(" ")[0] == t) for t in TYPE_NAMES}
    parts = [f"{by_type[t]:,} {TYPE_NAMES[t]}" for t in TYPE_NAMES if by_type[t]]
    if by_type["ranking"]:
        parts[[t for t in TYPE_NAMES if by_type[t]].index("ranking")] += f" ({board['comparisons']:,} comparisons " \
                                                                          "with the pairwise ones)"
    controls = sum(n for key, n in counts.items() if not key.endswith((" SYSTEM", " TUTORIAL", " DOCUMENT")))
    tutorial = sum(n for key, n in counts.items() if key.endswith(" TUTORIAL"))
    documents = sum(n for key, n in counts.items() if key.endswith(" DOCUMENT"))
    text = f"{board['judgments']:,} judgments as of {when(board['computed_at'], now)}"
    if parts:
        text += ": " + ", ".join(parts)
    if controls:
        text += f"; {controls:,} of them quality controls and attention checks"
    if tutorial:
        text += f"; {tutorial:,} tutorial answer{'s' if tutorial != 1 else ''}"
    if documents:
        text += f"; {documents:,} of them whole-document score{'s' if documents != 1 else ''}"
    return text + "."


def unranked(board: dict, key: str, types, systems) -> list[str]:
    """Systems the ``key`` ranking leaves out, with how many judgments they have so far."""
    table = board.get(key)
    ranked = set() if table is None else set(table.index if table.index.name == "system" else table.get("system", []))
    judged = board["progress"]["systems"]
    out = []
    for system in systems:
        if system not in ranked:
            n = int(sum(judged.loc[system, t] for t in types if t in judged.columns)) if system in judged.index else 0
            out.append(f"{system} ({n:,} judgment{'s' if n != 1 else ''})")
    return out


def sections(board: dict, systems) -> list[dict]:
    """The page's ranking and quality sections: title, table, chart key and the systems left out."""
    out = []
    for key, title, types in RANKINGS:
        judged = board["progress"]["systems"]
        if key not in board and not sum(int(judged[t].sum()) for t in types if t in judged.columns):
            continue  # the campaign has no judgments of this kind: no section
        table = board.get(key)
        ready = table is not None and len(table) > 0
        out.append({"title": title, "table": html_table(table, key.replace("_", "-")) if ready else None,
                    "chart": key if ready else None, "unranked": unranked(board, key, types, systems)})
    for key, title in QUALITY:
        table = board.get(key)
        if table is not None and len(table):
            out.append({"title": title, "table": html_table(table, key.replace("_", "-")), "chart": None,
                        "unranked": []})
    return out


def available_exports(db) -> list[tuple[str, str, str]]:
    """(name, label, url) of each export that holds something now."""
    types = {(r[0], r[1]) for r in db.query("SELECT DISTINCT t.type, t.kind FROM judgments j JOIN tasks t "
                                            "ON t.id = j.task_id")}
    has = {t for t, k in types if k in ("SYSTEM", "BAD_REF", "REPEAT")}
    system = {t for t, k in types if k == "SYSTEM"}
    wanted = {"comparisons": bool(system & {"pairwise", "ranking"}), "ratings": bool(system & {"da", "esa"}),
              "controls": bool(has & {"da", "esa"}), "judgments": bool(types), "annotators": bool(types), "esa": "esa" in has,
              "mqm": "mqm" in has, "appraise": bool(system & {"pairwise", "ranking"}),
              "documents": any(k == "DOCUMENT" for _, k in types)}
    out = []
    for name, ok in wanted.items():
        if not ok:
            continue
        endings = {"appraise": ("csv",), "mqm": ("tsv",)}.get(name, ("csv", "parquet"))
        out.extend((name, f"{EXPORT_LABELS[name]} ({ext})", f"/organiser/export/{name}.{ext}") for ext in endings)
    return out


NO_OVERLAP = "not enough overlap"


def agreement_table(table: pd.DataFrame) -> Markup:
    """The agreement rows (``humeval.serve.agreement``) as HTML: "not enough overlap" for a
    protocol no two annotators judged the same output of, "–" for a rate the measure has not."""
    from humeval.report.render import number
    shown = pd.DataFrame(index=table.index, columns=table.columns.drop("rough"), dtype=object)
    for protocol, row in table.iterrows():
        value = NO_OVERLAP if not row["shared items"] else (
            "not defined (every judgment the same)" if _blank(row["value"]) else number(row["value"], "decimal"))
        if row["rough"]:  # a kappa or alpha from a handful of items can be anything (agreement.FEW_SHARED)
            value += f" (only {int(row['shared items'])} shared items: rough)"
        shown.loc[protocol] = [number(int(row["shared items"]), "count"), number(int(row["annotators"]), "count"),
                               row["measure"], number(row["agreement rate"], "percent"), value]
    return html_table(shown, "agreement")


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def progress_chart(by_type: pd.DataFrame, by_annotator: pd.DataFrame) -> bytes:
    """A PNG of progress over time (``leaderboard.timeline``): answers per hour or day stacked by
    task type, and each annotator's answers so far."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    step = by_type.index.name or "hour"
    width = (1 if step == "day" else 1 / 24) * 0.9  # bar width in days (matplotlib's date unit)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
    base = np.zeros(len(by_type))
    x = by_type.index.tz_convert(None)
    for column in sorted(by_type.columns, key=lambda c: list(TYPE_NAMES).index(c) if c in TYPE_NAMES else 99):
        values = by_type[column].to_numpy()
        top.bar(x, values, width=width, bottom=base, align="edge", label=TYPE_NAMES.get(column, column))
        base += values
    top.set_ylabel(f"answers per {step}")
    top.set_title(f"Answers per {step} (UTC) by task type", fontsize=9)
    if len(by_type.columns):
        top.legend(fontsize=7, loc="upper left")
    ends = np.concatenate([x[:1], x + pd.Timedelta(days=width / 0.9)])  # each step's end: the total by then
    for column in by_annotator.columns:
        bottom.plot(ends, np.concatenate([[0], by_annotator[column].cumsum().to_numpy()]), marker=".", label=column)
    bottom.set_ylabel("answers so far")
    bottom.set_title("Answers so far per annotator", fontsize=9)
    if 0 < len(by_annotator.columns) <= 12:
        bottom.legend(fontsize=7, loc="upper left")
    fig.autofmt_xdate()
    return _png(fig)


def chart(table: pd.DataFrame, key: str) -> bytes:
    """A PNG of a ranking table: scores with intervals, best on top, cluster boundaries dashed."""
    from humeval.report.ratings_plot import plot_scores
    df = table.set_index("system") if "system" in table.columns else table
    df = df.rename(columns={"lower": "lo", "upper": "hi"})
    score = next(c for c in ("score", "z", "mqm", "raw") if c in df.columns)
    if "cluster" not in df:
        df = df.assign(cluster=range(len(df)))
    return _png(plot_scores(df, score, title=dict((k, t) for k, t, _ in RANKINGS)[key]))
