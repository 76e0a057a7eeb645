"""Rendering a ``Report`` as one self-contained HTML page (figures embedded as data URIs, no
scripts, no network; prints cleanly), as Markdown, or as JSON."""

from __future__ import annotations

import base64
import html
import json
import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # campaign imports ``number`` from here
    from humeval.report.campaign import Report, Table

CSS = """
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f; max-width: 1100px;
       margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { font-size: 1.05em; margin-bottom: .3em; }
table { border-collapse: collapse; margin: .4em 0 .3em; font-size: 13px; }
th, td { padding: 2px 8px; border-bottom: 1px solid #e3e3e3; text-align: right; }
th:first-child, td:first-child { text-align: left; } thead th { border-bottom: 2px solid #999; }
p.how { color: #555; font-size: 13px; margin: .2em 0; } code { background: #f4f4f4; padding: 1px 4px; font-size: 12px; }
p.cmd { font-size: 12px; margin: .1em 0 1em; } figure { margin: 1em 0; } figure img { max-width: 100%; }
figcaption { color: #555; font-size: 13px; } ul.notes { color: #444; font-size: 13px; }
nav ul { columns: 2; font-size: 14px; } .summary { background: #f6f8fa; padding: .6em 1em; border-radius: 6px; }
@media print { body { max-width: none; margin: 0; } nav { display: none; } h2 { break-before: auto; }
  table, figure { break-inside: avoid; } }
"""


# How each kind of number is written everywhere in the report, tables and sentences alike:
# counts with thousands separators; perplexities and coefficients (kappa, P(A), correlations)
# to 3 decimals; shares of a whole as percentages with one decimal; scores and errors on a
# model's own scale to 3 significant digits; p-values to 2 significant digits.
KINDS = ("count", "decimal", "percent", "score", "p")
DECIMAL_COLUMNS = {"P(A)", "P(E)", "kappa", "agreement", "consensus", "self-consistency", "pearson", "spearman",
                   "kendall", "r", "tau", "τ", "accuracy", "perplexity"}


def number(value, kind: str = "score") -> str:
    """``value`` written as ``kind`` (one of ``KINDS``); NaN (and pandas' NA) is "–", text is left as it is."""
    if value is pd.NA:  # a missing count in an Int64 column (robustness's 'to flip' of the last system)
        return "–"
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return str(value)
    if isinstance(value, (float, np.floating)) and math.isnan(value):
        return "–"
    if kind == "count" or (kind == "score" and isinstance(value, (int, np.integer))):
        return f"{round(value):,}"
    if kind == "decimal":
        return f"{value:.3f}"
    if kind == "percent":  # a small share does not round to 0: 0.037 % not 0.0 % (two significant digits)
        return f"{value * 100:.2g}%" if 0 < abs(value) < 0.001 else f"{value:.1%}"
    if kind == "p":
        return f"{value:.2g}" if value >= 1e-4 else "< 0.0001"
    if abs(value) >= 1000 or (value == int(value) and value != 0):
        return f"{value:,.0f}"
    return f"{value:.3g}"


def share(value) -> str:
    """A share as a percentage, as ``number(value, "percent")`` writes it everywhere: a small share
    does not round to 0 (0.037 % not 0.0 %; two significant digits below 0.1 %)."""
    return number(value, "percent")


def column_kind(name, values: pd.Series) -> str:
    """The kind of number a column holds, from its dtype and name (see ``number``)."""
    name = str(name)
    if pd.api.types.is_integer_dtype(values) or pd.api.types.is_bool_dtype(values):
        return "count"
    if "rate" in name or "share" in name:
        return "percent"
    if name == "p" or name.startswith(("p ", "p-", "p(", "p_")):
        return "p"
    if name in DECIMAL_COLUMNS or name.split(" ")[0] in DECIMAL_COLUMNS:
        return "decimal"
    return "score"


def _rows(table: Table):
    df = table.frame
    index_name = table.index_name or df.index.name or ""
    header = [str(index_name)] + [str(c) for c in df.columns]
    kinds = [table.formats.get(str(c)) or table.formats.get("*") or column_kind(c, df[c]) for c in df.columns]
    rows = [[number(i, "count")] + [number(v, k) for v, k in zip(row, kinds)]
            for i, row in zip(df.index, df.itertuples(index=False))]
    return header, rows


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


GENERATOR = "<meta name='generator' content='humeval report'>"  # how the CLI knows a report it may replace


def to_html(report: Report) -> str:
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(report.title)}</title>"
             f"<meta name='viewport' content='width=device-width, initial-scale=1'>{GENERATOR}<style>{CSS}</style></head><body>",
             f"<h1>{html.escape(report.title)}</h1>"]
    if report.summary:
        parts.append("<div class='summary'><strong>In short</strong><ul>"
                     + "".join(f"<li>{html.escape(s)}</li>" for s in report.summary) + "</ul></div>")
    parts.append("<nav><ul>" + "".join(f"<li><a href='#{_slug(s.title)}'>{html.escape(s.title)}</a></li>"
                                       for s in report.sections) + "<li><a href='#methods'>Methods</a></li></ul></nav>")
    for section in report.sections:
        parts.append(f"<h2 id='{_slug(section.title)}'>{html.escape(section.title)}</h2>")
        for table in section.tables:
            header, rows = _rows(table)
            parts.append(f"<h3>{html.escape(table.title)}</h3>")
            parts.append("<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead><tbody>"
                         + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
                         + "</tbody></table>")
            if table.how:
                parts.append(f"<p class='how'>{html.escape(table.how)}</p>")
            if table.command:
                parts.append(f"<p class='cmd'>Same numbers: <code>{html.escape(table.command)}</code></p>")
        for figure in section.figures:
            data = base64.b64encode(figure.png).decode("ascii")
            parts.append(f"<figure><img src='data:image/png;base64,{data}' alt='{html.escape(figure.alt or figure.title)}'>"
                         f"<figcaption>{html.escape(figure.title)}</figcaption></figure>")
        if section.notes:
            parts.append("<ul class='notes'>" + "".join(f"<li>{html.escape(n)}</li>" for n in section.notes) + "</ul>")
    parts.append("<h2 id='methods'>Methods</h2>" + "".join(f"<p>{html.escape(m)}</p>" for m in report.methods))
    parts.append("<h3>References</h3><ul>" + "".join(f"<li>{html.escape(v)}</li>" for v in report.references.values())
                 + "</ul>")
    parts.append("<p class='how'>Made by humeval. Every table names the command that prints the same numbers.</p>")
    if report.signature:
        parts.append(f"<p class='how'>signature: <code>{html.escape(report.signature)}</code></p>")
    parts.append("</body></html>")
    return "\n".join(parts)


def to_markdown(report: Report) -> str:
    def md_row(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
    lines = [f"# {report.title}", ""]
    if report.summary:
        lines += ["**In short**", ""] + [f"- {s}" for s in report.summary] + [""]
    for section in report.sections:
        lines += [f"## {section.title}", ""]
        for table in section.tables:
            header, rows = _rows(table)
            lines += [f"### {table.title}", "", md_row(header), md_row(["---"] * len(header))]
            lines += [md_row(r) for r in rows] + [""]
            if table.how:
                lines += [f"*{table.how}*", ""]
            if table.command:
                lines += [f"Same numbers: `{table.command}`", ""]
        for figure in section.figures:
            data = base64.b64encode(figure.png).decode("ascii")
            lines += [f"![{figure.title}](data:image/png;base64,{data})", ""]
        lines += [f"- {n}" for n in section.notes] + ([""] if section.notes else [])
    lines += ["## Methods", ""] + [f"{m}\n" for m in report.methods] + ["### References", ""]
    lines += [f"- {v}" for v in report.references.values()]
    if report.signature:
        lines += ["", f"signature: `{report.signature}`"]
    return "\n".join(lines) + "\n"


def records(df: pd.DataFrame) -> list[dict]:
    """Records of ``df`` (index included) for JSON output: floats at full precision (pandas'
    ``to_json`` keeps 10 digits, so a p-value of 3.8e-41 would print as 0), NaN and inf as null.
    The report and every ``--json`` of the CLI write tables through it."""
    frame = df.reset_index()
    frame.columns = [str(c) for c in frame.columns]
    rows = json.loads(frame.to_json(orient="records"))
    for column in frame.columns:
        if frame[column].dtype.kind == "f":
            values = frame[column].to_numpy(np.float64)
            for record, value in zip(rows, values):
                record[column] = float(value) if np.isfinite(value) else None
    return rows



def to_json(report: Report) -> str:
    return json.dumps({"title": report.title, "source": report.source, "summary": report.summary,
                       "sections": [{"title": s.title, "notes": s.notes, "figures": [f.title for f in s.figures],
                                     "tables": [{"title": t.title, "how": t.how, "command": t.command,
                                                 "rows": records(t.frame)} for t in s.tables]}
                                    for s in report.sections],
                       "methods": report.methods, "references": report.references,
                       **({"signature": report.signature} if report.signature else {})}, indent=2)


RENDERERS = {"html": to_html, "md": to_markdown, "json": to_json}
