"""Checks of input shared by every layer: plain SQL identifiers and positive integers."""

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
