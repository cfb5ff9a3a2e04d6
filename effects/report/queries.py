"""The report's data: each query is a ``transforms/analytics/sql/report__<name>.sql`` file run with bind parameters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.transforms.analytics.loader import sql_text

Row = tuple[Any, ...]


def fetch(con: duckdb.DuckDBPyConnection, name: str, params: Mapping[str, object] | None = None) -> list[Row]:
    """The rows of ``report__<name>.sql`` with its ``$name`` parameters bound from ``params``."""
    return con.execute(sql_text(f"report__{name}"), dict(params or {})).fetchall()


def fetch_one(con: duckdb.DuckDBPyConnection, name: str, params: Mapping[str, object] | None = None) -> Row:
    """The one row of ``report__<name>.sql`` (an aggregate or a LIMIT 1 that found a row)."""
    row = con.execute(sql_text(f"report__{name}"), dict(params or {})).fetchone()
    if row is None:
        raise LookupError(f"report__{name}.sql returned no row")
    return row
