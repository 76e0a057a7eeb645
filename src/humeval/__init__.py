"""humeval: human judgments of machine translation turned into conclusions you can trust."""

from humeval.data import Comparisons, PostEdits, Rankings, Ratings, read
from humeval.errors import InputError

__version__ = "0.1.0"
__all__ = ["Comparisons", "PostEdits", "Rankings", "Ratings", "read", "InputError", "__version__"]
