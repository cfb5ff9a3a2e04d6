"""The build flow: fetch sources, ingest, extract patterns, aggregate in SQL, validate, publish."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from importlib import import_module
from itertools import islice
from pathlib import Path
from typing import TypeVar

import duckdb
import polars as pl
from prefect import Task, flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.futures import PrefectFuture

from gopat.effects.parquet import merge_pattern_stats_files, pattern_stats_writer
from gopat.effects.warehouse.fetch import Fetched, check_sources, fetch
from gopat.effects.warehouse.layout import (
    Layout,
    code_version,
    content_hash,
    created_now,
    current_version,
    next_version,
    read_manifest,
)
from gopat.effects.warehouse.lock import build_lock, fault_point
from gopat.effects.warehouse.publish import publish
from gopat.flows.artifacts import publish_artifacts
from gopat.flows.progress import progress
from gopat.flows.shards import check_runner, extract_shard, shard_executor
from gopat.transforms.analytics.counting import build_game_counts
from gopat.transforms.analytics.openings import build_fuseki, build_opening_tree
from gopat.transforms.analytics.sql import sql_text
from gopat.transforms.games.archives import Limits, MemberReject, iter_members
from gopat.transforms.games.records import GAMES_SCHEMA, MOVES_SCHEMA, REJECTS_SCHEMA, ingest_members, reject_row
from gopat.transforms.patterns.extract import GameMoves
from gopat.transforms.patterns.families import DEFAULT_FAMILIES, FAMILIES
from gopat.transforms.patterns.templates import DEFAULT_MIN_OCCURRENCE, build_dont_care_templates

T = TypeVar("T")
PUBLISHED = (
    "games", "moves", "rejects", "pattern_stats", "fuseki", "opening_tree", "dont_care_templates", "game_counts",
)
GAME_TABLES = ("games", "moves", "rejects", "fuseki", "opening_tree", "game_counts")  # need no pattern_stats
SUM_ROWS_PER_QUERY = 4_000_000  # shard rows summed (and keys described) per part: bounded memory
SAMPLE_SHARDS = 4  # shards whose keys give the parts' key ranges
DUCKDB_MEMORY = "2GB"  # the build's DuckDB spills to staging/ beyond this (with workers: peak <= 4 GiB)


class ExpectationsFailed(RuntimeError):
    """At least one expectation suite failed; nothing was published."""


class NoGames(ValueError):
    """The sources hold no game; nothing was published."""


@dataclass(frozen=True, slots=True)
class Ingest:
    """The ingest equation: files_in == files_ingested + files_rejected."""

    files_in: int
    files_ingested: int
    files_rejected: int
    games: int = 0
    duplicates: int = 0

    @property
    def balanced(self) -> bool:
        """True when every file is accounted for."""
        return self.files_in == self.files_ingested + self.files_rejected

    def line(self) -> str:
        """The one-line summary every build prints."""
        return (
            f"files in {self.files_in} = ingested {self.files_ingested} + rejected {self.files_rejected} "
            f"({'holds' if self.balanced else 'BROKEN'}); games {self.games}, duplicates {self.duplicates}"
        )


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of `size` items (the last may be shorter)."""
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def _retry_io_only(task, task_run, state) -> bool:
    """Retry I/O failures (network, disk), never bad input such as a checksum mismatch."""
    try:
        state.result()
    except OSError:
        return True
    except Exception:
        return False
    return False


@task(retries=3, retry_delay_seconds=[1, 4, 10], retry_condition_fn=_retry_io_only, cache_policy=NO_CACHE)
def fetch_source(source: str, raw_dir: Path, expected_sha256: str | None) -> Fetched:
    """Fetch one source into raw/ and verify its checksum."""
    fetched = fetch(source, raw_dir=raw_dir, expected_sha256=expected_sha256)
    get_run_logger().info("fetched %s (sha256 %s)", source, fetched.sha256)
    return fetched


def _append(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> None:
    """Append a polars frame to a DuckDB table, creating the table from the frame's schema."""
    con.register("chunk", frame)
    con.execute(f"CREATE TABLE IF NOT EXISTS {table} AS FROM chunk LIMIT 0")
    con.execute(f"INSERT INTO {table} FROM chunk")
    con.unregister("chunk")


@task(cache_policy=NO_CACHE)
def ingest_sources(
    fetched: list[Fetched],
    con: duckdb.DuckDBPyConnection,
    *,
    workers: int,
    shard_size: int,
    show: str,
    runner: str,
    first_index: int = 0,
) -> tuple[Ingest, dict[str, GameMoves], dict[str, float]]:
    """Parse and replay every member in worker processes into games_all, moves_all, rejects_all.

    `first_index` is the position of `fetched[0]` among the build's sources (the order that picks
    which copy of a duplicate game is kept). Also returns the CPU seconds the workers spent parsing
    and replaying (the benchmark's profile).
    """
    logger = get_run_logger()
    _append(con, "games_all", pl.DataFrame(schema={**GAMES_SCHEMA, "source_index": pl.Int32}))
    _append(con, "moves_all", pl.DataFrame(schema=MOVES_SCHEMA))
    _append(con, "rejects_all", pl.DataFrame(schema=REJECTS_SCHEMA))
    replays: dict[str, GameMoves] = {}
    files_in = files_ingested = 0
    cpu = {"parse_cpu": 0.0, "replay_cpu": 0.0}
    with shard_executor(workers=workers, runner=runner) as pool:
        for index, source in enumerate(fetched, start=first_index):
            futures: deque[Future] = deque()  # results are dropped as they are read (bounded memory)
            for batch in batched(iter_members(source.path, limits=Limits()), shard_size):
                files_in += len(batch)
                members = [(m.name, m.data) for m in batch if not isinstance(m, MemberReject)]
                rejected = [
                    reject_row(source.source, source.sha256, m.name, m.reason, m.message)
                    for m in batch
                    if isinstance(m, MemberReject)
                ]
                _append(con, "rejects_all", pl.DataFrame(rejected, schema=REJECTS_SCHEMA))
                futures.append(pool.submit(ingest_members, members, source=source.source, source_sha256=source.sha256))
            with progress(show, f"ingest {source.source}", len(futures)) as advance:
                while futures:
                    shard = futures.popleft().result()
                    _append(con, "games_all", shard.games.with_columns(source_index=pl.lit(index, pl.Int32)))
                    _append(con, "moves_all", shard.moves)
                    _append(con, "rejects_all", shard.rejects)
                    replays.update(shard.replays)
                    files_ingested += shard.files_ingested
                    cpu["parse_cpu"] += shard.seconds["parse"]
                    cpu["replay_cpu"] += shard.seconds["replay"]
                    advance(f"{files_in} files, {len(replays)} games")
    for source, member, reason, message in con.execute("SELECT source, member, reason, message FROM rejects_all").fetchall():
        logger.warning("rejected %s %s: %s: %s", source, member or "(whole source)", reason, message)
    files_rejected = con.execute("SELECT count(*) FROM rejects_all").fetchone()[0]
    ingest = Ingest(files_in=files_in, files_ingested=files_ingested, files_rejected=files_rejected)
    return ingest, replays, {phase: round(seconds, 3) for phase, seconds in cpu.items()}


@task(cache_policy=NO_CACHE)
def carry_previous(con: duckdb.DuckDBPyConnection, folder: Path, previous: Ingest, ingest: Ingest) -> Ingest:
    """Add a previous release's games, moves and rejects (in `folder`) to those of this build's new sources.

    An incremental build parses only its new sources. The previous games come first in source
    order, so a new game that repeats one of them is the duplicate. Returns the ingest counts of
    both, with the previous release's duplicates.
    """
    con.execute(f"INSERT INTO games_all BY NAME SELECT *, -1 AS source_index FROM {_parquet(folder / 'games.parquet')}")
    con.execute(f"INSERT INTO moves_all BY NAME FROM {_parquet(folder / 'moves.parquet')}")
    con.execute(f"INSERT INTO rejects_all BY NAME FROM {_parquet(folder / 'rejects.parquet')}")
    return Ingest(
        files_in=previous.files_in + ingest.files_in,
        files_ingested=previous.files_ingested + ingest.files_ingested,
        files_rejected=previous.files_rejected + ingest.files_rejected,
        duplicates=previous.duplicates,
    )


@task(cache_policy=NO_CACHE)
def build_game_tables(con: duckdb.DuckDBPyConnection, ingest: Ingest) -> Ingest:
    """Deduplicate games and build `games`, `moves`, `rejects` in SQL.

    `ingest.duplicates` counts duplicates found before (by the release an incremental build extends).
    """
    for table in ("games", "moves", "rejects"):
        con.execute(sql_text(table))
    games = con.execute("SELECT count(*) FROM games").fetchone()[0]
    parsed = con.execute("SELECT count(*) FROM games_all").fetchone()[0]
    return Ingest(**{**asdict(ingest), "games": games, "duplicates": ingest.duplicates + parsed - games})


@task(cache_policy=NO_CACHE)
def extract_shards(
    con: duckdb.DuckDBPyConnection,
    replays: dict[str, GameMoves],
    stage: Path,
    *,
    families: tuple[str, ...],
    workers: int,
    shard_size: int,
    show: str,
    runner: str,
) -> dict[str, int]:
    """Extract pattern counts of the kept games this build replayed, in worker processes, a Parquet file a shard.

    Shards have `shard_size` games, fewer when there are too few games to give every worker one.
    """
    ordered = con.execute("SELECT game_id FROM games ORDER BY game_id").fetchall()
    kept = [game_id for (game_id,) in ordered if game_id in replays]
    shard_size = min(shard_size, max(1, -(-len(kept) // workers)))
    folder = stage / "patterns"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    chosen_events = dict.fromkeys(families, 0)
    with shard_executor(workers=workers, runner=runner) as pool:
        futures = deque(  # results (Parquet bytes) are dropped as they are written (bounded memory)
            pool.submit(extract_shard, [replays[g] for g in batch], families)
            for batch in (batched(kept, shard_size) if kept else [[]])
        )
        with progress(show, "patterns", len(futures)) as advance:
            for i in range(len(futures)):
                parquet, events = futures.popleft().result()
                (folder / f"shard-{i:05d}.parquet").write_bytes(parquet)
                for family, count in events.items():
                    chosen_events[family] += count
                advance(f"shards of {shard_size} games")
    return chosen_events


@task(cache_policy=NO_CACHE)
def aggregate_patterns(con: duckdb.DuckDBPyConnection, stage: Path, *, out: Path, show: str) -> Path:
    """Sum the shards' canonical counts in DuckDB and write them, described, to Parquet file `out`.

    Each family and symmetry is summed in key ranges of about SUM_ROWS_PER_QUERY shard rows (cut at
    approximate quantiles of the keys), in key order, so neither the sum nor the file needs more
    memory than one range, and the table comes out sorted without a global sort. Each range is
    described and written on a thread while DuckDB sums the next one, in row groups that do not
    depend on the ranges (effects/parquet.py pattern_stats_writer). Returns `out`: the file of `pattern_stats` the release
    publishes, or of the new games' counts in an incremental build.
    """
    shards = sorted((stage / "patterns").glob("*.parquet"))  # extract_shards writes one at least
    con.execute(f"CREATE OR REPLACE VIEW pattern_shards AS SELECT * FROM {_parquet(shards)}")
    sample = shards[:: -(-len(shards) // SAMPLE_SHARDS)]
    con.execute(f"CREATE OR REPLACE VIEW pattern_shards_sample AS SELECT * FROM {_parquet(sample)}")
    counts = con.execute("SELECT family, symmetry, count(*) FROM pattern_shards GROUP BY ALL ORDER BY ALL").fetchall()
    parts = [(family, symmetry, bounds) for family, symmetry, rows in counts
             for bounds in _key_ranges(con, family, symmetry, -(-rows // SUM_ROWS_PER_QUERY))]
    with progress(show, "pattern_stats", len(parts)) as advance, pattern_stats_writer(out) as write:
        for family, symmetry, (lo, hi) in parts:
            con.execute(
                "SET VARIABLE summed_part = {'family': ?, 'symmetry': ?, 'lo': ?::BIGINT, 'hi': ?::BIGINT}",
                [family, symmetry, lo, hi],
            )
            summed = con.sql(sql_text("pattern_stats")).to_arrow_table()
            write((family, symmetry), summed)
            advance(f"{family} {symmetry}")
    return out


@task(cache_policy=NO_CACHE)
def merge_pattern_stats(previous: Path, new: Path, out: Path, *, show: str) -> Path:
    """Write `pattern_stats` of an incremental build to `out`: the previous release's file plus the new games'.

    Both files are sorted by family, symmetry and key, in row groups of one family and symmetry (as
    aggregate_patterns writes them). They are merged in one pass, a row group at a time
    (effects/parquet.py merge_pattern_stats_files), so memory holds a few row groups whatever the
    corpus size. Returns `out`.
    """
    merge_pattern_stats_files(previous, new, out, progress=functools.partial(progress, show, "pattern_stats merge"))
    return out


def _key_ranges(con: duckdb.DuckDBPyConnection, family: str, symmetry: int, parts: int) -> list[tuple]:
    """`parts` consecutive [lo, hi) ranges (None: unbounded) of one family's and symmetry's shard keys.

    Cut at quantiles of the keys of a few shards spread over the corpus (view pattern_shards_sample):
    every shard counts the patterns of its own games, and the ranges need only be about even.
    """
    if parts <= 1:
        return [(None, None)]
    cuts = con.execute(
        "SELECT approx_quantile(key, ?::FLOAT[]) FROM pattern_shards_sample WHERE family = ? AND symmetry = ?",
        [[i / parts for i in range(1, parts)], family, symmetry],
    ).fetchone()[0]
    bounds = [None, *sorted(set(cuts)), None]
    return list(zip(bounds[:-1], bounds[1:]))


@task(cache_policy=NO_CACHE)
def build_game_analytics(con: duckdb.DuckDBPyConnection, config: dict) -> None:
    """Fuseki, opening tree and game counts: the analytics of games and moves (DuckDB SQL)."""
    build_fuseki(con, moves=config["fuseki_moves"])
    build_opening_tree(con, moves=config["fuseki_moves"])
    build_game_counts(con, max_moves=config["game_counts_moves"])


@task(cache_policy=NO_CACHE)
def build_templates(con: duckdb.DuckDBPyConnection, config: dict) -> None:
    """Don't-care templates: the analytics of pattern_stats (DuckDB SQL)."""
    build_dont_care_templates(
        con, families=config["template_families"], min_occurrence=config["template_min_occurrence"]
    )


@task(cache_policy=NO_CACHE)
def validate_tables(con: duckdb.DuckDBPyConnection, manifest: dict, *, tables: Sequence[str]) -> dict[str, dict]:
    """Run the expectation suite of each of `tables`; raise if any fails."""
    logger = get_run_logger()
    results, failures = {}, []
    for table in tables:
        result = import_module(f"gopat.expectations.{table}").validate(con, manifest=manifest)
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
    manifest: dict,
    keep: int | None = None,
    staged: dict[str, Path] | None = None,
) -> Path:
    """Write the release atomically, switch CURRENT, refresh the catalog, keep the `keep` newest releases.

    `staged`: tables already written as Parquet files (hard-linked into the release).
    """
    path = publish(layout, con, version=version, tables=list(PUBLISHED), manifest=manifest, keep=keep, staged=staged)
    get_run_logger().info("published %s", path)
    return path


@flow(name="build-release")
def build_release(
    sources: list[str],
    warehouse: str = "warehouse",
    expected_sha256: list[str | None] | None = None,
    families: tuple[str, ...] = DEFAULT_FAMILIES,
    workers: int = 0,
    shard_size: int = 200,
    pattern_shard_size: int = 1000,
    show_progress: str = "auto",
    runner: str = "local",
    fuseki_moves: int = 10,
    template_families: tuple[str, ...] = ("sq3", "dia13"),
    template_min_occurrence: int = DEFAULT_MIN_OCCURRENCE,
    game_counts_moves: int = 12,
    keep: int | None = None,
) -> dict:
    """Build and publish a release from `sources` (URLs, archives, SGF files or folders).

    `expected_sha256` pairs with `sources` by position; `workers=0` uses every core; ingest works
    in shards of `shard_size` files, extraction in shards of `pattern_shard_size` games;
    `show_progress` is 'auto', 'bar', 'log' or 'quiet' (flows/progress.py); `runner` is where shard
    work runs: 'local' processes, 'dask' (a temporary local Dask cluster) or a Dask scheduler
    address (flows/shards.py); it does not change the release. Templates are
    built for the `template_families` that are also in `families`, from patterns seen at least
    `template_min_occurrence` times; `keep` is how many releases to keep (None: all). Returns the
    manifest of the published (or current) release.
    """
    logger = get_run_logger()
    check_sources(sources)
    layout = Layout(Path(warehouse).resolve())
    expected = list(expected_sha256 or []) + [None] * (len(sources) - len(expected_sha256 or []))
    workers = workers or os.cpu_count() or 1
    check_runner(runner)
    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        raise ValueError(f"unknown pattern families {unknown}; known: {sorted(FAMILIES)}")
    timings: dict[str, float] = {}
    with build_lock(layout):
        with _timed(timings, "fetch"):
            fetched = _unique([fetch_source(s, layout.raw, e) for s, e in zip(sources, expected, strict=True)])
        config = {
            "families": sorted(families),
            "fuseki_moves": fuseki_moves,
            "template_families": [f for f in template_families if f in families],
            "template_min_occurrence": template_min_occurrence,
            "game_counts_moves": game_counts_moves,
        }
        code = code_version()
        content = content_hash(
            source_sha256s=[f.sha256 for f in fetched], code=code, config=config,
            sources=[f.source for f in fetched],
        )
        current = current_version(layout)
        if current is not None and current.endswith(f"-{content}"):
            logger.info("release %s already has these inputs, code and config: nothing new to publish", current)
            publish_artifacts(layout, read_manifest(layout, current), published=False)
            return read_manifest(layout, current)
        base = _incremental_base(layout, current, fetched, code=code, config=config)
        new_sources = fetched[len(base["sources"]):] if base else fetched
        previous = layout.release_dir(base["version"]) if base else None
        if base:
            logger.info("incremental build: release %s plus %d new source(s)", base["version"], len(new_sources))
        stage = layout.staging / content
        shutil.rmtree(stage, ignore_errors=True)
        stage.mkdir(parents=True)
        con = duckdb.connect(
            str(stage / "work.duckdb"),
            config={
                "memory_limit": DUCKDB_MEMORY,
                "temp_directory": str(stage / "spill"),
                "threads": workers,
            },
        )
        try:
            with _timed(timings, "ingest"):
                ingest, replays, cpu = ingest_sources(
                    new_sources, con, workers=workers, shard_size=shard_size, show=show_progress, runner=runner,
                    first_index=len(fetched) - len(new_sources),
                )
                new_files = ingest.files_in
                if base:
                    ingest = carry_previous(con, previous, Ingest(**base["ingest"]), ingest)
                ingest = build_game_tables(con, ingest)
            logger.info(ingest.line())
            if ingest.games == 0:
                raise NoGames(_no_games(con, [f.source for f in fetched], ingest))
            fault_point("ingest")
            with _timed(timings, "extract"):
                chosen = extract_shards(
                    con, replays, stage, families=tuple(families), workers=workers,
                    shard_size=pattern_shard_size, show=show_progress, runner=runner,
                )
            if base:
                for family in families:
                    chosen[family] += base["families"][family]["chosen_events"]
            fault_point("validate", con=con)
            with _side_tasks(con) as side:
                # the analytics of games and moves, and the suites of their tables, run while pattern_stats is built
                game_analytics = side(build_game_analytics, config)
                game_suites = side(
                    validate_tables, {"ingest": asdict(ingest)}, tables=GAME_TABLES, wait_for=[game_analytics]
                )
                with _timed(timings, "aggregate"):
                    pattern_stats = _pattern_stats(con, stage, previous=previous, show=show_progress)
                fault_point("aggregate")
                templates = side(build_templates, config)  # while the pattern_stats suite runs
                with _timed(timings, "analytics"):
                    game_analytics.result()  # its own error first (the suites then never ran)
                    expectations = game_suites.result()
                manifest = {
                    "created": created_now(),
                    "code_version": code,
                    "content_hash": content,
                    "config": config,
                    "sources": [{"source": f.source, "sha256": f.sha256} for f in fetched],
                    "ingest": asdict(ingest),
                    "families": {f: {"chosen_events": chosen[f]} for f in families},
                    "incremental": {"base": base["version"], "new_sources": len(new_sources), "files_in": new_files}
                    if base else None,
                }
                with _timed(timings, "validate"):
                    expectations |= validate_tables(con, manifest, tables=["pattern_stats"])
                    templates.result()
                    expectations |= validate_tables(con, manifest, tables=["dont_care_templates"])
            manifest["row_counts"] = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in PUBLISHED}
            manifest["expectations"] = {table: expectations[table] for table in PUBLISHED}
            version = next_version(layout, content)
            manifest["timings"] = timings
            manifest["ingest_cpu"] = cpu
            with _timed(timings, "publish"):
                publish_release(layout, con, version, manifest, keep, staged={"pattern_stats": pattern_stats})
        finally:
            con.close()
            shutil.rmtree(stage, ignore_errors=True)
        publish_artifacts(layout, read_manifest(layout, version), published=True)
        return read_manifest(layout, version)


def _no_games(con: duckdb.DuckDBPyConnection, sources: list[str], ingest: Ingest) -> str:
    """Why a build has no game: its sources, the files read and the reasons they were rejected."""
    reasons = con.execute("SELECT reason, count(*) FROM rejects GROUP BY reason ORDER BY 2 DESC, 1").fetchall()
    rejected = ", ".join(f"{count} {reason}" for reason, count in reasons) or "none"
    return (
        f"{', '.join(sources)}: no game in the sources ({ingest.files_in} files in; rejected: {rejected}); "
        "nothing was published"
    )


def _pattern_stats(con: duckdb.DuckDBPyConnection, stage: Path, *, previous: Path | None, show: str) -> Path:
    """Write the release's pattern_stats file from the shards in `stage` and create the views its suite reads.

    A full build aggregates the shards; an incremental one (`previous`: the release it extends)
    aggregates the new games' shards and merges them with the previous release's file.
    """
    out = stage / "pattern_stats.parquet"
    if previous is None:
        pattern_stats = aggregate_patterns(con, stage, out=out, show=show)
    else:
        new = aggregate_patterns(con, stage, out=stage / "pattern_stats_new.parquet", show=show)
        pattern_stats = merge_pattern_stats(previous / "pattern_stats.parquet", new, out, show=show)
        _view(con, "pattern_stats_previous", previous / "pattern_stats.parquet")
        _view(con, "pattern_stats_new", new)
    _view(con, "pattern_stats", pattern_stats)
    return pattern_stats


def _incremental_base(
    layout: Layout, current: str | None, fetched: Sequence[Fetched], *, code: str, config: dict
) -> dict | None:
    """The manifest of the current release when this build can extend it, else None.

    It can when it was built by the same code and config from the first of `fetched` (same names,
    same sha256), at least one source is new, and its files are all there. Only the new sources
    are then parsed (the previous games, moves and rejects come from its files) and its
    pattern_stats file is merged with the new games' counts.
    """
    if current is None:
        return None
    manifest = read_manifest(layout, current)
    given = [{"source": f.source, "sha256": f.sha256} for f in fetched]
    built = manifest.get("sources", [])
    folder = layout.release_dir(current)
    damaged = [
        path.name for path in (folder / f"{table}.parquet" for table in ("games", "moves", "rejects", "pattern_stats"))
        if not path.is_file() or path.stat().st_size != manifest.get("files", {}).get(path.name, {}).get("bytes")
    ]
    reasons = {
        "was built by other code": manifest.get("code_version") != code,
        "has another config": manifest.get("config") != config,
        "was not built from the first of these sources, with at least one new": (
            not 0 < len(built) < len(given) or given[: len(built)] != built),
        f"has missing or resized files: {', '.join(damaged)}": bool(damaged),
    }
    if any(reasons.values()):
        reason = next(reason for reason, holds in reasons.items() if holds)
        get_run_logger().info("full build: the current release %s %s", current, reason)
        return None
    return manifest


def _parquet(paths: Path | Sequence[Path]) -> str:
    """`read_parquet([...])` of one file or a list of files, as SQL."""
    files = [paths] if isinstance(paths, Path) else paths
    return "read_parquet([" + ", ".join("'" + str(path).replace("'", "''") + "'" for path in files) + "])"


def _view(con: duckdb.DuckDBPyConnection, name: str, path: Path) -> None:
    """Create or replace view `name` of the Parquet file `path`."""
    con.execute(f"CREATE OR REPLACE VIEW {name} AS FROM {_parquet(path)}")


@contextlib.contextmanager
def _side_tasks(con: duckdb.DuckDBPyConnection) -> Iterator[Callable[..., PrefectFuture]]:
    """Yield `side(task, *args, **kwargs)`: submit a task that takes a DuckDB connection first, with its own cursor
    of `con`, to run on one of the flow's threads while the build goes on.

    On leaving, wait for every side task and close its cursor; if the build failed, interrupt
    their queries first.
    """
    started: list[tuple[duckdb.DuckDBPyConnection, PrefectFuture]] = []

    def side(work: Task, *args: object, **kwargs: object) -> PrefectFuture:
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
    get_run_logger().info("%s took %.1f s", phase, timings[phase])


def _unique(fetched: Sequence[Fetched]) -> list[Fetched]:
    """Sources in order, each archive once (the same bytes given twice are read once)."""
    seen: dict[str, Fetched] = {}
    for item in fetched:
        seen.setdefault(item.sha256, item)
    return list(seen.values())
