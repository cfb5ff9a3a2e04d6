"""A build's config and its release manifest, assembled from what the build measured (docs/releases.md#manifest)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from gopat.effects.warehouse.fetch import Fetched, check_sources
from gopat.effects.warehouse.layout import BuildConfig, Manifest, created_now
from gopat.transforms.patterns.canonical import check_event_families
from gopat.transforms.patterns.families import check_families
from gopat.transforms.patterns.families import min_occurrence as thresholds
from gopat.transforms.tables.format import FORMAT
from gopat.transforms.tables.registry import TABLES


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


def check_inputs(
    *,
    sources: Sequence[str],
    expected_sha256: Sequence[str | None],
    families: Sequence[str],
    min_occurrence: Mapping[str, int],
    event_families: Sequence[str],
) -> None:
    """Refuse, before any slow work starts, inputs a build cannot use: ValueError with one line naming the input and
    the reason (the command line calls it before Prefect starts, the flow for every other caller)."""
    check_sources(list(sources))
    if len(expected_sha256) > len(sources):
        raise ValueError(f"more expected sha256 values ({len(expected_sha256)}) than sources ({len(sources)})")
    check_families(families)
    check_event_families(event_families)
    thresholds(families, min_occurrence)


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


def checked_facts(
    *,
    code: str,
    content: str,
    config: BuildConfig,
    fetched: Sequence[Fetched],
    ingest: Ingest,
    chosen: Mapping[str, int],
    incremental: dict[str, Any] | None,
) -> Manifest:
    """The facts of a release's manifest that the suites check its tables against (expectations/)."""
    return {
        "format": FORMAT,
        "schema": {name: TABLES[name].manifest_entry() for name in TABLES},
        "created": created_now(),
        "code_version": code,
        "content_hash": content,
        "config": config,
        "sources": source_entries(fetched),
        "ingest": asdict(ingest),
        "families": {f: {"chosen_events": chosen[f]} for f in config["families"]},
        "incremental": incremental,
    }


def release_manifest(
    facts: Manifest,
    *,
    runs: list[dict[str, Any]],
    row_counts: dict[str, int],
    expectations: dict[str, Any],
    timings: dict[str, float],
    ingest_cpu: dict[str, float],
) -> Manifest:
    """A release's manifest: the checked `facts` and what the build measured and wrote (publish adds `version` and
    `files`, docs/releases.md#manifest)."""
    return {
        **facts, "state": {"runs": runs}, "row_counts": row_counts, "expectations": expectations,
        "timings": timings, "ingest_cpu": ingest_cpu,
    }
