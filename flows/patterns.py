"""The build's pattern tasks: extract counts and chosen events in shards, sum the counts into the build state and
pattern_stats, write the events as move_patterns, and merge both with a previous release."""

from __future__ import annotations

import contextlib
import functools
import itertools
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from prefect import task
from prefect.cache_policies import NO_CACHE

from gopat.effects.parquet import (
    Tail,
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
NEW_COUNTS_FILE = "pattern_counts_new.parquet"  # an incremental build's counts of its new games, in its stage
# An incremental build merges the state's runs into one new base run when its delta runs, the new games' counts
# included, would outgrow this share of the base run's bytes (docs/releases.md#build-state).
STATE_DELTA_SHARE = 0.25


@dataclass(frozen=True, slots=True)
class PatternFiles:
    """What pattern_stats_file wrote: pattern_stats, the build state's run this build adds, and the tail's tallies."""

    published: Path
    run: Path  # a base run, the complete counts (a full build, or the runs merged), or the new games' counts
    base: bool  # whether `run` is a base run, which replaces the previous runs, or follows them
    tail: pa.Table  # effects/parquet.py Tail.table


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
) -> pa.Table:
    """Sum the shards' canonical counts in DuckDB into Parquet file `state` (the complete counts) and, if `published`
    is given, write the rows of pattern_stats kept by `min_occurrence` to it, described; returns the tallies of the
    rows left out (effects/parquet.py Tail.table).

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
    tail = Tail()
    with (
        progress(show, "pattern_stats", len(parts)) as advance,
        pattern_counts_writer(state, published=published, min_occurrence=min_occurrence, tail=tail) as write,
    ):
        for family, symmetry, (lo, hi) in parts:
            con.execute(
                "SET VARIABLE summed_part = {'family': ?, 'symmetry': ?, 'lo': ?::BIGINT, 'hi': ?::BIGINT}",
                [family, symmetry, lo, hi],
            )
            write((family, symmetry), con.sql(sql_text("pattern_counts")).to_arrow_table())
            advance(f"{family} {symmetry}")
    return tail.table()


@task(cache_policy=NO_CACHE)
def merge_state(
    runs: Sequence[Path], *, state: Path | None, published: Path, min_occurrence: Mapping[str, int], show: str
) -> pa.Table:
    """Write the rows of pattern_stats that the sum of the build state's `runs` (the previous runs, base first, then
    the new games' counts) gives to `published` and, if `state` is given, that sum (a new base run) to `state`;
    returns the tallies of the rows left out.

    Every run is sorted by family, symmetry and key (as aggregate_patterns writes them); they are
    merged in one pass, a row group at a time (effects/parquet.py merge_pattern_counts), so memory
    holds a few row groups a run whatever the corpus size; a key whose combined count reaches its
    family's threshold is published exactly as a full build publishes it.
    """
    tail = Tail()
    with pattern_counts_writer(state, published=published, min_occurrence=min_occurrence, tail=tail) as write:
        merge_pattern_counts(runs, write, progress=functools.partial(progress, show, "pattern_stats merge"))
    return tail.table()


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
    con: duckdb.DuckDBPyConnection, stage: Path, *, previous: Path | None, previous_runs: Sequence[Path],
    min_occurrence: Mapping[str, int], show: str,
) -> PatternFiles:
    """Write the release's pattern_stats file and the build state's new run from the shards in `stage`, and create
    the views the suites read.

    A full build aggregates the shards into the complete counts, its state's one run. An incremental
    one (`previous`: the release it extends, `previous_runs`: its state's runs, base first) aggregates
    the new games' shards and merges them with the previous runs into pattern_stats; the new games'
    counts become the state's next run, or, once the delta runs would outgrow STATE_DELTA_SHARE of the
    base, the merged counts are written as the state's one new base run. So an add writes the counts
    of its games, and the whole state only every so often (docs/releases.md#build-state).

    The views are pattern_stats, pattern_counts (the complete counts, when written) and, in an
    incremental build, pattern_counts_new, pattern_counts_previous (the previous runs, one after
    the other) and the previous release's pattern_stats_previous and pattern_tail_previous.
    """
    out = stage / "pattern_stats.parquet"
    if previous is None:
        state = stage / STATE_FILE
        tail = aggregate_patterns(con, stage, state=state, published=out, min_occurrence=min_occurrence, show=show)
        files = PatternFiles(published=out, run=state, base=True, tail=tail)
    else:
        new = stage / NEW_COUNTS_FILE
        _ = aggregate_patterns(con, stage, state=new, published=None, min_occurrence=min_occurrence, show=show)
        runs = [*previous_runs, new]
        compacted = sum(path.stat().st_size for path in runs[1:]) > STATE_DELTA_SHARE * runs[0].stat().st_size
        state = stage / STATE_FILE
        tail = merge_state(runs, state=state if compacted else None, published=out, min_occurrence=min_occurrence,
                           show=show)
        files = PatternFiles(published=out, run=state if compacted else new, base=compacted, tail=tail)
        view(con, "pattern_counts_previous", previous_runs)
        view(con, "pattern_counts_new", [new])
        view(con, "pattern_stats_previous", [previous / "pattern_stats.parquet"])
        view(con, "pattern_tail_previous", [previous / "pattern_tail.parquet"])
    view(con, "pattern_stats", [out])
    if files.base:
        view(con, "pattern_counts", [files.run])
    return files


def view(con: duckdb.DuckDBPyConnection, name: str, paths: Sequence[Path]) -> None:
    """Create or replace view `name` of Parquet files `paths` (a relation: the paths are values, not SQL text)."""
    con.read_parquet([str(path) for path in paths]).create_view(table_name(name), replace=True)
