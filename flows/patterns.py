"""The build's pattern tasks: extract counts and chosen events in shards, sum the counts in parts on the build's
runner into the run of the complete counts and pattern_stats' part files, and write the events as this build's
move_patterns file."""

from __future__ import annotations

import contextlib
import functools
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from prefect import task
from prefect.cache_policies import NO_CACHE

from gopat.effects.parquet import write_move_patterns
from gopat.effects.pattern_parts import key_sample, part_files, sum_part, write_sample
from gopat.effects.shard_work import StagedGames, extract_range
from gopat.effects.warehouse.catalog import create_view
from gopat.effects.warehouse.files import link, tree_bytes
from gopat.effects.warehouse.lock import fault_point
from gopat.effects.warehouse.publish import export_table
from gopat.flows.progress import progress
from gopat.flows.shards import Runner, ShardPool
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.checks import identifier
from gopat.transforms.patterns.parts import Part, plan_parts
from gopat.transforms.tables.format import FORMAT

SAMPLE_FILE = "sample.parquet"  # a run's key sample, beside its part folders (docs/releases.md#complete-counts)
COUNTS_DIR = "pattern_counts"  # the complete counts (a base run) in the stage (docs/releases.md#complete-counts)
NEW_COUNTS_DIR = "pattern_counts_new"  # an incremental build's counts of its new games (a delta run), in its stage
# An incremental build merges the runs into one new base run when its delta runs, the new games' counts
# included, would outgrow this share of the base run's bytes (docs/releases.md#complete-counts).
DELTA_SHARE = 0.25


@dataclass(frozen=True, slots=True)
class PatternFiles:
    """What pattern_stats_file wrote: pattern_stats' part files, the run of the complete counts this build adds (a
    folder of part files; none without new counts), and the tallies of the keys pattern_stats leaves out."""

    published: Path
    # A base run, the complete counts (a full build, or the runs merged), or the new games' counts; None when an
    # incremental build has no new counts (no new source, or only duplicate games): the release keeps its runs.
    run: Path | None
    base: bool  # whether `run` is a base run, which replaces the previous runs, or follows them
    tail: pa.Table  # family, symmetry, keys, occurrence, chosen (transforms/analytics/tail.py)


@task(cache_policy=NO_CACHE)
def extract_shards(
    con: duckdb.DuckDBPyConnection,
    stage: Path,
    *,
    families: tuple[str, ...],
    event_families: tuple[str, ...] = (),
    runner: Runner,
    shard_size: int,
    show: str,
) -> dict[str, int]:
    """Extract the pattern counts of the kept games this build parsed (patterns/, a file a shard) and the chosen
    events of `event_families` (events/, the rows of move_patterns) on the build's `runner`.

    The games are read back from the staged moves and setups files (stage_games); shards hold
    `shard_size` consecutive games in game_id order, fewer when there are too few games to give
    every worker one. Returns the chosen events per family.
    """
    staged = stage_games(con, stage)
    con.execute("SET VARIABLE shard_size = ?", [shard_size])
    con.execute("SET VARIABLE shard_slots = ?", [runner.slots])
    ranges = con.execute(sql_text("steps/extract_shards")).fetchall() or [(None, None)]
    folder, events_folder = stage / "patterns", stage / "events"
    for path in (folder, events_folder):
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
    chosen_events = dict.fromkeys(families, 0)
    calls = (
        functools.partial(extract_range, staged, first, last, families, event_families=event_families,
                          counts=folder / f"shard-{i:05d}.parquet", events=events_folder / f"shard-{i:05d}.parquet")
        for i, (first, last) in enumerate(ranges)
    )
    with _memory_returned(con), runner.phase() as pool, progress(show, "patterns", len(ranges)) as advance:
        for i, counts in enumerate(pool.results(calls)):
            for family, count in counts.items():
                chosen_events[family] += count
            advance("extraction shards")
            if i == 0:
                fault_point("extract")  # the cancellation tests: workers are alive here
    return chosen_events


def stage_games(con: duckdb.DuckDBPyConnection, stage: Path) -> StagedGames:
    """Write the files extraction reads to `stage`: the release's moves and setups files (staged_tables) and the
    games this build extracts: the kept games of its new sources."""
    tables = staged_tables(stage)
    for table, path in tables.items():
        path.parent.mkdir(exist_ok=True)
        export_table(con, path.parent, table)
    moves, setups = tables["moves"], tables["setups"]
    con.execute(sql_text("steps/extract_games"))
    (games,) = export_table(con, stage, "extract_games")
    return StagedGames(games=games, moves=moves, setups=setups)


def staged_tables(stage: Path) -> dict[str, Path]:
    """The release files of game tables that extraction reads, written in `stage` by stage_games (publish links
    them into the release)."""
    return {table: stage / "tables" / f"{table}.parquet" for table in ("moves", "setups")}


@task(cache_policy=NO_CACHE)
def sum_parts(
    parts: Sequence[Part], inputs: Sequence[Sequence[Path]], *, runs: bool = False, run: Path | None,
    published: Path | None, min_occurrence: Mapping[str, int], pool: ShardPool, show: str,
) -> pa.Table:
    """Sum each of `parts` from its Parquet files `inputs[i]` (shards, or run files if `runs`) and write its
    file of the run folder `run` and of the pattern_stats folder `published` (each if given), as tasks on
    the build's runner `pool` (effects/pattern_parts.py); returns the tallies of the keys pattern_stats leaves out
    per family and symmetry.

    Parts are independent: on this machine two run at once, each in its own process and DuckDB.
    """
    calls = [
        functools.partial(sum_part, part, files, runs=runs, run=run / part.file if run else None,
                          published=published / part.file if published else None,
                          min_occurrence=min_occurrence[part.family])
        for part, files in zip(parts, inputs, strict=True)
    ]
    left: dict[tuple[str, int], tuple[int, int, int]] = {}
    with progress(show, "pattern_stats" if published else "pattern counts", len(calls)) as advance:
        for part, out in zip(parts, pool.results(calls), strict=True):
            keys, occurrence, chosen = left.get((part.family, part.symmetry), (0, 0, 0))
            left[part.family, part.symmetry] = (keys + out.keys, occurrence + out.occurrence, chosen + out.chosen)
            advance(f"{part.family} {part.symmetry}")
    return pa.table({
        "family": pa.array([family for family, _ in left], type=pa.string()),
        "symmetry": pa.array([symmetry for _, symmetry in left], type=pa.int32()),
        **{name: pa.array([sums[i] for sums in left.values()], type=pa.int64())
           for i, name in enumerate(("keys", "occurrence", "chosen"))},
    })


@task(cache_policy=NO_CACHE)
def move_patterns_file(
    con: duckdb.DuckDBPyConnection, stage: Path, *, families: Sequence[str], previous: Path | None, first_source: int
) -> Path:
    """Write this build's move_patterns file from the event shards in `stage`, stage the table's files and create its
    views; returns the staged folder, whose files publish links into the release.

    The table is a folder of one file per build that added games, named by the position of the build's
    first new source (docs/releases.md#move_patterns). The shards hold consecutive games in game_id
    order, so the file is written family by family as they are, without a sort. An incremental build
    (`previous`: the release it extends) links the previous release's files, whose sha256
    effects/warehouse/incremental.py checked, and adds its own when it has rows. Views: move_patterns
    (every file) and, in an incremental build, schema `added` (steps/added_rows.sql): this build's
    games, moves and move_patterns rows, which the move_patterns suite checks.
    """
    folder = stage / "move_patterns"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    shards = sorted((stage / "events").glob("*.parquet"))  # extract_shards writes one at least
    sections = (
        (family, pq.read_table(shard, filters=[("family", "=", family)]))
        for family in sorted(families) for shard in shards
    )
    added = write_move_patterns(stage / "move_patterns_added.parquet", sections)
    if previous is not None:
        for path in sorted((previous / "move_patterns").glob("*.parquet")):
            link(path, folder / path.name)
    if previous is None or pq.read_metadata(added).num_rows:
        link(added, folder / f"{first_source:06d}.parquet")
    view(con, "move_patterns", sorted(folder.glob("*.parquet")), table="move_patterns")
    if previous is not None:
        view(con, "move_patterns_added", [added], table="move_patterns")
        con.execute(sql_text("steps/added_rows"))
    return folder


@contextlib.contextmanager
def _memory_returned(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """While in the block, DuckDB's allocator gives the memory that queries freed back to the system in the
    background, so that what the ingest queries freed is not held next to the workers at their peak."""
    con.execute("SET allocator_background_threads = true")
    try:
        yield
    finally:
        con.execute("RESET allocator_background_threads")


def pattern_stats_file(
    con: duckdb.DuckDBPyConnection, stage: Path, *, families: Sequence[str], previous: Path | None,
    previous_runs: Sequence[Path], min_occurrence: Mapping[str, int], runner: Runner, show: str,
) -> PatternFiles:
    """Write the release's pattern_stats part files and the new run of the complete counts from the shards in `stage`,
    and create the views the suites read.

    A full build sums the shards into the complete counts, one base run. An incremental one
    (`previous`: the release it extends, `previous_runs`: its run folders, base first) sums
    the new games' shards into a delta run, then the runs into pattern_stats; once the delta runs
    would outgrow DELTA_SHARE of the base, the same pass writes the complete counts as the
    one new base run. So an add writes the counts of its games, and all the complete counts only
    every so often (docs/releases.md#complete-counts).

    The views are pattern_stats, pattern_counts (the complete counts, when written) and, in an
    incremental build, pattern_counts_new, pattern_counts_previous (the previous runs) and the
    previous release's pattern_stats_previous and pattern_tail_previous.
    """
    shards = sorted((stage / "patterns").glob("*.parquet"))  # extract_shards writes one at least
    run = stage / (NEW_COUNTS_DIR if previous_runs else COUNTS_DIR)
    own = key_sample(con, shards)
    write_sample(run / SAMPLE_FILE, own)
    sample = key_sample(con, [folder / SAMPLE_FILE for folder in [*previous_runs, run]])
    with runner.phase() as pool:
        files = _write_parts(shards, stage, previous_runs=previous_runs, samples=(own, sample), families=families,
                             pool=pool, min_occurrence=min_occurrence, show=show)
    if previous is not None:
        view(con, "pattern_counts_previous", [path for folder in previous_runs for path in part_files(folder)])
        view(con, "pattern_counts_new", part_files(stage / NEW_COUNTS_DIR))
        view(con, "pattern_stats_previous", part_files(previous / "pattern_stats"), table="pattern_stats")
        view(con, "pattern_tail_previous", [previous / "pattern_tail.parquet"])
    view(con, "pattern_stats", part_files(files.published), table="pattern_stats")
    if files.base and files.run is not None:
        view(con, "pattern_counts", part_files(files.run))
    return files


def _write_parts(
    shards: list[Path], stage: Path, *, previous_runs: Sequence[Path], samples: tuple[pa.Table, pa.Table],
    families: Sequence[str], pool: ShardPool, min_occurrence: Mapping[str, int], show: str,
) -> PatternFiles:
    """The passes of pattern_stats_file on the runner `pool`, given the key `samples` of the shards and of all runs:
    one for a full build (no `previous_runs`), two for an incremental one, whose new games' run is cut at the
    shards' own keys (fewer parts: a part reads every run's files of its family and symmetry, whatever their
    cuts), then every run over the parts of all keys."""
    own, sample = samples
    on_runner = functools.partial(sum_parts, min_occurrence=min_occurrence, pool=pool, show=show)
    published, complete = stage / "pattern_stats", stage / COUNTS_DIR
    parts = plan_parts(sample, families=families)
    if not previous_runs:
        tail = on_runner(parts, [shards] * len(parts), run=complete, published=published)
        return PatternFiles(published=published, run=complete, base=True, tail=tail)
    new = stage / NEW_COUNTS_DIR
    cut = plan_parts(own, families=families)
    _ = on_runner(cut, [shards] * len(cut), run=new, published=None)
    runs = [*previous_runs, new]
    compacted = sum(map(tree_bytes, runs[1:])) > DELTA_SHARE * tree_bytes(runs[0])
    tail = on_runner(parts, [[path for run in runs for path in part_files(run, part)] for part in parts], runs=True,
                     run=complete if compacted else None, published=published)
    if compacted:
        write_sample(complete / SAMPLE_FILE, sample)
        return PatternFiles(published=published, run=complete, base=True, tail=tail)
    counted = sum(pq.ParquetFile(path).metadata.num_rows for path in part_files(new))
    return PatternFiles(published=published, run=new if counted else None, base=False, tail=tail)


def view(con: duckdb.DuckDBPyConnection, name: str, paths: Sequence[Path], *, table: str | None = None) -> None:
    """Create or replace view `name` of the build's Parquet files `paths`; the files of a published `table` are read
    with its derived columns, as readers see them (effects/warehouse/catalog.py create_view)."""
    create_view(con, identifier(name), table, paths, release_format=FORMAT)
