"""The HMEANT annotation model moved to ``humeval.data.hmeant`` (data/ holds the data models, and
its HMEANT reader must not import metrics); this module name stays for one release."""

from humeval.data.hmeant import *  # noqa: F401,F403
from humeval.data.hmeant import LINK_TYPES  # noqa: F401
