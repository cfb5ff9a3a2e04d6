"""Release storage: versions, atomic publish, `CURRENT`, the analyst catalog and the build lock."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from flows.fetch import sha256_file

CODE_DIRS = ("transforms", "flows", "expectations")
REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True, slots=True)
class Layout:
    """Paths inside one warehouse folder."""

    root: Path

    @property
    def raw(self) -> Path:
        return self.root / "raw"

    @property
    def staging(self) -> Path:
        return self.root / "staging"

    @property
    def releases(self) -> Path:
        return self.root / "releases"

    @property
    def current_file(self) -> Path:
        return self.releases / "CURRENT"

    @property
    def catalog(self) -> Path:
        return self.root / "catalog.duckdb"

    def release_dir(self, version: str) -> Path:
        return self.releases / version


def code_version() -> str:
    """sha256 (12 hex) of every .py and .sql file of the product's packages."""
    digest = hashlib.sha256()
    for folder in CODE_DIRS:
        for path in sorted((REPO / folder).rglob("*")):
            if path.suffix in {".py", ".sql"} and "__pycache__" not in path.parts:
                digest.update(path.relative_to(REPO).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def content_hash(*, source_sha256s: list[str], code: str, config: Mapping) -> str:
    """Hash of what determines a release's tables: inputs, code and config."""
    payload = json.dumps({"sources": source_sha256s, "code": code, "config": config}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def versions(layout: Layout) -> list[str]:
    """Published versions, oldest first (`NNNN-<content hash>`)."""
    if not layout.releases.is_dir():
        return []
    return sorted(p.name for p in layout.releases.iterdir() if p.is_dir() and p.name[:4].isdigit())


def current_version(layout: Layout) -> str | None:
    """The live version named by CURRENT, or None before the first release."""
    try:
        return layout.current_file.read_text().strip() or None
    except FileNotFoundError:
        return None


def read_manifest(layout: Layout, version: str) -> dict:
    """The manifest of a published version."""
    path = layout.release_dir(version) / "manifest.json"
    if not path.is_file():
        raise ValueError(f"release {version!r} not found in {layout.releases}")
    return json.loads(path.read_text())


def next_version(layout: Layout, content: str) -> str:
    """The next version name: a number one above the newest, then the content hash."""
    numbers = [int(v[:4]) for v in versions(layout)]
    return f"{max(numbers, default=0) + 1:04d}-{content}"


def schema_name(version: str) -> str:
    """DuckDB schema of a version: `v<number>`."""
    return f"v{int(version[:4])}"


@contextlib.contextmanager
def build_lock(layout: Layout) -> Iterator[None]:
    """Hold the warehouse's build lock; a second build exits at once with a clear message."""
    layout.root.mkdir(parents=True, exist_ok=True)
    with (layout.root / ".build.lock").open("w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"another build holds {layout.root / '.build.lock'}; try again when it ends") from None
        yield


def publish(
    layout: Layout, con: duckdb.DuckDBPyConnection, *, version: str, tables: list[str], manifest: dict
) -> Path:
    """Write `tables` of `con` as Parquet plus manifest.json into releases/<version>/, atomically.

    Files go to a hidden temporary folder that is renamed into place; CURRENT is replaced by
    rename; then the catalog is rebuilt. A failure before the rename leaves nothing visible.
    """
    layout.releases.mkdir(parents=True, exist_ok=True)
    final = layout.release_dir(version)
    tmp = layout.releases / f".tmp-{version}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        files = {}
        for table in tables:
            path = tmp / f"{table}.parquet"
            con.execute(f"COPY {table} TO '{path}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)")
            files[f"{table}.parquet"] = {"sha256": sha256_file(path), "bytes": path.stat().st_size}
        manifest = {**manifest, "version": version, "files": files}
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        _fsync_tree(tmp)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    set_current(layout, version)
    refresh_catalog(layout)
    return final


def set_current(layout: Layout, version: str) -> None:
    """Point CURRENT at `version` by an atomic rename."""
    tmp = layout.current_file.with_suffix(f".tmp-{os.getpid()}")
    tmp.write_text(version + "\n")
    with tmp.open("rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, layout.current_file)


def refresh_catalog(layout: Layout) -> None:
    """Rebuild catalog.duckdb: schema v<N> per kept release and `current` views, then swap it in.

    Views read the releases' Parquet by absolute path, so the catalog works from any working
    directory; it is written with storage version v1.2.0 so the duckdb 1.x shell can open it.
    """
    tmp = layout.catalog.with_name(f".catalog-{os.getpid()}.duckdb")
    tmp.unlink(missing_ok=True)
    current = current_version(layout)
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{tmp}' AS catalog (STORAGE_VERSION 'v1.2.0')")
        for version in versions(layout):
            schemas = [schema_name(version)] + (["current"] if version == current else [])
            for schema in schemas:
                con.execute(f"CREATE SCHEMA IF NOT EXISTS catalog.{schema}")
                for parquet in sorted(layout.release_dir(version).resolve().glob("*.parquet")):
                    con.execute(
                        f"CREATE OR REPLACE VIEW catalog.{schema}.{parquet.stem} AS "
                        f"SELECT * FROM read_parquet('{parquet}')"
                    )
        con.execute("DETACH catalog")
    finally:
        con.close()
    os.replace(tmp, layout.catalog)


def created_now() -> str:
    """UTC timestamp for manifests."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _fsync_tree(folder: Path) -> None:
    for path in folder.iterdir():
        with path.open("rb") as fh:
            os.fsync(fh.fileno())
