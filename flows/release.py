"""Release storage: versions, atomic publish, retention, `CURRENT`, the catalog, packs, verification, the lock.

A warehouse's releases change only under the build lock, in this order: the release's files go to a
hidden temporary folder that is renamed to ``releases/<version>/``; the new catalog is written to a
temporary file; ``CURRENT`` is replaced by rename (the commit point); the catalog is renamed into
place; releases beyond the retention count are renamed to ``.trash-*`` and deleted. A process killed
at any point leaves the previous release current and only hidden leftovers, which `recover` (run
whenever the lock is taken) removes, also rebuilding a catalog that does not match the disk.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import sys
import tarfile
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from gopat.flows.datadocs import write_datadocs
from gopat.flows.fetch import fetch, is_url, sha256_file

CODE_DIRS = ("transforms", "flows", "expectations")
REPO = Path(__file__).resolve().parents[1]
VERSION_RE = re.compile(r"\d{4}-[0-9a-f]{12}")
PACK_MEMBER_RE = re.compile(r"(\d{4}-[0-9a-f]{12})/(manifest\.json|[a-z0-9_]+\.parquet|datadocs/[a-z0-9_-]+\.html)")
PACK_FOLDER_RE = re.compile(r"\d{4}-[0-9a-f]{12}(/datadocs)?/?")
CATALOG_STORAGE = "v1.2.0"
FAULT_STOP_ENV = "GOPAT_FAULT_STOP"
FAULT_SQL_ENV = "GOPAT_FAULT_SQL"
DOWNLOAD_RETRY_SECONDS = (0.5, 2.0)


class PackError(ValueError):
    """A release pack that is truncated, malformed or does not match its manifest."""


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
    def downloads(self) -> Path:
        return self.root / "downloads"

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


@dataclass(frozen=True, slots=True)
class ReleaseInfo:
    """One line of `gopat releases`: status is current, kept or damaged (a file missing or resized)."""

    version: str
    created: str
    games: int | None
    tables: int
    status: str


def code_version() -> str:
    """sha256 (12 hex) of every .py and .sql file of the product's packages."""
    digest = hashlib.sha256()
    for folder in CODE_DIRS:
        for path in sorted((REPO / folder).rglob("*")):
            if path.suffix in {".py", ".sql"} and "__pycache__" not in path.parts:
                digest.update(path.relative_to(REPO).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def content_hash(
    *, source_sha256s: list[str], code: str, config: Mapping, sources: Sequence[str] | None = None
) -> str:
    """Hash of what determines a release's tables: inputs (their bytes and their names), code and config."""
    payload = {"sources": source_sha256s, "code": code, "config": config}
    if sources is not None:
        payload["names"] = list(sources)
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:12]


def versions(layout: Layout) -> list[str]:
    """Published versions, oldest first (`NNNN-<content hash>`)."""
    if not layout.releases.is_dir():
        return []
    return sorted(p.name for p in layout.releases.iterdir() if p.is_dir() and VERSION_RE.fullmatch(p.name))


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


def resolve_version(layout: Layout, name: str) -> str:
    """A published version from its full name, its number (``3`` or ``0003``) or ``current``."""
    known = versions(layout)
    if name == "current":
        found = current_version(layout)
        if found is None:
            raise ValueError(f"no current release in {layout.releases}")
        return found
    if name in known:
        return name
    if name.isdigit():
        matches = [v for v in known if int(v[:4]) == int(name)]
        if len(matches) == 1:
            return matches[0]
    raise ValueError(f"release {name!r} not found in {layout.releases}")


def next_version(layout: Layout, content: str) -> str:
    """The version to publish `content` as: normally a number one above the newest.

    A complete release of the same content numbered above the current one is the work of a build
    killed before it switched CURRENT: its name is returned, so `publish` commits it (after
    checking it) instead of skipping a number.
    """
    known = versions(layout)
    current = current_version(layout)
    floor = int(current[:4]) if current else 0
    for version in reversed(known):
        if version.endswith(f"-{content}") and int(version[:4]) > floor:
            return version
    return f"{max((int(v[:4]) for v in known), default=0) + 1:04d}-{content}"


def schema_name(version: str) -> str:
    """DuckDB schema of a version: `v<number>`."""
    return f"v{int(version[:4])}"


def fault_point(step: str, *, con: duckdb.DuckDBPyConnection | None = None) -> None:
    """Test hook, the only reader of the fault variables; does nothing when they are unset.

    ``GOPAT_FAULT_STOP=step[,step...]``: at a named step the process says so on stderr and stops
    itself with SIGSTOP, so a test can kill it with SIGKILL at a known point or let it go on with
    SIGCONT. ``GOPAT_FAULT_SQL=statement``: run on the build's database at the step that passes `con`
    (before analytics and validation start), e.g. to break a table and see the expectations stop the publish.
    """
    if step in os.environ.get(FAULT_STOP_ENV, "").split(","):
        print(f"gopat: fault point {step}: stopping (pid {os.getpid()})", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGSTOP)
    statement = os.environ.get(FAULT_SQL_ENV)
    if con is not None and statement:
        con.execute(statement)


@contextlib.contextmanager
def build_lock(layout: Layout) -> Iterator[None]:
    """Hold the warehouse's build lock, then `recover`; a second build exits at once with a clear message."""
    layout.root.mkdir(parents=True, exist_ok=True)
    path = layout.root / ".build.lock"
    with path.open("a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "?"
            raise RuntimeError(
                f"another build (pid {holder}) holds {path}; nothing was changed, try again when it ends"
            ) from None
        fh.truncate(0)
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        recover(layout)
        yield


def recover(layout: Layout) -> list[str]:
    """Remove what an interrupted build left behind and make the catalog match the disk.

    Call only under the build lock. Removes hidden temporary release folders, trash, temporary
    CURRENT and catalog files and staging/ (raw/ keeps its `.part` files so downloads resume).
    Returns the names of what was removed or rebuilt.
    """
    done = []
    leftovers = []
    if layout.releases.is_dir():
        leftovers += [p for p in layout.releases.iterdir() if p.name.startswith((".tmp-", ".trash-", "CURRENT.tmp-"))]
    if layout.root.is_dir():
        leftovers += [p for p in layout.root.iterdir() if p.name.startswith(".catalog-")]
    if layout.staging.is_dir():
        leftovers += list(layout.staging.iterdir())
    for path in sorted(leftovers):
        _remove(path)
        done.append(path.name)
    if layout.releases.is_dir() and _catalog_state(layout) != _disk_state(layout):
        refresh_catalog(layout)
        done.append(layout.catalog.name)
    return done


def publish(
    layout: Layout,
    con: duckdb.DuckDBPyConnection,
    *,
    version: str,
    tables: list[str],
    manifest: dict,
    keep: int | None = None,
    staged: Mapping[str, Path] | None = None,
) -> Path:
    """Publish `tables` of `con` as releases/<version>/ and make it current; keep the `keep` newest releases.

    Writes Parquet, Data Docs and manifest.json (with every file's sha256) to a hidden folder that is
    renamed into place, prepares the catalog, switches CURRENT, swaps the catalog in and deletes
    releases beyond `keep` (None keeps all). Any failure before CURRENT switches removes what this
    call created, so the previous release stays current; a release of the same version left by a
    killed build is reused if it verifies. Disk errors raise OSError. `staged` maps tables already
    written as Parquet under the warehouse (the build writes pattern_stats while it sums it) to
    their files, which are hard-linked into the release instead of exported again.
    """
    if keep is not None and keep < 1:
        raise ValueError(f"keep must be at least 1, got {keep}")
    layout.releases.mkdir(parents=True, exist_ok=True)
    final = layout.release_dir(version)
    created = not (final.is_dir() and not verify(layout, version))
    if created:
        if final.exists():
            _remove(final)
        _write_release(layout, con, version=version, tables=tables, manifest=manifest, staged=staged or {})
    known = versions(layout)
    kept = known if keep is None else sorted(set(known[-keep:]) | {version})
    _commit(layout, kept=kept, current=version, rollback=final if created else None)
    for old in sorted(set(known) - set(kept)):
        _remove(layout.release_dir(old))
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
    _fsync_dir(layout.releases)


def refresh_catalog(layout: Layout) -> None:
    """Rebuild catalog.duckdb from the releases on disk and CURRENT, then swap it in."""
    os.replace(_write_catalog(layout, versions(layout), current_version(layout)), layout.catalog)


def verify(layout: Layout, version: str) -> list[str]:
    """Problems of a published release on disk (empty when every file matches its manifest's sha256)."""
    try:
        manifest = read_manifest(layout, version)
    except (ValueError, OSError) as error:
        return [f"manifest.json: {error}"]
    return _verify_folder(layout.release_dir(version), manifest, version=version)


def list_releases(layout: Layout) -> list[ReleaseInfo]:
    """Every published release, oldest first, with a quick status (file sizes, not checksums)."""
    current = current_version(layout)
    rows = []
    for version in versions(layout):
        try:
            manifest = read_manifest(layout, version)
        except (ValueError, OSError):
            rows.append(ReleaseInfo(version, "", None, 0, "damaged"))
            continue
        files = manifest.get("files", {})
        intact = all(
            (layout.release_dir(version) / name).is_file()
            and (layout.release_dir(version) / name).stat().st_size == entry.get("bytes")
            for name, entry in files.items()
        )
        status = "damaged" if not intact else "current" if version == current else "kept"
        games = manifest.get("ingest", {}).get("games")
        tables = sum(name.endswith(".parquet") for name in files)
        rows.append(ReleaseInfo(version, manifest.get("created", ""), games, tables, status))
    return rows


def pack(layout: Layout, version: str, out: Path) -> Path:
    """Write releases/<version>/ as a reproducible tar.gz (`<version>/manifest.json` first, then its files).

    The release is verified first; the archive is written to `<out>.part` and renamed, and is
    byte-identical for the same release (fixed mtimes, owners and order).
    """
    problems = verify(layout, version)
    if problems:
        raise ValueError(f"release {version} fails verification, not packed: {'; '.join(problems)}")
    folder = layout.release_dir(version)
    names = ["manifest.json", *sorted(read_manifest(layout, version)["files"])]
    part = out.with_name(out.name + ".part")
    try:
        with (
            part.open("wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as compressed,
            tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as tar,
        ):
            for name in names:
                info = tarfile.TarInfo(f"{version}/{name}")
                info.size = (folder / name).stat().st_size
                info.mode = 0o644
                with (folder / name).open("rb") as fh:
                    tar.addfile(info, fh)
        os.replace(part, out)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return out


def install(layout: Layout, archive: Path) -> str:
    """Verify a release pack and register it: releases/<version>/, the catalog, CURRENT if it is the newest.

    Raises `PackError` for a truncated or malformed pack or a file that does not match the
    manifest's sha256, `ValueError` when the warehouse holds a different release of that number.
    Installing a release that is already there (same files) changes nothing.
    """
    with build_lock(layout):
        layout.releases.mkdir(parents=True, exist_ok=True)
        tmp = layout.releases / f".tmp-install-{os.getpid()}"
        try:
            version = _unpack(archive, tmp)
            manifest = json.loads((tmp / "manifest.json").read_text())
            problems = _verify_folder(tmp, manifest, version=version)
            if problems:
                raise PackError(f"{archive}: {'; '.join(problems)}")
            known = versions(layout)
            if version in known:
                if read_manifest(layout, version).get("files") == manifest["files"] and not verify(layout, version):
                    return version
                raise ValueError(f"{archive}: release {version} already exists here with other files")
            clash = [v for v in known if int(v[:4]) == int(version[:4])]
            if clash:
                raise ValueError(f"{archive}: release number {int(version[:4])} is already used by {clash[0]} here")
            _fsync_tree(tmp)
            os.replace(tmp, layout.release_dir(version))
        finally:
            _remove(tmp)
        current = current_version(layout)
        newest = current is None or int(version[:4]) > int(current[:4])
        _commit(layout, kept=versions(layout), current=version if newest else current,
                rollback=layout.release_dir(version))
        return version


def download(source: str, layout: Layout, *, expected_sha256: str | None = None, attempts: int = 3) -> str:
    """Fetch a release pack (URL or path) into downloads/, verify it and `install` it; returns the version.

    A cut connection resumes from the `.part` file; a pack that arrives complete but fails to unpack or
    to verify is deleted and downloaded again from the start. Nothing is registered unless every
    sha256 of the manifest matches. The pack file is deleted once installed.
    """
    if not is_url(source) and not Path(source).expanduser().is_file():
        raise ValueError(f"{source}: no such release pack (a .tar.gz file or an http(s) URL)")
    attempt = 0
    while True:
        attempt += 1
        try:
            fetched = fetch(source, raw_dir=layout.downloads, expected_sha256=expected_sha256)
        except (OSError, http.client.HTTPException) as error:
            if attempt >= attempts:
                raise OSError(f"{source}: download failed {attempts} times, last: {error}") from error
            time.sleep(DOWNLOAD_RETRY_SECONDS[min(attempt, len(DOWNLOAD_RETRY_SECONDS)) - 1])
            continue
        try:
            version = install(layout, fetched.path)
        except PackError:
            fetched.path.unlink(missing_ok=True)
            if attempt >= attempts or not is_url(source):
                raise
            continue
        fetched.path.unlink(missing_ok=True)
        return version


def created_now() -> str:
    """UTC timestamp for manifests."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _write_release(
    layout: Layout,
    con: duckdb.DuckDBPyConnection,
    *,
    version: str,
    tables: list[str],
    manifest: dict,
    staged: Mapping[str, Path],
) -> None:
    """Parquet files, Data Docs and manifest into a hidden folder, fsynced, renamed to releases/<version>."""
    tmp = layout.releases / f".tmp-{version}-{os.getpid()}"
    _remove(tmp)
    tmp.mkdir()
    try:
        files = {}
        for index, table in enumerate(tables):
            path = tmp / f"{table}.parquet"
            try:
                if table in staged:
                    os.link(staged[table], path)
                else:
                    con.execute(
                        f"COPY {table} TO {_quote(path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)"
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
        _fsync_tree(tmp)
        os.replace(tmp, layout.release_dir(version))
        _fsync_dir(layout.releases)
    except BaseException:
        _remove(tmp)
        raise


def _commit(layout: Layout, *, kept: list[str], current: str | None, rollback: Path | None) -> None:
    """Prepare the catalog of `kept` with `current`, switch CURRENT (the commit point), swap the catalog in.

    A failure before CURRENT switches removes the prepared catalog and the `rollback` release folder
    (the one being added), so the warehouse is as it was; after it, `recover` repairs the catalog.
    """
    catalog = None
    try:
        catalog = _write_catalog(layout, kept, current)
        fault_point("catalog")
        if current is not None and current != current_version(layout):
            set_current(layout, current)
    except BaseException:
        if catalog is not None:
            catalog.unlink(missing_ok=True)
        if rollback is not None:
            _remove(rollback)
        raise
    os.replace(catalog, layout.catalog)
    _fsync_dir(layout.root)


def _write_catalog(layout: Layout, kept: list[str], current: str | None) -> Path:
    """A new catalog in a hidden file: schema v<N> per kept release, `current`, and a `releases` table.

    Views read the releases' Parquet by absolute path, so the catalog works from any working
    directory; it is written with storage version v1.2.0 so the duckdb 1.x shell can open it.
    """
    tmp = layout.catalog.with_name(f".catalog-{os.getpid()}.duckdb")
    _remove(tmp)
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH {_quote(tmp)} AS catalog (STORAGE_VERSION '{CATALOG_STORAGE}')")
        con.execute(
            "CREATE TABLE catalog.main.releases (version VARCHAR, number INTEGER, created VARCHAR, "
            "games BIGINT, tables INTEGER, is_current BOOLEAN, path VARCHAR)"
        )
        for version, manifest in _readable(layout, kept):
            folder = layout.release_dir(version).resolve()
            parquet = sorted(name for name in manifest.get("files", {}) if name.endswith(".parquet"))
            con.execute(
                "INSERT INTO catalog.main.releases VALUES (?, ?, ?, ?, ?, ?, ?)",
                [version, int(version[:4]), manifest.get("created"), manifest.get("ingest", {}).get("games"),
                 len(parquet), version == current, str(folder)],
            )
            for schema in [schema_name(version)] + (["current"] if version == current else []):
                con.execute(f"CREATE SCHEMA IF NOT EXISTS catalog.{schema}")
                for name in parquet:
                    con.execute(
                        f"CREATE OR REPLACE VIEW catalog.{schema}.{Path(name).stem} AS "
                        f"SELECT * FROM read_parquet({_quote(folder / name)})"
                    )
        con.execute("DETACH catalog")
        with tmp.open("rb") as fh:
            os.fsync(fh.fileno())
    except BaseException:
        _remove(tmp)
        raise
    finally:
        con.close()
    return tmp


def _catalog_state(layout: Layout) -> tuple[list[tuple[str, str]], str | None] | None:
    """([(version, folder)], current) recorded in catalog.duckdb (none when it is missing), None if unreadable."""
    if not layout.catalog.is_file():
        return [], None
    try:
        with duckdb.connect(str(layout.catalog), read_only=True) as con:
            rows = con.execute("SELECT version, path, is_current FROM releases ORDER BY version").fetchall()
    except duckdb.Error:
        return None
    return [(version, path) for version, path, _ in rows], next((version for version, _, flag in rows if flag), None)


def _disk_state(layout: Layout) -> tuple[list[tuple[str, str]], str | None]:
    """The same as the releases folder has it: a moved warehouse or a deleted release differs from its catalog."""
    known = [version for version, _ in _readable(layout, versions(layout))]
    current = current_version(layout)
    folders = [(version, str(layout.release_dir(version).resolve())) for version in known]
    return folders, current if current in known else None


def _readable(layout: Layout, names: Sequence[str]) -> list[tuple[str, dict]]:
    """(version, manifest) of the named releases whose manifest can be read; the catalog lists only these."""
    found = []
    for version in names:
        with contextlib.suppress(ValueError, OSError):
            found.append((version, read_manifest(layout, version)))
    return found


def _verify_folder(folder: Path, manifest: Mapping, *, version: str) -> list[str]:
    """Problems of a release folder against its manifest: version, missing, extra or changed files."""
    problems = []
    if manifest.get("version") != version:
        problems.append(f"manifest.json names version {manifest.get('version')!r}, not {version}")
    files = manifest.get("files")
    if not isinstance(files, Mapping) or not files:
        return [*problems, "manifest.json lists no files"]
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} - {"manifest.json"}
    problems += [f"{name}: not listed in manifest.json" for name in sorted(on_disk - set(files))]
    for name, entry in sorted(files.items()):
        path = folder / name
        if not path.is_file():
            problems.append(f"{name}: missing")
        elif path.stat().st_size != entry.get("bytes"):
            problems.append(f"{name}: {path.stat().st_size} bytes, manifest says {entry.get('bytes')}")
        elif sha256_file(path) != entry.get("sha256"):
            problems.append(f"{name}: sha256 {sha256_file(path)}, manifest says {entry.get('sha256')}")
    return problems


def _unpack(archive: Path, folder: Path) -> str:
    """Extract a release pack into `folder` (regular files with release names only); returns its version."""
    _remove(folder)
    folder.mkdir()
    versions_seen = set()
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            for member in tar:
                if member.isdir() and PACK_FOLDER_RE.fullmatch(member.name):
                    continue
                match = PACK_MEMBER_RE.fullmatch(member.name)
                if not member.isfile() or match is None:
                    raise PackError(f"{archive}: unexpected member {member.name!r}")
                versions_seen.add(match.group(1))
                target = folder / match.group(2)
                if len(versions_seen) > 1 or target.exists():
                    raise PackError(f"{archive}: more than one release or a repeated member ({member.name})")
                target.parent.mkdir(exist_ok=True)
                with tar.extractfile(member) as src, target.open("wb") as dst:
                    shutil.copyfileobj(src, dst)
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise PackError(f"{archive}: not a complete release pack ({error})") from error
    if not versions_seen or not (folder / "manifest.json").is_file():
        raise PackError(f"{archive}: no manifest.json")
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except ValueError as error:
        raise PackError(f"{archive}: manifest.json is not JSON ({error})") from error
    if not isinstance(manifest, dict):
        raise PackError(f"{archive}: manifest.json is not a JSON object")
    return versions_seen.pop()


def _file_entry(path: Path) -> dict:
    return {"sha256": sha256_file(path), "bytes": path.stat().st_size}


def _quote(path: Path) -> str:
    """A path as a SQL string literal."""
    return "'" + str(path).replace("'", "''") + "'"


def _remove(path: Path) -> None:
    """Delete a file or folder; a folder is first renamed to a hidden .trash-* name so it vanishes at once."""
    if path.is_dir() and not path.is_symlink():
        trash = path if path.name.startswith(".trash-") else path.with_name(f".trash-{path.name}-{os.getpid()}")
        if trash != path:
            os.replace(path, trash)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _fsync_tree(folder: Path) -> None:
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            with path.open("rb") as fh:
                os.fsync(fh.fileno())
    for path in sorted(p for p in folder.rglob("*") if p.is_dir()):
        _fsync_dir(path)
    _fsync_dir(folder)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
