"""Checks of input shared by every layer: plain SQL identifiers and positive ints."""

from __future__ import annotations

import re

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def identifier(name: str) -> str:
    """``name`` unchanged if it is a plain SQL identifier (a table, view, schema or family name), else ValueError.

    Identifiers cannot be bind parameters; only such names are pasted into SQL text.
    """
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"not a plain SQL identifier: {name!r}")
    return name


def positive(name: str, value: int) -> int:
    """``value`` unchanged if it is an int of at least 1 (not a bool), else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value
