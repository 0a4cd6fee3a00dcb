"""The TOML reader: the standard library's tomllib, or tomli (the same code) on Python 3.10.

Presets, records and sweep records are read through this one name.
"""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["tomllib"]
