"""Judgment tables and the readers that fill them."""

from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers import FORMATS, guess_format, read
from humeval.data.tables import Comparisons, PostEdits, Rankings, Ratings, encode

__all__ = ["Comparisons", "Judgments", "PostEdits", "Rankings", "Ratings", "ReadReport", "encode", "FORMATS", "guess_format", "read"]
