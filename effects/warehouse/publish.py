"""Publishing a release: its files, `CURRENT` (the commit point), the catalog and retention, atomically.

A warehouse's releases change only under the build lock, in this order: the release's files go to a
hidden temporary folder that is renamed to ``releases/<version>/``; the new run of the complete counts is moved
to ``state/<version>/``; the new catalog is written to a temporary file; ``CURRENT`` is replaced by
rename (the commit point); the catalog is renamed into place; releases beyond the retention count are
renamed to ``.trash-*`` and deleted, and so are the runs no kept release lists. A process killed
at any point leaves the previous release current and only hidden leftovers, which `recover` (run
whenever the lock is taken) removes, also rebuilding a catalog that does not match the disk.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import duckdb

from gopat.effects.report.datadocs import write_datadocs
from gopat.effects.warehouse.catalog import write_catalog
from gopat.effects.warehouse.fetch import sha256_file
from gopat.effects.warehouse.files import fsync_dir, fsync_tree, link, remove, tree_files
from gopat.effects.warehouse.layout import FileEntry, Layout, Manifest, count_runs, current_version, readable, versions
from gopat.effects.warehouse.lock import fault_point
from gopat.effects.warehouse.verify import verify
from gopat.transforms.checks import identifier, positive
from gopat.transforms.tables.registry import derived_columns


def publish(
    layout: Layout,
    con: duckdb.DuckDBPyConnection,
    *,
    version: str,
    tables: list[str],
    manifest: Manifest,
    keep: int | None = None,
    staged: Mapping[str, Path] | None = None,
    run: Path | None = None,
) -> Path:
    """Publish `tables` of `con` as releases/<version>/ and make it current; keep the `keep` newest releases.

    Writes Parquet, Data Docs and manifest.json (with every file's sha256) to a hidden folder that is
    renamed into place, prepares the catalog, switches CURRENT, swaps the catalog in and deletes
    releases beyond `keep` (None keeps all). Any failure before CURRENT switches removes what this
    call created, so the previous release stays current; a release of the same version left by a
    killed build is reused if it verifies. Disk errors raise OSError. `staged` maps tables already
    written as Parquet under the warehouse (the build writes pattern_stats while it sums it) to
    their file, or to the folder of a partitioned table's files, which are hard-linked into the
    release instead of exported again (docs/releases.md#release-folder). `run` (the folder of the
    run of the complete counts this build wrote, docs/releases.md#complete-counts) is moved to state/<version>/
    before CURRENT switches; a run that no kept release lists (of releases deleted by `keep`,
    or left by a build killed before CURRENT switched) is deleted.
    """
    if keep is not None:
        positive("keep", keep)
    layout.releases.mkdir(parents=True, exist_ok=True)
    final = layout.release_dir(version)
    created = not (final.is_dir() and not verify(layout, version))
    if created:
        if final.exists():
            remove(final)
        _write_release(layout, con, version=version, tables=tables, manifest=manifest, staged=staged or {})
    if run is not None:
        _move_run(layout, run, version)
    known = versions(layout)
    kept = known if keep is None else sorted(set(known[-keep:]) | {version})
    commit(layout, kept=kept, current=version, rollback=final if created else None)
    for old in sorted(set(known) - set(kept)):
        remove(layout.release_dir(old))
    listed = {run["version"] for _, kept_manifest in readable(layout, kept) for run in count_runs(kept_manifest)}
    for path in _unlisted_runs(layout, listed):  # of releases deleted, or of a build killed before CURRENT
        remove(path)
    return final


def _move_run(layout: Layout, run: Path, version: str) -> None:
    """Move the run folder `run`, fsynced, to state/<version>/ (docs/releases.md#publish-order, step 2).

    A folder already there is the run of a build of the same version killed before CURRENT switched: no kept
    release lists it, so it is replaced.
    """
    layout.runs.mkdir(exist_ok=True)
    fsync_tree(run)
    remove(layout.run_dir(version))
    os.replace(run, layout.run_dir(version))
    fsync_dir(layout.runs)


def _unlisted_runs(layout: Layout, listed: set[str]) -> list[Path]:
    """The entries of state/ holding a run that is not `listed`: run folders (and the trash of removed ones) and
    run files `state/<version>.parquet` of an older version of the product; anything else is left alone."""
    entries = sorted(layout.runs.iterdir()) if layout.runs.is_dir() else []
    return [
        path for path in entries
        if (path.is_dir() and path.name not in listed) or (path.suffix == ".parquet" and path.stem not in listed)
    ]


def set_current(layout: Layout, version: str) -> None:
    """Point CURRENT at `version` by an atomic rename."""
    tmp = layout.current_file.with_name(f"CURRENT.tmp-{os.getpid()}")
    try:
        with tmp.open("w") as fh:
            fh.write(version + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, layout.current_file)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(layout.releases)


def _write_release(
    layout: Layout,
    con: duckdb.DuckDBPyConnection,
    *,
    version: str,
    tables: list[str],
    manifest: Manifest,
    staged: Mapping[str, Path],
) -> None:
    """Parquet files, Data Docs and manifest into a hidden folder, fsynced, renamed to releases/<version>."""
    tmp = layout.releases / f".tmp-{version}-{os.getpid()}"
    remove(tmp)
    tmp.mkdir()
    try:
        files: dict[str, FileEntry] = {}
        for index, table in enumerate(tables):
            written = _link_staged(staged[table], tmp, table) if table in staged else export_table(con, tmp, table)
            for path in written:
                files[path.relative_to(tmp).as_posix()] = _file_entry(path)
            if index == len(tables) // 2:
                fault_point("publish")
        for path in write_datadocs({**manifest, "version": version}, tmp / "datadocs"):
            files[path.relative_to(tmp).as_posix()] = _file_entry(path)
        manifest = {**manifest, "version": version, "files": files}
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        fsync_tree(tmp)
        os.replace(tmp, layout.release_dir(version))
        fsync_dir(layout.releases)
    except BaseException:
        remove(tmp)
        raise


def export_table(con: duckdb.DuckDBPyConnection, folder: Path, table: str) -> list[Path]:
    """Write `table` of `con` as `<table>.parquet` in `folder`, without the columns that readers compute from the
    stored ones (transforms/tables/registry.py), by a temporary file renamed; returns that file. A disk error
    raises OSError."""
    path = folder / f"{table}.parquet"
    tmp = folder / f".{table}.parquet.tmp-{os.getpid()}"
    derived = [name for name in derived_columns(table) if name in con.table(identifier(table)).columns]
    excluded = f" EXCLUDE ({', '.join(derived)})" if derived else ""
    try:
        con.execute(
            f"COPY (SELECT *{excluded} FROM {identifier(table)}) TO ? "
            "(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)", [str(tmp)]
        )
        tmp.replace(path)
    except duckdb.IOException as error:
        raise OSError(f"writing {path}: {error}") from error
    finally:
        tmp.unlink(missing_ok=True)
    return [path]


def _link_staged(staged: Path, folder: Path, table: str) -> list[Path]:
    """Hard-link (or copy, files.link) a staged table into release `folder`; returns the files made there.

    A file becomes `<table>.parquet`; a folder is a partitioned table, whose every file becomes
    `<table>/<its path in the folder>` (docs/releases.md#release-folder).
    """
    if not staged.is_dir():
        path = folder / f"{identifier(table)}.parquet"
        link(staged, path)
        return [path]
    sources = tree_files(staged)
    if not sources:
        raise ValueError(f"staged table {table}: {staged} holds no file")
    linked = []
    for source in sources:
        path = folder / identifier(table) / source.relative_to(staged)
        path.parent.mkdir(parents=True, exist_ok=True)
        link(source, path)
        linked.append(path)
    return linked


def commit(layout: Layout, *, kept: list[str], current: str | None, rollback: Path | None) -> None:
    """Prepare the catalog of `kept` with `current`, switch CURRENT (the commit point), swap the catalog in.

    A failure before CURRENT switches removes the prepared catalog and the `rollback` release folder
    (the one being added), so the warehouse is as it was; after it, `recover` repairs the catalog.
    """
    catalog = None
    try:
        catalog = write_catalog(layout, kept, current)
        fault_point("catalog")
        if current is not None and current != current_version(layout):
            set_current(layout, current)
    except BaseException:
        if catalog is not None:
            catalog.unlink(missing_ok=True)
        if rollback is not None:
            remove(rollback)
        raise
    os.replace(catalog, layout.catalog)
    fsync_dir(layout.root)


def _file_entry(path: Path) -> FileEntry:
    return {"sha256": sha256_file(path), "bytes": path.stat().st_size}
