"""The build flow: fetch sources, ingest, extract patterns, aggregate in SQL, validate, publish.

The flow is a sequence of tasks (flows/ingest.py, flows/patterns.py and the analytics, validation and publish tasks
below); its config and manifest come from effects/warehouse/manifest.py (docs/releases.md#manifest).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
from prefect import Task, flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.futures import PrefectFuture

from gopat.effects.warehouse.fetch import Fetched
from gopat.effects.warehouse.files import tree_digest
from gopat.effects.warehouse.incremental import incremental_base
from gopat.effects.warehouse.layout import (
    BuildConfig,
    Layout,
    Manifest,
    code_version,
    content_hash,
    count_runs,
    current_version,
    next_version,
    read_manifest,
)
from gopat.effects.warehouse.lock import build_lock, discard_leftovers, fault_point
from gopat.effects.warehouse.manifest import Ingest, build_config, check_inputs, checked_facts, release_manifest
from gopat.effects.warehouse.publish import publish
from gopat.expectations.suites import SUITES
from gopat.flows import cancel
from gopat.flows.artifacts import publish_artifacts
from gopat.flows.ingest import (
    build_game_tables,
    carry_previous,
    count_rows,
    fetch_source,
    ingest_sources,
    no_games,
    unique,
)
from gopat.flows.patterns import PatternFiles, extract_shards, move_patterns_file, pattern_stats_file, staged_tables
from gopat.flows.shards import Runner, build_runner, check_runner
from gopat.transforms.analytics.counting import build_game_counts
from gopat.transforms.analytics.openings import build_fuseki, build_opening_tree
from gopat.transforms.analytics.tail import build_pattern_tail
from gopat.transforms.patterns.canonical import DEFAULT_EVENT_FAMILIES
from gopat.transforms.patterns.families import DEFAULT_FAMILIES
from gopat.transforms.patterns.templates import TEMPLATE_MIN_OCCURRENCE, build_dont_care_templates
from gopat.transforms.tables.macros import install_macros
from gopat.transforms.tables.registry import TABLES

PUBLISHED = tuple(TABLES)
GAME_TABLES = ("games", "moves", "setups", "rejects", "fuseki", "opening_tree", "game_counts")  # need no pattern_stats
DUCKDB_MEMORY = "2GB"  # the build's DuckDB spills to staging/ beyond this (with workers: peak <= 4 GiB)


class ExpectationsFailed(RuntimeError):
    """At least one expectation suite failed; nothing was published."""


class NoGames(ValueError):
    """The sources hold no game; nothing was published."""


@dataclass(frozen=True, slots=True)
class Run:
    """How the shard work runs (none of it changes the release)."""

    workers: int
    shard_size: int
    pattern_shard_size: int
    show: str
    runner: str


@dataclass(frozen=True, slots=True)
class Plan:
    """What one build makes: its inputs, config and hashes, and the release it extends (if incremental)."""

    layout: Layout
    fetched: list[Fetched]
    config: BuildConfig
    code: str
    content: str
    base: Manifest | None

    @property
    def new_sources(self) -> list[Fetched]:
        """The sources this build parses: those after the base release's."""
        return self.fetched[len(self.base["sources"]):] if self.base else self.fetched

    @property
    def first_new_source(self) -> int:
        """The position of the first source this build parses among all its sources."""
        return len(self.fetched) - len(self.new_sources)

    @property
    def previous(self) -> Path | None:
        """The folder of the release this build extends."""
        return self.layout.release_dir(self.base["version"]) if self.base else None

    @property
    def previous_runs(self) -> list[dict[str, Any]]:
        """The runs of the complete counts of the release this build extends, base first
        (docs/releases.md#complete-counts)."""
        return count_runs(self.base) if self.base else []


@task(cache_policy=NO_CACHE)
def build_game_analytics(con: duckdb.DuckDBPyConnection, config: BuildConfig) -> None:
    """Fuseki, opening tree and game counts: the analytics of games and moves (DuckDB SQL)."""
    build_fuseki(con, moves=config["fuseki_moves"])
    build_opening_tree(con, moves=config["fuseki_moves"])
    build_game_counts(con, max_moves=config["game_counts_moves"])


@task(cache_policy=NO_CACHE)
def build_templates(con: duckdb.DuckDBPyConnection, config: BuildConfig) -> None:
    """Don't-care templates: the analytics of pattern_stats (DuckDB SQL)."""
    build_dont_care_templates(
        con, families=config["template_families"], min_occurrence=config["template_min_occurrence"]
    )


@task(cache_policy=NO_CACHE)
def validate_tables(con: duckdb.DuckDBPyConnection, manifest: Manifest, *, tables: Sequence[str]) -> dict[str, Any]:
    """Run the expectation suite of each of `tables`; raise if any fails."""
    logger = get_run_logger()
    results: dict[str, Any] = {}
    failures: list[str] = []
    for table in tables:
        result = SUITES[table](con, manifest=manifest)
        results[table] = result.to_dict()
        for outcome in result.failures():
            failures.append(f"{table}: {outcome.expectation}: {outcome.details}")
        logger.info("expectations %s: %s", table, "passed" if result.success else "FAILED")
    if failures:
        raise ExpectationsFailed("expectations failed, nothing published:\n  " + "\n  ".join(failures))
    return results


@task(cache_policy=NO_CACHE)
def publish_release(
    layout: Layout,
    con: duckdb.DuckDBPyConnection,
    version: str,
    manifest: Manifest,
    keep: int | None = None,
    staged: dict[str, Path] | None = None,
    run: Path | None = None,
) -> Path:
    """Write the release atomically, switch CURRENT, refresh the catalog, keep the `keep` newest releases.

    `staged`: tables already written as Parquet files (hard-linked into the release); `run`: the
    run of the complete counts this build wrote, kept beside the release (docs/releases.md#complete-counts).
    """
    path = publish(layout, con, version=version, tables=list(PUBLISHED), manifest=manifest, keep=keep,
                   staged=staged, run=run)
    get_run_logger().info("published %s", path)
    return path


@flow(name="build-release")
def build_release(
    sources: list[str],
    warehouse: str = "warehouse",
    expected_sha256: list[str | None] | None = None,
    families: tuple[str, ...] = DEFAULT_FAMILIES,
    min_occurrence: dict[str, int] | None = None,
    event_families: tuple[str, ...] = DEFAULT_EVENT_FAMILIES,
    workers: int = 0,
    shard_size: int = 200,
    pattern_shard_size: int = 1000,
    show_progress: str = "auto",
    runner: str = "local",
    fuseki_moves: int = 10,
    template_families: tuple[str, ...] = ("sq3", "dia13"),
    template_min_occurrence: int = TEMPLATE_MIN_OCCURRENCE,
    game_counts_moves: int = 12,
    keep: int | None = None,
) -> Manifest:
    """Build and publish a release from `sources` (URLs, archives, SGF files or folders).

    `expected_sha256` pairs with `sources` by position; `workers=0` uses every core; ingest works
    in shards of `shard_size` files, extraction in shards of `pattern_shard_size` games; `min_occurrence`
    maps families to the number of times a key must be seen to be published in pattern_stats (the rest
    is summed in pattern_tail; defaults and limits: transforms/patterns/families.py);
    `show_progress` is 'auto', 'bar', 'log' or 'quiet' (flows/progress.py); `runner` is where shard
    work runs: 'local' processes, 'dask' (a temporary local Dask cluster) or a Dask scheduler
    address (flows/shards.py); it does not change the release. `move_patterns` holds the chosen
    events of the `event_families` that are also in `families`. Templates are
    built for the `template_families` that are also in `families`, from patterns seen at least
    `template_min_occurrence` times; `keep` is how many releases to keep (None: all). Returns the
    manifest of the published (or current) release.
    """
    check_inputs(sources=sources, expected_sha256=expected_sha256 or [], families=families,
                 min_occurrence=min_occurrence or {}, event_families=event_families)
    check_runner(runner)
    layout = Layout(Path(warehouse).resolve())
    expected = list(expected_sha256 or []) + [None] * (len(sources) - len(expected_sha256 or []))
    run = Run(workers=workers or os.cpu_count() or 1, shard_size=shard_size, pattern_shard_size=pattern_shard_size,
              show=show_progress, runner=runner)
    config = build_config(families=families, min_occurrence=min_occurrence or {}, event_families=event_families,
                          fuseki_moves=fuseki_moves,
                          template_families=template_families, template_min_occurrence=template_min_occurrence,
                          game_counts_moves=game_counts_moves)
    timings: dict[str, float] = {}
    # SIGTERM or SIGINT (a cancelled flow run, the CLI): unwind within a deadline, staging removed (flows/cancel.py).
    with cancel.watch(describe=cancel.describe_build(layout)), build_lock(layout), \
            cancel.cleanup(functools.partial(discard_leftovers, layout)):
        with _timed(timings, "fetch"):
            fetched = unique([fetch_source(s, layout.raw, e) for s, e in zip(sources, expected, strict=True)])
        plan = _plan(layout, fetched, config)
        if plan is None:
            current = current_version(layout)
            assert current is not None  # _plan found it holds these inputs
            publish_artifacts(layout, read_manifest(layout, current), published=False)
            return read_manifest(layout, current)
        version = _build_and_publish(plan, run, keep=keep, timings=timings)
        publish_artifacts(layout, read_manifest(layout, version), published=True)
        return read_manifest(layout, version)


def _plan(layout: Layout, fetched: list[Fetched], config: BuildConfig) -> Plan | None:
    """The plan of a build, or None when the current release already has these inputs, code and config."""
    logger = get_run_logger()
    code = code_version()
    content = content_hash(
        source_sha256s=[f.sha256 for f in fetched], code=code, config=config, sources=[f.source for f in fetched],
    )
    current = current_version(layout)
    if current is not None and current.endswith(f"-{content}"):
        logger.info("release %s already has these inputs, code and config: nothing new to publish", current)
        return None
    base, reason = incremental_base(layout, current, fetched, code=code, config=config)
    if reason:
        logger.info("full build: the current release %s %s", current, reason)
    plan = Plan(layout=layout, fetched=fetched, config=config, code=code, content=content, base=base)
    if base and plan.new_sources:
        logger.info("incremental build: release %s plus %d new source(s)", base["version"], len(plan.new_sources))
    elif base:
        logger.info("release %s's complete counts published with other thresholds: no source to read", base["version"])
    return plan


def _build_and_publish(
    plan: Plan, run: Run, *, keep: int | None, timings: dict[str, float]
) -> str:
    """Build the release's tables in a staging DuckDB, validate and publish them; returns the version."""
    stage = plan.layout.staging / plan.content
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    con = duckdb.connect(
        str(stage / "work.duckdb"),
        config={"memory_limit": DUCKDB_MEMORY, "temp_directory": str(stage / "spill"), "threads": run.workers},
    )
    install_macros(con)  # the tables' derived columns, as readers compute them (transforms/tables/registry.py)
    try:
        with build_runner(workers=run.workers, runner=run.runner) as runner:
            version = _build_on(runner, con, stage, plan, run, keep=keep, timings=timings)
    finally:
        con.close()
        shutil.rmtree(stage, ignore_errors=True)
    return version


def _build_on(
    runner: Runner, con: duckdb.DuckDBPyConnection, stage: Path, plan: Plan, run: Run, *, keep: int | None,
    timings: dict[str, float],
) -> str:
    """The build in `stage` with its DuckDB `con` and its `runner`; returns the version published."""
    with _timed(timings, "ingest"):
        ingest, cpu = ingest_sources(
            plan.new_sources, con, stage, runner=runner, shard_size=run.shard_size, show=run.show,
            first_index=plan.first_new_source,
        )
        new_files = ingest.files_in
        if plan.base and plan.previous:
            ingest = carry_previous(con, plan.previous, Ingest(**plan.base["ingest"]), ingest)
        ingest = build_game_tables(con, ingest)
    get_run_logger().info(ingest.line())
    if ingest.games == 0:
        raise NoGames(no_games(con, [f.source for f in plan.fetched], ingest))
    fault_point("ingest")
    with _timed(timings, "extract"):
        chosen = extract_shards(
            con, stage, families=tuple(plan.config["families"]), event_families=tuple(plan.config["event_families"]),
            runner=runner, shard_size=run.pattern_shard_size, show=run.show,
        )
    if plan.base:
        for family in plan.config["families"]:
            chosen[family] += plan.base["families"][family]["chosen_events"]
    fault_point("validate", con=con)
    incremental = (
        {"base": plan.base["version"], "new_sources": len(plan.new_sources), "files_in": new_files}
        if plan.base else None
    )
    facts = checked_facts(code=plan.code, content=plan.content, config=plan.config, fetched=plan.fetched,
                          ingest=ingest, chosen=chosen, incremental=incremental)
    patterns, move_patterns, expectations = _tables_and_suites(con, stage, plan, run, runner, facts=facts,
                                                               timings=timings)
    version = next_version(plan.layout, plan.content)
    runs = [] if patterns.base else list(plan.previous_runs)
    if patterns.run is not None:
        digest, size = tree_digest(patterns.run)
        runs.append({"version": version, "sha256": digest, "bytes": size})
    manifest = release_manifest(
        facts, runs=runs, row_counts={t: count_rows(con, t) for t in PUBLISHED},
        expectations={table: expectations[table] for table in PUBLISHED}, timings=timings, ingest_cpu=cpu,
    )
    staged = {"pattern_stats": patterns.published, "move_patterns": move_patterns, **staged_tables(stage)}
    with _timed(timings, "publish"):
        publish_release(plan.layout, con, version, manifest, keep, run=patterns.run, staged=staged)
    return version


def _tables_and_suites(
    con: duckdb.DuckDBPyConnection, stage: Path, plan: Plan, run: Run, runner: Runner, *, facts: Manifest,
    timings: dict[str, float],
) -> tuple[PatternFiles, Path, dict[str, Any]]:
    """Build the analytics, pattern_stats, pattern_tail and move_patterns and run every suite against the manifest's
    `facts`; returns the pattern files (pattern_stats and the new run of the complete counts), the move_patterns file
    and the suites' results.

    The analytics of games and moves, and the suites of their tables, run while pattern_stats is built.
    """
    with _side_tasks(con) as side:
        game_analytics = side(build_game_analytics, plan.config)
        game_suites = side(validate_tables, facts, tables=GAME_TABLES, wait_for=[game_analytics])
        with _timed(timings, "aggregate"):
            patterns = pattern_stats_file(
                con, stage, families=plan.config["families"], previous=plan.previous,
                previous_runs=[plan.layout.run_dir(entry["version"]) for entry in plan.previous_runs],
                min_occurrence=plan.config["min_occurrence"], runner=runner, show=run.show,
            )
            build_pattern_tail(con, left_out=patterns.tail, min_occurrence=plan.config["min_occurrence"])
        fault_point("aggregate")
        templates = side(build_templates, plan.config)  # while move_patterns is written and the suites run
        with _timed(timings, "move_patterns"):
            move_patterns = move_patterns_file(con, stage, families=plan.config["event_families"],
                                               previous=plan.previous, first_source=plan.first_new_source)
        with _timed(timings, "analytics"):
            game_analytics.result()  # its own error first (the suites then never ran)
            expectations: dict[str, Any] = game_suites.result()
        with _timed(timings, "validate"):
            expectations |= validate_tables(con, facts, tables=["pattern_tail", "pattern_stats", "move_patterns"])
            templates.result()
            expectations |= validate_tables(con, facts, tables=["dont_care_templates"])
    return patterns, move_patterns, expectations


@contextlib.contextmanager
def _side_tasks(con: duckdb.DuckDBPyConnection) -> Iterator[Callable[..., PrefectFuture[Any]]]:
    """Yield `side(task, *args, **kwargs)`: submit a task that takes a DuckDB connection first, with its own cursor
    of `con`, to run on one of the flow's threads while the build goes on.

    On leaving, wait for every side task and close its cursor; if the build failed, interrupt
    their queries first.
    """
    started: list[tuple[duckdb.DuckDBPyConnection, PrefectFuture[Any]]] = []

    def side(work: Task[..., Any], *args: object, **kwargs: object) -> PrefectFuture[Any]:
        cursor = con.cursor()
        started.append((cursor, work.submit(cursor, *args, **kwargs)))
        return started[-1][1]

    try:
        yield side
    except BaseException:
        for cursor, _ in started:
            cursor.interrupt()
        raise
    finally:
        for cursor, future in started:
            future.wait()
            cursor.close()


@contextlib.contextmanager
def _timed(timings: dict[str, float], phase: str) -> Iterator[None]:
    """Record the wall seconds of a phase (the manifest's `timings`, the benchmark's profile)."""
    start = time.perf_counter()
    yield
    timings[phase] = round(time.perf_counter() - start, 3)
    get_run_logger().info("%s took %.2f s", phase, timings[phase])
