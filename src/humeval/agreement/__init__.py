"""Annotator agreement and judge quality for every judgment type (Denkowski & Lavie 2010, §3)."""

from humeval.agreement.conflicts import resolve_conflicts
from humeval.agreement.judges import drop_judges, flagged, judge_quality, not_applicable
from humeval.agreement.kappa import Agreement, cohen_kappa, fleiss_kappa, krippendorff_alpha, units_matrix
from humeval.agreement.rankings import REFERENCE_NAMES, ranking_agreement
from humeval.agreement.table import agreement_table
from humeval.agreement.scales import quality_control, rating_agreement, repeat_correlation, z_normalize

__all__ = ["Agreement", "agreement_table", "REFERENCE_NAMES", "cohen_kappa", "drop_judges", "flagged", "fleiss_kappa", "judge_quality",
           "krippendorff_alpha", "not_applicable", "quality_control", "ranking_agreement", "resolve_conflicts", "rating_agreement", "repeat_correlation",
           "units_matrix", "z_normalize"]

from humeval._verbs import make_callable  # noqa: E402  humeval.agreement(data) is the notebook verb (humeval.api)

make_callable(__name__)
