"""Opening a published release for reading: one DuckDB view per table (docs/releases.md)."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from gopat.effects.warehouse.layout import Layout, current_version, read_manifest, release_format, table_files
from gopat.transforms.tables.macros import install_macros
from gopat.transforms.tables.registry import select_list

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def open_release(warehouse: Path, release: str | None = None) -> tuple[duckdb.DuckDBPyConnection, str]:
    """An in-memory DuckDB with one view per table of `release` (default: the current one), and its version.

    The views are made from relations (`con.read_parquet(paths)`, a partitioned table's files in order,
    docs/releases.md#release-folder), so a path is a bound value, never SQL text; view names are the tables' names,
    checked to be plain identifiers.
    """
    layout = Layout(Path(warehouse))
    version = release or current_version(layout)
    if version is None:
        raise ValueError(f"no release in {layout.releases}; run `gopat build` first")
    kind = release_format(read_manifest(layout, version))  # raises when the release is not there
    folder = layout.release_dir(version)
    con = duckdb.connect()
    install_macros(con)
    for table, files in table_files(folder).items():
        if not _IDENTIFIER.fullmatch(table):
            con.close()
            raise ValueError(f"{folder / table}: a table name must be an identifier")
        rows = con.read_parquet([str(path.resolve()) for path in files])
        rows.project(select_list(table, release_format=kind)).create_view(table)
    return con, version
