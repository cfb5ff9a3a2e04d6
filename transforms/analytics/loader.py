"""The SQL of the analytics tables (the files in sql/), and the helpers every table builder shares."""

from __future__ import annotations

from importlib.resources import files

import duckdb


def sql_text(name: str) -> str:
    """The text of ``transforms/analytics/sql/<name>.sql``."""
    return files("gopat.transforms.analytics").joinpath("sql", f"{name}.sql").read_text()


def run(con: duckdb.DuckDBPyConnection, name: str) -> None:
    con.execute(sql_text(name))
