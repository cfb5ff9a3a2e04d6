"""Release packs: a release as a reproducible .tar.gz, and its verified install or download into a warehouse."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import re
import shutil
import tarfile
import time
import zlib
from pathlib import Path

from gopat.effects.warehouse.fetch import fetch, is_url
from gopat.effects.warehouse.files import fsync_tree, remove
from gopat.effects.warehouse.layout import Layout, current_version, read_manifest, versions
from gopat.effects.warehouse.lock import build_lock
from gopat.effects.warehouse.publish import commit
from gopat.effects.warehouse.verify import verify, verify_folder

# a release's file names (docs/releases.md#release-folder): a table's file, a partitioned table's
# `<table>/<family>/<symmetry, 2 digits>/<part, 4 digits>.parquet`, a Data Docs page; and the folders of those
RELEASE_FILE_RE = re.compile(
    r"[a-z0-9_]+\.parquet|[a-z0-9_]+/[a-z0-9]+/\d{2}/\d{4}\.parquet|datadocs/[a-z0-9_-]+\.html"
)
PACK_MEMBER_RE = re.compile(rf"(\d{{4}}-[0-9a-f]{{12}})/(manifest\.json|{RELEASE_FILE_RE.pattern})")
PACK_FOLDER_RE = re.compile(r"\d{4}-[0-9a-f]{12}(/[a-z0-9_]+(/[a-z0-9]+(/\d{2})?)?)?/?")
DOWNLOAD_RETRY_SECONDS = (0.5, 2.0)


class PackError(ValueError):
    """A release pack that is truncated, malformed or does not match its manifest."""


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
            problems = verify_folder(tmp, manifest, version=version)
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
            fsync_tree(tmp)
            os.replace(tmp, layout.release_dir(version))
        finally:
            remove(tmp)
        current = current_version(layout)
        newest = current is None or int(version[:4]) > int(current[:4])
        commit(layout, kept=versions(layout), current=version if newest else current,
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


def _unpack(archive: Path, folder: Path) -> str:
    """Extract a release pack into `folder` (regular files with release names only); returns its version."""
    remove(folder)
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
                target.parent.mkdir(parents=True, exist_ok=True)  # inside `folder`: no name part is `..`
                src = tar.extractfile(member)
                if src is None:  # not reached: member.isfile() was checked above
                    raise PackError(f"{archive}: unreadable member {member.name!r}")
                with src, target.open("wb") as dst:
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
    files = manifest.get("files")
    unsafe = [name for name in files if not RELEASE_FILE_RE.fullmatch(name)] if isinstance(files, dict) else []
    if unsafe:  # checked against the folder, such a name could point outside it
        raise PackError(f"{archive}: manifest.json lists files a release cannot hold: {', '.join(map(repr, unsafe))}")
    return versions_seen.pop()
