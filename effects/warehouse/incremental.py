"""Whether a build can extend the current release (an incremental build) or must build from scratch."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gopat.effects.warehouse.fetch import Fetched, sha256_file
from gopat.effects.warehouse.files import tree_bytes, tree_digest
from gopat.effects.warehouse.layout import BuildConfig, Layout, Manifest, count_runs, manifest_tables, read_manifest
from gopat.effects.warehouse.manifest import source_entries

INCREMENTAL_TABLES = (  # the tables whose files an incremental build reads
    "games", "moves", "setups", "rejects", "move_patterns", "pattern_stats", "pattern_tail",
)
# the tables whose files an incremental build links into its release unchanged, without checking their rows again:
# hashed, not only sized (docs/releases.md#move_patterns)
LINKED_TABLES = ("move_patterns",)


def full_build_reason(
    layout: Layout, current: str, manifest: Manifest, fetched: Sequence[Fetched], *, code: str,
    config: BuildConfig,
) -> str | None:
    """Why a build cannot extend release `current` (its `manifest`), or None when it can.

    It can when it was built by the same code and config (publication thresholds aside: the build
    runs hold every count) from the first of `fetched` (same names, same sha256), and its files
    and the runs of its complete counts (docs/releases.md#complete-counts) are all there, the runs and
    the files of the LINKED_TABLES with the sha256 its manifest records.
    With no new source, the build publishes the complete counts under the new thresholds without reading a
    source (the caller has ruled out the same content).
    """
    given = source_entries(fetched)
    built = manifest.get("sources", [])
    damaged = _damaged_files(layout.release_dir(current), manifest.get("files", {}))
    reasons: dict[str, Callable[[], bool]] = {  # in order, the first that holds; hashes last
        "was built by other code": lambda: manifest.get("code_version") != code,
        "has another config": lambda: _but_thresholds(manifest.get("config")) != _but_thresholds(config),
        "was not built from the first of these sources": lambda: not 0 < len(built) <= len(given) or given[
            : len(built)] != built,
        f"has missing or resized files: {', '.join(damaged)}": lambda: bool(damaged),
        f"has no complete counts of the sizes and sha256 its manifest records ({layout.runs})": lambda: not (
            _state_kept(layout, manifest)),
        f"has {' or '.join(LINKED_TABLES)} files whose sha256 is not its manifest's": lambda: _changed(
            layout.release_dir(current), manifest.get("files", {})),
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


def _changed(folder: Path, files: Mapping[str, Any]) -> bool:
    """Whether a file of the LINKED_TABLES in release `folder` has another sha256 than `files` (its manifest's)
    records."""
    tables = manifest_tables(files)
    names = [name for table in LINKED_TABLES for name in tables.get(table, [])]
    return any(sha256_file(folder / name) != files[name].get("sha256") for name in names)


def _but_thresholds(config: Mapping[str, Any] | None) -> dict[str, Any]:
    """A build config without its publication thresholds (`min_occurrence`)."""
    return {key: value for key, value in (config or {}).items() if key != "min_occurrence"}


def _state_kept(layout: Layout, manifest: Mapping[str, Any]) -> bool:
    """Whether every run of a release's complete counts is in `layout` with the bytes and sha256 its manifest records.

    A run is a folder, checked by its `tree_digest` (docs/releases.md#complete-counts): the sizes of every run
    first, then the hashes. The runs are hashed, not only sized: an incremental build's suite checks the new
    games' counts and the sums, not every previous count again (expectations/pattern_stats.py).
    """
    runs = [(layout.run_dir(run["version"]), run) for run in count_runs(manifest)]
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
) -> tuple[Manifest | None, str | None]:
    """The manifest of the current release when this build can extend it (else None), and why not."""
    if current is None:
        return None, None
    manifest = read_manifest(layout, current)
    reason = full_build_reason(layout, current, manifest, fetched, code=code, config=config)
    return (None, reason) if reason else (manifest, None)
