"""``humeval.agreement`` and ``humeval.report`` are both packages and notebook verbs
(``humeval.api``): importing a subpackage sets the package's attribute to the module, so the
module itself is made callable and calls the verb (``humeval.agreement(path)`` and
``humeval.agreement.agreement_table`` both work, whatever was imported first)."""

from __future__ import annotations

import sys
import types


class VerbModule(types.ModuleType):
    def __call__(self, *args, **kwargs):
        from humeval import api
        return getattr(api, self.__name__.rsplit(".", 1)[1])(*args, **kwargs)


def make_callable(name: str) -> None:
    sys.modules[name].__class__ = VerbModule
