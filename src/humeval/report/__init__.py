"""Figures (and, later, the HTML report). With ``cli``, the only place that draws."""

from humeval.report.figures import (plot_abilities, plot_bootstrap, plot_budget_study, plot_decision_study, plot_icc,
                                    plot_item_information,
                                    plot_learning_curve, plot_preference_heatmap)

__all__ = ["plot_abilities", "plot_bootstrap", "plot_budget_study", "plot_decision_study", "plot_icc", "plot_item_information", "plot_learning_curve", "plot_preference_heatmap"]
