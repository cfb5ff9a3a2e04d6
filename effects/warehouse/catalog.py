"""catalog.duckdb: a schema of views per kept release and `current`, rebuilt from the releases on disk.

See docs/releases.md#catalog.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import duckdb

from gopat.effects.warehouse.files import quote, remove
from gopat.effects.warehouse.layout import (
    Layout,
    current_version,
    manifest_tables,
    readable,
    release_format,
    schema_name,
    versions,
)
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.checks import identifier
from gopat.transforms.tables.macros import install_macros
from gopat.transforms.tables.registry import TABLES, select_list

CATALOG_STORAGE = "v1.2.0"


def refresh_catalog(layout: Layout) -> None:
    """Rebuild catalog.duckdb from the releases on disk and CURRENT, then swap it in."""
    os.replace(write_catalog(layout, versions(layout), current_version(layout)), layout.catalog)


def write_catalog(layout: Layout, kept: list[str], current: str | None) -> Path:
    """A new catalog in a hidden file: schema v<N> per kept release, `current`, and a `releases` table.

    One view per table (a partitioned table's view reads all its files), with the columns and comments of
    transforms/tables/registry.py: its derived columns are computed by the macros the catalog stores. Views read
    the releases' Parquet by absolute path, so the catalog works from any working directory; it is written with
    storage version v1.2.0 so the duckdb 1.x shell can open it.
    """
    tmp = layout.catalog.with_name(f".catalog-{os.getpid()}.duckdb")
    remove(tmp)
    con = duckdb.connect()
    try:
        con.execute("ATTACH ? AS catalog (STORAGE_VERSION ?)", [str(tmp), CATALOG_STORAGE])
        con.execute(sql_text("catalog/releases"))
        con.execute("USE catalog")  # the macros are stored in the catalog and found from any database name
        install_macros(con)
        for version, manifest in readable(layout, kept):
            folder = layout.release_dir(version).resolve()
            tables = manifest_tables(manifest.get("files", {}))
            con.execute(
                "INSERT INTO catalog.main.releases VALUES (?, ?, ?, ?, ?, ?, ?)",
                [version, int(version[:4]), manifest.get("created"), manifest.get("ingest", {}).get("games"),
                 len(tables), version == current, str(folder)],
            )
            for schema in [schema_name(version)] + (["current"] if version == current else []):
                con.execute(f"CREATE SCHEMA IF NOT EXISTS catalog.{identifier(schema)}")
                for table, names in tables.items():
                    create_view(con, f"catalog.{identifier(schema)}.{identifier(table)}", table,
                                [folder / name for name in names], release_format=release_format(manifest))
        con.execute("USE memory")
        con.execute("DETACH catalog")
        with tmp.open("rb") as fh:
            os.fsync(fh.fileno())
    except BaseException:
        remove(tmp)
        raise
    finally:
        con.close()
    return tmp


def create_view(
    con: duckdb.DuckDBPyConnection, view: str, table: str | None, files: Sequence[Path], *, release_format: int
) -> None:
    """View `view` of a table's Parquet `files` with its columns as the registry declares them, and their comments;
    every column of the files as they are when `table` is None (a build's other files, such as its runs).

    A view's definition takes no bind parameter: the paths are quoted literals, a partitioned table's files in
    order (docs/releases.md#release-folder), and so are the comments.
    """
    paths = ", ".join(quote(path) for path in files)
    columns = "*" if table is None else select_list(table, release_format=release_format)
    con.execute(f"CREATE OR REPLACE VIEW {view} AS SELECT {columns} FROM read_parquet([{paths}])")
    if table is not None and table in TABLES:
        con.execute(f"COMMENT ON VIEW {view} IS {quote('one row per ' + TABLES[table].grain)}")
    if table is not None and columns != "*":  # the registry's columns
        for column in TABLES[table].columns:
            con.execute(f'COMMENT ON COLUMN {view}."{column.name}" IS {quote(column.doc)}')


def catalog_state(layout: Layout) -> tuple[list[tuple[str, str]], str | None] | None:
    """([(version, folder)], current) recorded in catalog.duckdb (none when it is missing), None if unreadable."""
    if not layout.catalog.is_file():
        return [], None
    try:
        with duckdb.connect(str(layout.catalog), read_only=True) as con:
            rows = con.execute("SELECT version, path, is_current FROM releases ORDER BY version").fetchall()
    except duckdb.Error:
        return None
    return [(version, path) for version, path, _ in rows], next((version for version, _, flag in rows if flag), None)
