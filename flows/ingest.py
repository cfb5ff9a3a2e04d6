"""The build's ingest tasks: fetch sources, parse and replay their games, build games, moves and rejects."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
from prefect import Task, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State, TaskRun

from gopat.effects.shard_work import Ingested, ingest_shard
from gopat.effects.warehouse.fetch import Fetched, fetch
from gopat.effects.warehouse.manifest import Ingest
from gopat.flows.progress import progress
from gopat.flows.shards import Runner
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.checks import identifier
from gopat.transforms.games.archives import Limits, MemberReject, iter_members
from gopat.transforms.games.records import (
    GAMES_SCHEMA,
    MOVES_SCHEMA,
    REJECTS_SCHEMA,
    SETUPS_SCHEMA,
    reject_row,
)
from gopat.transforms.iteration import batched
from gopat.transforms.tables.macros import install_macros


def _retry_io_only(task: Task[..., Any], task_run: TaskRun, state: State[Any]) -> bool:
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
    table = identifier(table)
    con.register("chunk", frame)
    con.execute(f"CREATE TABLE IF NOT EXISTS {table} AS FROM chunk LIMIT 0")
    con.execute(f"INSERT INTO {table} FROM chunk")
    con.unregister("chunk")


@task(cache_policy=NO_CACHE)
def ingest_sources(
    fetched: list[Fetched],
    con: duckdb.DuckDBPyConnection,
    stage: Path,
    *,
    runner: Runner,
    shard_size: int,
    show: str,
    first_index: int = 0,
) -> tuple[Ingest, dict[str, float]]:
    """Parse and replay every member on the build's `runner` into games_all, moves_all, setups_all, rejects_all.

    Each shard's worker writes its rows to stage/ingest/ (effects/shard_work.py), which are appended
    in shard order and removed. `first_index` is the position of `fetched[0]` among the build's
    sources (the order that picks which copy of a duplicate game is kept). Also returns the CPU
    seconds the workers spent parsing and replaying (the benchmark's profile).
    """
    logger = get_run_logger()
    games_schema: dict[str, Any] = {**GAMES_SCHEMA, "source_index": pl.Int32}
    _append(con, "games_all", pl.DataFrame(schema=games_schema))
    _append(con, "moves_all", pl.DataFrame(schema=MOVES_SCHEMA))
    _append(con, "setups_all", pl.DataFrame(schema=SETUPS_SCHEMA))
    _append(con, "rejects_all", pl.DataFrame(schema=REJECTS_SCHEMA))
    folder = stage / "ingest"
    files_in = files_ingested = trees_in = games = shards = 0
    cpu = {"parse_cpu": 0.0, "replay_cpu": 0.0}

    def calls(index: int, source: Fetched) -> Iterator[Callable[[], Ingested]]:
        """The ingest call of each shard of `source`'s members, read as the pool asks; its rejects are appended."""
        nonlocal files_in, shards
        for batch in batched(iter_members(source.path, limits=Limits()), shard_size):
            files_in += len(batch)
            rejected = [
                reject_row(
                    source.source, source.sha256, m.name, m.reason, m.message,
                    member_raw=m.name_raw, name_guessed=m.name_guessed,
                )
                for m in batch
                if isinstance(m, MemberReject)
            ]
            _append(con, "rejects_all", pl.DataFrame(rejected, schema=REJECTS_SCHEMA))
            members = [m for m in batch if not isinstance(m, MemberReject)]
            shards += 1
            yield functools.partial(ingest_shard, members, source=source.source, source_sha256=source.sha256,
                                    source_index=index, folder=folder, name=f"shard-{shards:06d}")

    with runner.phase() as pool:
        for index, source in enumerate(fetched, start=first_index):
            with progress(show, f"ingest {source.source}", None) as advance:  # shards: unknown until read
                for shard in pool.results(calls(index, source)):
                    for table, path in shard.files.items():
                        con.execute(f"INSERT INTO {identifier(table + '_all')} BY NAME FROM read_parquet(?)",
                                    [str(path)])
                        path.unlink()
                    files_ingested += shard.files_ingested
                    trees_in += shard.trees_in
                    games += shard.games
                    cpu["parse_cpu"] += shard.seconds["parse"]
                    cpu["replay_cpu"] += shard.seconds["replay"]
                    advance(f"{files_in} files read, {games} games")
    rejects = con.execute("SELECT source, member, tree_index, reason, message FROM rejects_all").fetchall()
    for source_name, member, tree, reason, message in rejects:
        where = (member or "(whole source)") + ("" if tree is None else f" tree {tree}")
        logger.warning("rejected %s %s: %s: %s", source_name, where, reason, message)
    files_rejected, trees_rejected = rejected_counts(con)
    ingest = Ingest(
        files_in=files_in, files_ingested=files_ingested, files_rejected=files_rejected,
        trees_in=trees_in, trees_rejected=trees_rejected,
    )
    return ingest, {phase: round(seconds, 3) for phase, seconds in cpu.items()}


@task(cache_policy=NO_CACHE)
def carry_previous(con: duckdb.DuckDBPyConnection, folder: Path, previous: Ingest, ingest: Ingest) -> Ingest:
    """Add a previous release's games, moves, setups and rejects (in `folder`) to those of this build's new sources.

    An incremental build parses only its new sources. The previous games come first in source
    order, so a new game that repeats one of them is the duplicate. Returns the ingest counts of
    both, with the previous release's duplicates.
    """
    games, moves, setups, rejects = (str(folder / f"{t}.parquet") for t in ("games", "moves", "setups", "rejects"))
    con.execute("INSERT INTO games_all BY NAME SELECT *, -1 AS source_index FROM read_parquet(?)", [games])
    con.execute("INSERT INTO moves_all BY NAME FROM read_parquet(?)", [moves])
    con.execute("INSERT INTO setups_all BY NAME FROM read_parquet(?)", [setups])
    con.execute("INSERT INTO rejects_all BY NAME FROM read_parquet(?)", [rejects])
    return Ingest(
        files_in=previous.files_in + ingest.files_in,
        files_ingested=previous.files_ingested + ingest.files_ingested,
        files_rejected=previous.files_rejected + ingest.files_rejected,
        duplicates=previous.duplicates,
        trees_in=previous.trees_in + ingest.trees_in,
        trees_rejected=previous.trees_rejected + ingest.trees_rejected,
    )


@task(cache_policy=NO_CACHE)
def build_game_tables(con: duckdb.DuckDBPyConnection, ingest: Ingest) -> Ingest:
    """Deduplicate games and build `games`, `moves`, `setups`, `rejects` in SQL.

    `ingest.duplicates` counts duplicates found before (by the release an incremental build extends).
    """
    install_macros(con)  # the point column of moves and setups (transforms/tables/registry.py)
    for model in ("models/games", "models/moves", "models/setups", "models/rejects"):
        con.execute(sql_text(model))
    games = count_rows(con, "games")
    parsed = count_rows(con, "games_all")
    return Ingest(**{**asdict(ingest), "games": games, "duplicates": ingest.duplicates + parsed - games})


def rejected_counts(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """Rows of rejects_all for whole files, members and sources, and for single game trees."""
    row = con.execute(sql_text("steps/rejects_counts")).fetchone()
    assert row is not None  # an aggregate has one row
    return int(row[0]), int(row[1])


def count_rows(con: duckdb.DuckDBPyConnection, table: str) -> int:
    """The number of rows of one of the build's tables."""
    row = con.execute(f"SELECT count(*) FROM {identifier(table)}").fetchone()
    assert row is not None  # an aggregate has one row
    return int(row[0])


def no_games(con: duckdb.DuckDBPyConnection, sources: list[str], ingest: Ingest) -> str:
    """Why a build has no game: its sources, the files read and the reasons they were rejected."""
    reasons = con.execute("SELECT reason, count(*) FROM rejects GROUP BY reason ORDER BY 2 DESC, 1").fetchall()
    rejected = ", ".join(f"{count} {reason}" for reason, count in reasons) or "none"
    return (
        f"{', '.join(sources)}: no game in the sources ({ingest.files_in} files in; rejected: {rejected}); "
        "nothing was published"
    )


def unique(fetched: Iterable[Fetched]) -> list[Fetched]:
    """Sources in order, each archive once (the same bytes given twice are read once)."""
    seen: dict[str, Fetched] = {}
    for item in fetched:
        seen.setdefault(item.sha256, item)
    return list(seen.values())
