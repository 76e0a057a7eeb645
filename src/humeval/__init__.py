"""humeval: human judgments of machine translation turned into conclusions you can trust.

The names below are imported on first use (PEP 562), so ``import humeval`` and ``humeval --help``
load neither numpy nor pandas."""

from __future__ import annotations

import importlib

from humeval.errors import InputError

__version__ = "0.2.0"
_LAZY = {"Comparisons": "humeval.data", "PostEdits": "humeval.data", "Rankings": "humeval.data",
         "Ratings": "humeval.data", "read": "humeval.data", "set_threads": "humeval.threads",
         # the notebook API (humeval.api): the command-line verbs as functions returning results
         "rank": "humeval.api", "compare_models": "humeval.api",
         "Result": "humeval.api"}
_VERB_PACKAGES = ("agreement", "report")  # packages that are also verbs: callable modules (humeval._verbs)
__all__ = ["Comparisons", "PostEdits", "Rankings", "Ratings", "read", "rank", "compare_models", "agreement", "report",
           "Result", "InputError", "set_threads", "__version__"]


def __getattr__(name):
    if name in _VERB_PACKAGES:
        return importlib.import_module(f"humeval.{name}")
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        value = getattr(module, "use_threads" if name == "set_threads" else name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'humeval' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_VERB_PACKAGES))
