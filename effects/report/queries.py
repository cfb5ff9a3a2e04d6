"""The report's data: each query is a ``transforms/analytics/sql/report/<name>.sql`` file run with bind parameters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.transforms.analytics.loader import sql_text

Row = tuple[Any, ...]


def fetch(con: duckdb.DuckDBPyConnection, path: str, params: Mapping[str, object] | None = None) -> list[Row]:
    """The rows of SQL file `path` (e.g. ``"report/sources"``) with its ``$name`` parameters bound from ``params``."""
    return con.execute(sql_text(path), dict(params or {})).fetchall()


def fetch_one(con: duckdb.DuckDBPyConnection, path: str, params: Mapping[str, object] | None = None) -> Row:
    """The one row of SQL file `path` (an aggregate or a LIMIT 1 that found a row)."""
    row = con.execute(sql_text(path), dict(params or {})).fetchone()
    if row is None:
        raise LookupError(f"{path}.sql returned no row")
    return row
