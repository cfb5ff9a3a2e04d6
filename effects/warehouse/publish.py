"""Publishing a release: its files, `CURRENT` (the commit point), the catalog and retention, atomically.

A warehouse's releases change only under the build lock, in this order: the release's files go to a
hidden temporary folder that is renamed to ``releases/<version>/``; the new catalog is written to a
temporary file; ``CURRENT`` is replaced by rename (the commit point); the catalog is renamed into
place; releases beyond the retention count are renamed to ``.trash-*`` and deleted. A process killed
at any point leaves the previous release current and only hidden leftovers, which `recover` (run
whenever the lock is taken) removes, also rebuilding a catalog that does not match the disk.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TypedDict

import duckdb

from gopat.effects.report.datadocs import write_datadocs
from gopat.effects.warehouse.catalog import write_catalog
from gopat.effects.warehouse.fetch import sha256_file
from gopat.effects.warehouse.files import fsync_dir, fsync_tree, identifier, remove
from gopat.effects.warehouse.layout import Layout, Manifest, current_version, readable, state_runs, versions
from gopat.effects.warehouse.lock import fault_point
from gopat.effects.warehouse.verify import verify


def publish(
    layout: Layout,
    con: duckdb.DuckDBPyConnection,
    *,
    version: str,
    tables: list[str],
    manifest: Manifest,
    keep: int | None = None,
    staged: Mapping[str, Path] | None = None,
    state: Path | None = None,
) -> Path:
    """Publish `tables` of `con` as releases/<version>/ and make it current; keep the `keep` newest releases.

    Writes Parquet, Data Docs and manifest.json (with every file's sha256) to a hidden folder that is
    renamed into place, prepares the catalog, switches CURRENT, swaps the catalog in and deletes
    releases beyond `keep` (None keeps all). Any failure before CURRENT switches removes what this
    call created, so the previous release stays current; a release of the same version left by a
    killed build is reused if it verifies. Disk errors raise OSError. `staged` maps tables already
    written as Parquet under the warehouse (the build writes pattern_stats while it sums it) to
    their files, which are hard-linked into the release instead of exported again. `state` (the
    build state's run this build wrote, docs/releases.md#build-state) is moved to state/<version>.parquet
    before CURRENT switches; a run that no kept release's state lists (of releases deleted by `keep`,
    or left by a build killed before CURRENT switched) is deleted.
    """
    if keep is not None and keep < 1:
        raise ValueError(f"keep must be at least 1, got {keep}")
    layout.releases.mkdir(parents=True, exist_ok=True)
    final = layout.release_dir(version)
    created = not (final.is_dir() and not verify(layout, version))
    if created:
        if final.exists():
            remove(final)
        _write_release(layout, con, version=version, tables=tables, manifest=manifest, staged=staged or {})
    if state is not None:
        layout.state.mkdir(exist_ok=True)
        os.replace(state, layout.state_file(version))
        fsync_dir(layout.state)
    known = versions(layout)
    kept = known if keep is None else sorted(set(known[-keep:]) | {version})
    commit(layout, kept=kept, current=version, rollback=final if created else None)
    for old in sorted(set(known) - set(kept)):
        remove(layout.release_dir(old))
    listed = {run["version"] for _, kept_manifest in readable(layout, kept) for run in state_runs(kept_manifest)}
    for path in sorted(layout.state.glob("*.parquet")):  # of releases deleted, or of a build killed before CURRENT
        if path.stem not in listed:
            remove(path)
    return final


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
            path = tmp / f"{table}.parquet"
            try:
                if table in staged:
                    os.link(staged[table], path)
                else:
                    con.execute(
                        f"COPY {identifier(table)} TO ? (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)",
                        [str(path)],
                    )
            except duckdb.IOException as error:
                raise OSError(f"writing {table} of release {version}: {error}") from error
            files[path.name] = _file_entry(path)
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


class FileEntry(TypedDict):
    """A file of a release in its manifest's ``files`` (docs/releases.md#manifest)."""

    sha256: str
    bytes: int


def _file_entry(path: Path) -> FileEntry:
    return {"sha256": sha256_file(path), "bytes": path.stat().st_size}
