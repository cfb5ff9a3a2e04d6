"""Checking published releases against their manifests, and the list of releases with their status."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gopat.effects.warehouse.fetch import sha256_file
from gopat.effects.warehouse.layout import (
    Layout,
    ReleaseInfo,
    current_version,
    manifest_tables,
    read_manifest,
    readable,
    versions,
)


def verify(layout: Layout, version: str) -> list[str]:
    """Problems of a published release on disk (empty when every file matches its manifest's sha256)."""
    try:
        manifest = read_manifest(layout, version)
    except (ValueError, OSError) as error:
        return [f"manifest.json: {error}"]
    return verify_folder(layout.release_dir(version), manifest, version=version)


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
        rows.append(ReleaseInfo(version, manifest.get("created", ""), games, len(manifest_tables(files)), status))
    return rows


def disk_state(layout: Layout) -> tuple[list[tuple[str, str]], str | None]:
    """The same as the releases folder has it: a moved warehouse or a deleted release differs from its catalog."""
    known = [version for version, _ in readable(layout, versions(layout))]
    current = current_version(layout)
    folders = [(version, str(layout.release_dir(version).resolve())) for version in known]
    return folders, current if current in known else None


def verify_folder(folder: Path, manifest: Mapping[str, Any], *, version: str) -> list[str]:
    """Problems of a release folder against its manifest (docs/releases.md#manifest): version, missing, extra or
    changed files."""
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
