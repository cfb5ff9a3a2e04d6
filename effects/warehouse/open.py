"""Opening a published release for reading: one DuckDB view per Parquet table (docs/releases.md)."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from gopat.effects.warehouse.layout import Layout, current_version, read_manifest

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def open_release(warehouse: Path, release: str | None = None) -> tuple[duckdb.DuckDBPyConnection, str]:
    """An in-memory DuckDB with one view per Parquet table of `release` (default: the current one), and its version.

    The views are made from relations (`con.read_parquet(path)`), so a path is a bound value, never SQL text; view
    names are the files' stems, checked to be plain identifiers.
    """
    layout = Layout(Path(warehouse))
    version = release or current_version(layout)
    if version is None:
        raise ValueError(f"no release in {layout.releases}; run `gopat build` first")
    read_manifest(layout, version)  # raises when the release is not there
    con = duckdb.connect()
    for parquet in sorted(layout.release_dir(version).glob("*.parquet")):
        if not _IDENTIFIER.fullmatch(parquet.stem):
            con.close()
            raise ValueError(f"{parquet}: a table name must be an identifier")
        con.read_parquet(str(parquet.resolve())).create_view(parquet.stem)
    return con, version
