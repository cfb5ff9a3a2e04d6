"""A build's config and its release manifest, assembled from what the build measured (docs/releases.md#manifest)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypedDict

from gopat.effects.warehouse.fetch import Fetched
from gopat.effects.warehouse.files import tree_bytes, tree_digest
from gopat.effects.warehouse.layout import Layout, created_now, manifest_tables, read_manifest, state_runs
from gopat.transforms.patterns.families import min_occurrence as thresholds
from gopat.transforms.tables.format import FORMAT
from gopat.transforms.tables.registry import TABLES

INCREMENTAL_TABLES = (  # the tables whose files an incremental build reads
    "games", "moves", "setups", "rejects", "move_patterns", "pattern_stats", "pattern_tail",
)


@dataclass(frozen=True, slots=True)
class Ingest:
    """The ingest equations (docs/releases.md#ingest-contract): files_in == files_ingested + files_rejected,
    and trees_in == games + duplicates + trees_rejected over the game trees of the files ingested."""

    files_in: int
    files_ingested: int
    files_rejected: int
    games: int = 0
    duplicates: int = 0
    trees_in: int = 0
    trees_rejected: int = 0

    @property
    def balanced(self) -> bool:
        """True when every file and every game tree is accounted for."""
        return (
            self.files_in == self.files_ingested + self.files_rejected
            and self.trees_in == self.games + self.duplicates + self.trees_rejected
        )

    def line(self) -> str:
        """The one-line summary every build prints."""
        return (
            f"files in {self.files_in} = ingested {self.files_ingested} + rejected {self.files_rejected}; "
            f"trees in {self.trees_in} = games {self.games} + duplicates {self.duplicates} "
            f"+ rejected {self.trees_rejected} ({'holds' if self.balanced else 'BROKEN'})"
        )


class BuildConfig(TypedDict):
    """The options that change a release's tables (part of its content hash)."""

    families: list[str]
    min_occurrence: dict[str, int]
    event_families: list[str]
    fuseki_moves: int
    template_families: list[str]
    template_min_occurrence: int
    game_counts_moves: int


class Manifest(TypedDict, total=False):
    """manifest.json of a release (docs/releases.md#manifest); publish adds `files`, the flow the rest."""

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
    files: dict[str, dict[str, Any]]
    state: dict[str, Any]
    version: str


def build_config(
    *,
    families: Sequence[str],
    min_occurrence: Mapping[str, int],
    event_families: Sequence[str],
    fuseki_moves: int,
    template_families: Sequence[str],
    template_min_occurrence: int,
    game_counts_moves: int,
) -> BuildConfig:
    """The config of a build; move_patterns and templates only for the `event_families` and `template_families`
    that are also in `families`; the publication threshold of every family (`min_occurrence` over the defaults,
    transforms/patterns/families.py)."""
    return {
        "families": sorted(families),
        "min_occurrence": thresholds(families, min_occurrence),
        "event_families": sorted(f for f in event_families if f in families),
        "fuseki_moves": fuseki_moves,
        "template_families": [f for f in template_families if f in families],
        "template_min_occurrence": template_min_occurrence,
        "game_counts_moves": game_counts_moves,
    }


def source_entries(fetched: Sequence[Fetched]) -> list[dict[str, str]]:
    """The manifest's `sources`: each source's name and sha256, in order."""
    return [{"source": f.source, "sha256": f.sha256} for f in fetched]


def release_manifest(
    *,
    code: str,
    content: str,
    config: BuildConfig,
    fetched: Sequence[Fetched],
    ingest: Ingest,
    chosen: dict[str, int],
    families: Sequence[str],
    incremental: dict[str, Any] | None,
) -> Manifest:
    """The manifest the pattern_stats suite reads (the flow adds row counts, expectations and timings)."""
    return {
        "format": FORMAT,
        "schema": {name: TABLES[name].manifest_entry() for name in TABLES},
        "created": created_now(),
        "code_version": code,
        "content_hash": content,
        "config": config,
        "sources": source_entries(fetched),
        "ingest": asdict(ingest),
        "families": {f: {"chosen_events": chosen[f]} for f in families},
        "incremental": incremental,
    }


def full_build_reason(
    layout: Layout, current: str, manifest: dict[str, Any], fetched: Sequence[Fetched], *, code: str,
    config: BuildConfig,
) -> str | None:
    """Why a build cannot extend release `current` (its `manifest`), or None when it can.

    It can when it was built by the same code and config (publication thresholds aside: the build
    state holds every count) from the first of `fetched` (same names, same sha256), and its files
    and its build state (the complete pattern counts, docs/releases.md#build-state) are all there.
    With no new source, the build publishes the state under the new thresholds without reading a
    source (the caller has ruled out the same content).
    """
    given = source_entries(fetched)
    built = manifest.get("sources", [])
    damaged = _damaged_files(layout.release_dir(current), manifest.get("files", {}))
    reasons: dict[str, Callable[[], bool]] = {  # in order, the first that holds; the state is hashed last
        "was built by other code": lambda: manifest.get("code_version") != code,
        "has another config": lambda: _but_thresholds(manifest.get("config")) != _but_thresholds(config),
        "was not built from the first of these sources": lambda: not 0 < len(built) <= len(given) or given[
            : len(built)] != built,
        f"has missing or resized files: {', '.join(damaged)}": lambda: bool(damaged),
        f"has no build state of the sizes and sha256 its manifest records ({layout.state})": lambda: not (
            _state_kept(layout, manifest)),
    }
    return next((reason for reason, holds in reasons.items() if holds()), None)


def _damaged_files(folder: Path, files: Mapping[str, Any]) -> list[str]:
    """The files of the INCREMENTAL_TABLES that are missing from release `folder` or not of the size `files` (its
    manifest's) records: every file of a partitioned table (docs/releases.md#release-folder); a table without a
    listed file is named as `<table> (no file)`."""
    tables = manifest_tables(files)
    return [
        name for table in INCREMENTAL_TABLES for name in tables.get(table, [f"{table} (no file)"])
        if not (path := folder / name).is_file() or path.stat().st_size != files.get(name, {}).get("bytes")
    ]


def _but_thresholds(config: Mapping[str, Any] | None) -> dict[str, Any]:
    """A build config without its publication thresholds (`min_occurrence`)."""
    return {key: value for key, value in (config or {}).items() if key != "min_occurrence"}


def _state_kept(layout: Layout, manifest: Mapping[str, Any]) -> bool:
    """Whether every run of a release's build state is in `layout` with the bytes and sha256 its manifest records.

    A run is a folder, checked by its `tree_digest` (docs/releases.md#build-state): the sizes of every run
    first, then the hashes. The runs are hashed, not only sized: an incremental build's suite checks the new
    games' counts and the sums, not every previous count again (expectations/pattern_stats.py).
    """
    runs = [(layout.state_dir(run["version"]), run) for run in state_runs(manifest)]
    return (
        bool(runs)
        and all(
            folder.is_dir() and tree_bytes(folder) == run.get("bytes")
            for folder, run in runs
        )
        and all(tree_digest(folder)[0] == run.get("sha256") for folder, run in runs)
    )


def incremental_base(
    layout: Layout, current: str | None, fetched: Sequence[Fetched], *, code: str, config: BuildConfig
) -> tuple[dict[str, Any] | None, str | None]:
    """The manifest of the current release when this build can extend it (else None), and why not."""
    if current is None:
        return None, None
    manifest = read_manifest(layout, current)
    reason = full_build_reason(layout, current, manifest, fetched, code=code, config=config)
    return (None, reason) if reason else (manifest, None)
