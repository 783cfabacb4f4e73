"""Helpers shared by the examples: make the package importable from a clone without installing it."""
from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_PKG_ROOT = os.path.dirname(_HERE)
if _PKG_ROOT not in sys.path:
    try:
        import clustergym  # noqa: F401  (installed)
    except ImportError:
        sys.path.insert(0, _PKG_ROOT)
