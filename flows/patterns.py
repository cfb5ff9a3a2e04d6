"""The build's pattern tasks: extract counts and chosen events in shards, sum the counts into the build state and
pattern_stats, write the events as move_patterns, and merge both with a previous release."""

from __future__ import annotations

import contextlib
import functools
import itertools
import shutil
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from prefect import task
from prefect.cache_policies import NO_CACHE

from gopat.effects.parquet import (
    merge_move_patterns,
    merge_pattern_counts,
    pattern_counts_writer,
    write_move_patterns,
)
from gopat.effects.warehouse.lock import fault_point
from gopat.flows.ingest import batched, table_name
from gopat.flows.progress import progress
from gopat.flows.shards import extract_shard, shard_executor
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.games.packed import GameMoves

SUM_ROWS_PER_QUERY = 4_000_000  # shard rows summed (and keys described) per part: bounded memory
SAMPLE_SHARDS = 4  # shards whose keys give the parts' key ranges
STATE_FILE = "pattern_counts.parquet"  # the build's complete counts in its stage (docs/releases.md#build-state)


@task(cache_policy=NO_CACHE)
def extract_shards(
    con: duckdb.DuckDBPyConnection,
    replays: dict[str, GameMoves],
    stage: Path,
    *,
    families: tuple[str, ...],
    event_families: tuple[str, ...] = (),
    workers: int,
    shard_size: int,
    show: str,
    runner: str,
) -> dict[str, int]:
    """Extract pattern counts of the kept games this build replayed, in worker processes, a Parquet file a shard
    (patterns/), and the chosen events of `event_families` (events/, the rows of move_patterns).

    Shards have `shard_size` games, in game_id order, fewer when there are too few games to give
    every worker one.
    """
    ordered = con.execute("SELECT game_id FROM games ORDER BY game_id").fetchall()
    kept = [game_id for (game_id,) in ordered if game_id in replays]
    shard_size = min(shard_size, max(1, -(-len(kept) // workers)))
    folder, events_folder = stage / "patterns", stage / "events"
    for path in (folder, events_folder):
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
    chosen_events = dict.fromkeys(families, 0)
    batches = list(batched(kept, shard_size)) if kept else [[]]
    calls = (  # a shard's games are gathered when it is submitted, its results dropped once written
        functools.partial(extract_shard, [replays[g] for g in batch], families, game_ids=batch,
                          event_families=event_families)
        for batch in batches
    )
    with (_memory_returned(con), shard_executor(workers=workers, runner=runner) as pool,
          progress(show, "patterns", len(batches)) as advance):
        for i, (parquet, events, counts) in enumerate(pool.results(calls)):
            (folder / f"shard-{i:05d}.parquet").write_bytes(parquet)
            (events_folder / f"shard-{i:05d}.parquet").write_bytes(events)
            for family, count in counts.items():
                chosen_events[family] += count
            advance(f"shards of {shard_size} games")
            if i == 0:
                fault_point("extract")  # the cancellation tests: workers are alive here
    return chosen_events


@task(cache_policy=NO_CACHE)
def aggregate_patterns(
    con: duckdb.DuckDBPyConnection, stage: Path, *, state: Path, published: Path | None,
    min_occurrence: Mapping[str, int], show: str,
) -> None:
    """Sum the shards' canonical counts in DuckDB into Parquet file `state` (the complete counts) and, if `published`
    is given, write the rows of pattern_stats kept by `min_occurrence` to it, described.

    Each family and symmetry is summed in key ranges of about SUM_ROWS_PER_QUERY shard rows (cut at
    approximate quantiles of the keys), in key order, so neither the sum nor the files need more
    memory than one range, and the tables come out sorted without a global sort. Each range is
    written on a thread while DuckDB sums the next one, in row groups that do not depend on the
    ranges (effects/parquet.py pattern_counts_writer).
    """
    shards = sorted((stage / "patterns").glob("*.parquet"))  # extract_shards writes one at least
    view(con, "pattern_shards", shards)
    view(con, "pattern_shards_sample", shards[:: -(-len(shards) // SAMPLE_SHARDS)])
    counts = con.execute("SELECT family, symmetry, count(*) FROM pattern_shards GROUP BY ALL ORDER BY ALL").fetchall()
    parts = [(family, symmetry, bounds) for family, symmetry, rows in counts
             for bounds in _key_ranges(con, family, symmetry, -(-rows // SUM_ROWS_PER_QUERY))]
    with (
        progress(show, "pattern_stats", len(parts)) as advance,
        pattern_counts_writer(state, published=published, min_occurrence=min_occurrence) as write,
    ):
        for family, symmetry, (lo, hi) in parts:
            con.execute(
                "SET VARIABLE summed_part = {'family': ?, 'symmetry': ?, 'lo': ?::BIGINT, 'hi': ?::BIGINT}",
                [family, symmetry, lo, hi],
            )
            write((family, symmetry), con.sql(sql_text("pattern_counts")).to_arrow_table())
            advance(f"{family} {symmetry}")


@task(cache_policy=NO_CACHE)
def merge_state(
    previous: Path, new: Path, *, state: Path, published: Path, min_occurrence: Mapping[str, int], show: str
) -> None:
    """Write the complete counts of an incremental build to `state`, the previous state plus the new games' counts,
    and the rows of pattern_stats they give to `published`.

    Both inputs are sorted by family, symmetry and key (as aggregate_patterns writes them) and are
    merged in one pass, a row group at a time (effects/parquet.py merge_pattern_counts), so memory
    holds a few row groups whatever the corpus size; a key whose combined count reaches its family's
    threshold is published exactly as a full build publishes it.
    """
    with pattern_counts_writer(state, published=published, min_occurrence=min_occurrence) as write:
        merge_pattern_counts(previous, new, write, progress=functools.partial(progress, show, "pattern_stats merge"))


@task(cache_policy=NO_CACHE)
def move_patterns_file(
    con: duckdb.DuckDBPyConnection, stage: Path, *, families: Sequence[str], previous: Path | None
) -> Path:
    """Write the release's move_patterns file from the event shards in `stage` and create its view.

    The shards hold consecutive games in game_id order, so a full build writes them family by
    family as they are, without a sort. An incremental build (`previous`: the release it extends)
    interleaves each family's previous rows with the new games' by game (effects/parquet.py
    merge_move_patterns); the new games' ids never occur in the previous release, so the result is
    the full build's table.
    """
    out = stage / "move_patterns.parquet"
    shards = sorted((stage / "events").glob("*.parquet"))  # extract_shards writes one at least
    if previous is None:
        parts: Iterator[tuple[str, pa.Table]] = (
            (family, pq.read_table(shard, filters=[("family", "=", family)]))
            for family in sorted(families) for shard in shards
        )
    else:
        parts = (
            (family, rows)
            for family in sorted(families)
            for rows in merge_move_patterns(previous / "move_patterns.parquet", shards, family)
        )
    view(con, "move_patterns", [write_move_patterns(out, parts)])
    return out


@contextlib.contextmanager
def _memory_returned(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """While in the block, DuckDB's allocator gives the memory that queries freed back to the system in the
    background: during extraction the flow's DuckDB holds about 1 GB freed by the ingest queries
    (pro-sample), next to the workers at their peak (BENCHMARKS.md, session 16)."""
    con.execute("SET allocator_background_threads = true")
    try:
        yield
    finally:
        con.execute("RESET allocator_background_threads")


def _key_ranges(
    con: duckdb.DuckDBPyConnection, family: str, symmetry: int, parts: int
) -> list[tuple[int | None, int | None]]:
    """`parts` consecutive [lo, hi) ranges (None: unbounded) of one family's and symmetry's shard keys.

    Cut at quantiles of the keys of a few shards spread over the corpus (view pattern_shards_sample):
    every shard counts the patterns of its own games, and the ranges need only be about even.
    """
    if parts <= 1:
        return [(None, None)]
    row = con.execute(
        "SELECT approx_quantile(key, ?::FLOAT[]) FROM pattern_shards_sample WHERE family = ? AND symmetry = ?",
        [[i / parts for i in range(1, parts)], family, symmetry],
    ).fetchone()
    assert row is not None  # an aggregate has one row
    bounds: list[int | None] = [None, *sorted(set(row[0])), None]
    return list(itertools.pairwise(bounds))


def pattern_stats_file(
    con: duckdb.DuckDBPyConnection, stage: Path, *, previous_state: Path | None, min_occurrence: Mapping[str, int],
    show: str,
) -> Path:
    """Write the release's pattern_stats file and the build's complete counts (`stage / STATE_FILE`) from the shards
    in `stage`, and create the views the suites read; returns the pattern_stats file.

    A full build aggregates the shards; an incremental one (`previous_state`: the complete counts of
    the release it extends) aggregates the new games' shards and merges them with the previous state.
    The views are pattern_stats, pattern_counts (the complete counts) and, in an incremental build,
    pattern_counts_previous and pattern_counts_new.
    """
    out, state = stage / "pattern_stats.parquet", stage / STATE_FILE
    if previous_state is None:
        aggregate_patterns(con, stage, state=state, published=out, min_occurrence=min_occurrence, show=show)
    else:
        new = stage / "pattern_counts_new.parquet"
        aggregate_patterns(con, stage, state=new, published=None, min_occurrence=min_occurrence, show=show)
        merge_state(previous_state, new, state=state, published=out, min_occurrence=min_occurrence, show=show)
        view(con, "pattern_counts_previous", [previous_state])
        view(con, "pattern_counts_new", [new])
    view(con, "pattern_stats", [out])
    view(con, "pattern_counts", [state])
    return out


def view(con: duckdb.DuckDBPyConnection, name: str, paths: Sequence[Path]) -> None:
    """Create or replace view `name` of Parquet files `paths` (a relation: the paths are values, not SQL text)."""
    con.read_parquet([str(path) for path in paths]).create_view(table_name(name), replace=True)
