"""Opening a published release for reading: one DuckDB view per table (docs/releases.md, docs/api.md)."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import duckdb
import polars as pl

from gopat.effects.warehouse.catalog import create_view
from gopat.effects.warehouse.layout import (
    Layout,
    Manifest,
    current_version,
    read_manifest,
    release_format,
    resolve_version,
    table_files,
)
from gopat.transforms.checks import identifier
from gopat.transforms.tables.macros import install_macros

SPILL_MEMORY = "2GB"  # a reader given a spill folder keeps its DuckDB's buffers under this


def connect_release(
    warehouse: Path, release: str | None = None, *, spill: Path | None = None
) -> tuple[duckdb.DuckDBPyConnection, str]:
    """An in-memory DuckDB with one view per table of `release` (default: the current one), and its version.

    With `spill`, DuckDB keeps its buffers under SPILL_MEMORY and writes what does not fit to that folder, so a
    query's memory does not grow with the release."""
    layout = Layout(Path(warehouse))
    version = _version(layout, release)
    con = duckdb.connect(config={} if spill is None else {"memory_limit": SPILL_MEMORY, "temp_directory": str(spill)})
    try:
        create_views(con, layout, version, read_manifest(layout, version))  # raises when the release is not there
    except BaseException:
        con.close()
        raise
    return con, version


def _version(layout: Layout, release: str | None) -> str:
    """The version named by `release` (a version, its number or ``current``), by default the current one."""
    if release is not None:
        return resolve_version(layout, release)
    if (version := current_version(layout)) is None:
        raise ValueError(f"no release in {layout.releases}; run `gopat build` first")
    return version


def create_views(con: duckdb.DuckDBPyConnection, layout: Layout, version: str, manifest: Manifest) -> None:
    """The macros of the derived columns and one view per table of release `version` in `con`, named after the
    table (a plain identifier), with the catalog's columns and comments."""
    folder = layout.release_dir(version)
    install_macros(con)
    for table, files in table_files(folder).items():
        try:
            view = identifier(table)
        except ValueError:
            raise ValueError(f"{folder / table}: a table name must be an identifier") from None
        create_view(con, view, table, [path.resolve() for path in files], release_format=release_format(manifest))


@dataclass(frozen=True, slots=True)
class Release:
    """A published release opened for reading: its version, manifest and a read-only DuckDB connection.

    Every table of the release is a view of `con` under its own name, with the columns and comments of the catalog
    (docs/tables.md); the files are read where they lie, nothing is copied. Examples: docs/api.md.
    """

    version: str
    manifest: Manifest
    con: duckdb.DuckDBPyConnection

    @property
    def tables(self) -> list[str]:
        """The release's table names, sorted."""
        return sorted(name for (name,) in self.con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal")
                      .fetchall())

    def table(self, name: str) -> pl.LazyFrame:
        """Table `name` as a polars LazyFrame (filters and column selections are pushed down into DuckDB)."""
        if name not in self.tables:
            raise ValueError(f"release {self.version} has no table {name!r}; it has {', '.join(self.tables)}")
        frame: pl.LazyFrame = self.con.table(name).pl(lazy=True)
        return frame

    def close(self) -> None:
        """Close the connection."""
        self.con.close()

    def __enter__(self) -> Release:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def open_release(warehouse: str | Path = "warehouse", release: str | None = None) -> Release:
    """Release `release` of `warehouse` (default: the current one; a version, its number or ``current``), read-only.

    The views and macros are written to a DuckDB file in a temporary folder, which is opened read-only and then
    removed (the open connection keeps it), so no statement of the connection can write.
    """
    layout = Layout(Path(warehouse))
    version = _version(layout, release)
    manifest = read_manifest(layout, version)
    folder = Path(tempfile.mkdtemp(prefix="gopat-release-"))
    try:
        path = folder / "release.duckdb"
        with duckdb.connect(path) as con:
            create_views(con, layout, version, manifest)
        return Release(version=version, manifest=manifest, con=duckdb.connect(path, read_only=True))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
