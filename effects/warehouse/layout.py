"""A warehouse's layout: its paths, release versions and manifests, and the hashes that name a release."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypedDict, cast

from gopat.effects.warehouse.files import tree_files
from gopat.transforms.tables.format import FORMAT

CODE_DIRS = ("transforms", "flows", "expectations", "effects", "cli")
REPO = Path(__file__).resolve().parents[2]
VERSION_RE = re.compile(r"\d{4}-[0-9a-f]{12}")


class BuildConfig(TypedDict):
    """The options that change a release's tables (part of its content hash)."""

    families: list[str]
    min_occurrence: dict[str, int]
    event_families: list[str]
    fuseki_moves: int
    template_families: list[str]
    template_min_occurrence: int
    game_counts_moves: int


class FileEntry(TypedDict):
    """A file of a release in its manifest's ``files`` (docs/releases.md#manifest)."""

    sha256: str
    bytes: int


class Manifest(TypedDict, total=False):
    """A release's manifest.json (docs/releases.md#manifest): built once by the build (effects/warehouse/manifest.py),
    completed with `version` and `files` by publish; as read, a release of an older format may lack keys."""

    format: int
    schema: dict[str, Any]
    created: str
    code_version: str
    content_hash: str
    config: BuildConfig
    sources: list[dict[str, str]]
    ingest: dict[str, int]
    families: dict[str, dict[str, int]]
    incremental: dict[str, Any] | None
    row_counts: dict[str, int]
    expectations: dict[str, Any]
    timings: dict[str, float]
    ingest_cpu: dict[str, float]
    files: dict[str, FileEntry]
    state: dict[str, Any]
    version: str
    evaluations: dict[str, Any]  # added by `gopat evaluate` (effects/evaluation.py)


class _Place:
    """A path of a Layout: `name` in its root folder, or in the folder of another of its paths (`under`)."""

    def __init__(self, name: str, *, under: str | None = None) -> None:
        self.name = name
        self.under = under

    def __get__(self, layout: Layout, owner: type[Layout] | None = None) -> Path:
        return (getattr(layout, self.under) if self.under else layout.root) / self.name


@dataclass(frozen=True, slots=True)
class Layout:
    """Paths inside one warehouse folder; `runs` holds the runs of the complete counts, beside the releases
    (docs/releases.md#complete-counts)."""

    root: Path
    raw = _Place("raw")
    staging = _Place("staging")
    downloads = _Place("downloads")
    releases = _Place("releases")
    runs = _Place("state")
    current_file = _Place("CURRENT", under="releases")
    catalog = _Place("catalog.duckdb")

    def run_dir(self, version: str) -> Path:
        """The run of the complete counts written by the build of release `version`: a folder of Parquet files."""
        return self.runs / version

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
    *, source_sha256s: list[str], code: str, config: Mapping[str, Any], sources: Sequence[str] | None = None
) -> str:
    """Hash of what determines a release's tables: inputs (their bytes and their names), code and config."""
    payload: dict[str, Any] = {"sources": source_sha256s, "code": code, "config": config}
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


def read_manifest(layout: Layout, version: str) -> Manifest:
    """The manifest of a published version (docs/releases.md#manifest)."""
    path = layout.release_dir(version) / "manifest.json"
    if not path.is_file():
        raise ValueError(f"release {version!r} not found in {layout.releases}")
    data = json.loads(path.read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    manifest = cast(Manifest, data)  # its files are checked against it by verify_folder
    if release_format(manifest) > FORMAT:
        raise ValueError(f"release {version} has format {release_format(manifest)}; this gopat reads formats 1 to "
                         f"{FORMAT}: upgrade gopat (CHANGELOG.md)")
    return manifest


def release_format(manifest: Mapping[str, Any]) -> int:
    """The format of a release's files (its manifest's `format`; 1 before it was recorded, CHANGELOG.md)."""
    value = manifest.get("format", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def count_runs(manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The runs of a release's complete counts, base first: the version whose build wrote each (its folder is
    Layout.run_dir(version)), the `tree_digest` of that folder: sha256 and bytes (docs/releases.md#complete-counts)."""
    return list((manifest.get("state") or {}).get("runs", []))


def table_files(folder: Path) -> dict[str, list[Path]]:
    """The tables of a release folder and their Parquet files, by table name (docs/releases.md#release-folder).

    `<name>.parquet` in the folder is table `name`; a subfolder with Parquet files at any depth is a partitioned
    table named after it, whose rows are its files' rows in the order of their relative paths (`datadocs/` has none).
    """
    tables = {path.stem: [path] for path in folder.glob("*.parquet") if path.is_file()}
    for sub in (path for path in folder.iterdir() if path.is_dir()):
        if parts := [path for path in tree_files(sub) if path.suffix == ".parquet"]:
            tables[sub.name] = parts
    return dict(sorted(tables.items()))


def manifest_tables(names: Iterable[str]) -> dict[str, list[str]]:
    """The tables of a manifest's `files` names and their Parquet files, grouped and ordered as `table_files` does."""
    tables: dict[str, list[str]] = {}
    for name in sorted(name for name in names if name.endswith(".parquet")):
        tables.setdefault(name.split("/", 1)[0].removesuffix(".parquet"), []).append(name)
    return dict(sorted(tables.items()))


def readable(layout: Layout, names: Sequence[str]) -> list[tuple[str, Manifest]]:
    """(version, manifest) of the named releases whose manifest can be read; the catalog lists only these."""
    found = []
    for version in names:
        with contextlib.suppress(ValueError, OSError):
            found.append((version, read_manifest(layout, version)))
    return found


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


def created_now() -> str:
    """UTC timestamp for manifests."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()
