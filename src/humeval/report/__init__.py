"""Figures, and the campaign report (HTML, Markdown, JSON). With ``cli``, the only place that draws."""

from humeval.report.campaign import Figure, Report, Section, Table, build_report
from humeval.report.figures import (plot_abilities, plot_bootstrap, plot_budget_study, plot_decision_study, plot_icc,
                                    plot_item_information, plot_learning_curve, plot_preference_heatmap, plot_plan,
                                    plot_active_study)
from humeval.report.render import RENDERERS, to_html, to_json, to_markdown

__all__ = ["Figure", "Report", "Section", "Table", "build_report", "plot_abilities", "plot_bootstrap",
           "plot_budget_study", "plot_decision_study", "plot_icc", "plot_item_information", "plot_learning_curve",
           "plot_preference_heatmap", "plot_plan", "plot_active_study", "RENDERERS", "to_html", "to_json", "to_markdown"]

from humeval._verbs import make_callable  # noqa: E402  humeval.agreement(data) is the notebook verb (humeval.api)

make_callable(__name__)
