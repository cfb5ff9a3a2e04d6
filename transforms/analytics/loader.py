"""The one loader of the product's SQL (the files in sql/, a folder per role), and the helpers every table builder
shares."""

from __future__ import annotations

from importlib.resources import files

import duckdb


def sql_text(path: str) -> str:
    """The text of ``transforms/analytics/sql/<path>.sql``; `path` is below that root, e.g. ``"checks/games"``."""
    resource = files("gopat.transforms.analytics").joinpath("sql", *f"{path}.sql".split("/"))
    if not resource.is_file():
        raise ValueError(f"no SQL file transforms/analytics/sql/{path}.sql")
    return resource.read_text()


def run(con: duckdb.DuckDBPyConnection, name: str) -> None:
    con.execute(sql_text(name))
