"""The Parquet files of the complete pattern counts (the build state) and of pattern_stats, written range by range as
the build sums them or merges the build state's runs, and of move_patterns, in row groups that depend on the rows
only."""

from __future__ import annotations

import contextlib
import heapq
import itertools
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from gopat.transforms.patterns.canonical import EVENTS_SCHEMA, PATTERN_COUNTS_SCHEMA, describe_keys, merge_counts

PATTERN_STATS_SCHEMA = pa.schema([
    ("family", pa.string()), ("symmetry", pa.int32()), ("key", pa.string()), ("occurrence", pa.int64()),
    ("chosen", pa.int64()), ("chosen_rate", pa.float64()), ("orbit_size", pa.int32()), ("stones", pa.int32()),
    ("diagram", pa.string()), ("result", pa.int64()),
])
ROW_GROUP_ROWS = 1_000_000  # as the release's other tables (effects/warehouse/publish.py)
PATTERN_STATS_PARQUET = {  # dictionaries only for the repetitive columns: keys and diagrams are unique
    "compression": "zstd", "use_dictionary": ["family", "symmetry", "orbit_size", "stones", "result"],
}


@dataclass
class Tail:
    """Per family and symmetry, the keys pattern_stats leaves out and their summed counts, tallied as
    pattern_counts_writer writes (docs/releases.md#pattern_tail)."""

    counts: dict[tuple[str, int], tuple[int, int, int]] = field(default_factory=dict)

    def add(self, part: tuple[str, int], counts: pa.Table, kept: pa.Table) -> None:
        """Add what `kept`, the rows of pattern_stats, leaves out of `counts`, summed counts of `part` (family,
        symmetry): differences of sums, without a copy of the rows left out."""
        keys, occurrence, chosen = self.counts.get(part, (0, 0, 0))
        self.counts[part] = (keys + counts.num_rows - kept.num_rows,
                             occurrence + _sum(counts, "occurrence") - _sum(kept, "occurrence"),
                             chosen + _sum(counts, "chosen") - _sum(kept, "chosen"))

    def table(self) -> pa.Table:
        """The tallies as a table: family, symmetry, keys, occurrence, chosen."""
        parts = sorted(self.counts)
        return pa.table({
            "family": pa.array([family for family, _ in parts], type=pa.string()),
            "symmetry": pa.array([symmetry for _, symmetry in parts], type=pa.int32()),
            **{name: pa.array([self.counts[part][i] for part in parts], type=pa.int64())
               for i, name in enumerate(("keys", "occurrence", "chosen"))},
        })


def _sum(rows: pa.Table, column: str) -> int:
    return int(pc.sum(rows[column]).as_py() or 0)


@contextlib.contextmanager
def pattern_counts_writer(
    state: Path | None, *, published: Path | None, min_occurrence: Mapping[str, int], tail: Tail | None = None
) -> Iterator[Callable[[tuple[str, int], pa.Table], None]]:
    """Write the complete counts to Parquet file `state` and the rows of pattern_stats to `published`, each if given:
    yield `write(part, counts)`, to be called with the summed counts (PATTERN_COUNTS_SCHEMA's columns, in key
    order) of each part (family, symmetry), in order.

    pattern_stats keeps the keys seen at least `min_occurrence[family]` times; `tail` tallies the
    others (docs/releases.md#pattern_tail). Each file is written on its own thread (_write_part)
    while the caller sums or merges the next range, in row groups that do not depend on the ranges
    (_RowGroups): the Parquet writer releases the GIL while it encodes and compresses, so the two
    files are written on both cores.
    """
    with contextlib.ExitStack() as files:
        sinks = []
        if state is not None:
            sinks.append(_Sink(files.enter_context(pq.ParquetWriter(state, PATTERN_COUNTS_SCHEMA, compression="zstd")),
                               None, None))
        if published is not None:
            sinks.append(_Sink(files.enter_context(pq.ParquetWriter(published, PATTERN_STATS_SCHEMA,
                                                                    **PATTERN_STATS_PARQUET)),
                               min_occurrence, tail))
        threads = [files.enter_context(ThreadPoolExecutor(max_workers=1)) for _ in sinks]
        written: list[Future[None]] = []

        def write(part: tuple[str, int], counts: pa.Table) -> None:
            for done in written:  # each file holds at most one range besides the one being summed
                done.result()
            counts = counts.select(PATTERN_COUNTS_SCHEMA.names).cast(PATTERN_COUNTS_SCHEMA).combine_chunks()
            written[:] = [thread.submit(_write_part, sink, part, counts)
                          for thread, sink in zip(threads, sinks, strict=True)]

        yield write
        for done in written:
            done.result()
        for sink in sinks:
            for rows in sink.groups.rest():
                sink.writer.write_table(rows, row_group_size=ROW_GROUP_ROWS)


def write_move_patterns(out: Path, parts: Iterable[tuple[str, pa.Table]]) -> Path:
    """Write Parquet file `out` of move_patterns from `(family, rows)` pairs given in table order (family, game_id,
    move_number); returns `out`.

    Row groups end every ROW_GROUP_ROWS rows and where the family changes, whatever the sizes of the
    pieces (_RowGroups), so the same rows give the same bytes (full and incremental builds, any
    number of workers).
    """
    with pq.ParquetWriter(out, EVENTS_SCHEMA, compression="zstd") as writer:
        groups = _RowGroups()
        for family, rows in parts:
            for group in groups.add(family, rows.cast(EVENTS_SCHEMA)):
                writer.write_table(group, row_group_size=ROW_GROUP_ROWS)
        for group in groups.rest():
            writer.write_table(group, row_group_size=ROW_GROUP_ROWS)
    return out


@dataclass(frozen=True, slots=True)
class _Sink:
    """One file the counts go to: the complete state (`min_occurrence` None) or pattern_stats (and the tally of the
    rows it leaves out, if any), with its row groups."""

    writer: pq.ParquetWriter
    min_occurrence: Mapping[str, int] | None
    tail: Tail | None
    groups: _RowGroups = field(default_factory=lambda: _RowGroups())


def _write_part(sink: _Sink, part: tuple[str, int], counts: pa.Table) -> None:
    """Write one summed range of `part` (family, symmetry) to `sink`, in full row groups: the counts as they are
    to the state, and to pattern_stats the rows kept by the family's threshold, described.

    The key becomes its digit string and `chosen_rate`, `stones` and `diagram` are added, in Arrow:
    passing the strings through DuckDB cost more than drawing them. Runs on the sink's thread while the
    build sums or merges the next range.
    """
    if sink.min_occurrence is None:
        rows = counts
    else:
        kept = counts.filter(pc.greater_equal(counts["occurrence"], sink.min_occurrence[part[0]]))
        if sink.tail is not None and kept.num_rows < counts.num_rows:
            sink.tail.add(part, counts, kept)
        described = describe_keys(part[0], kept["key"].to_numpy())
        occurrence, chosen = kept["occurrence"].to_numpy(), kept["chosen"].to_numpy()
        columns = {name: kept[name] for name in kept.column_names} | {
            "key": described["key_text"], "chosen_rate": pa.array(chosen / occurrence, type=pa.float64()),
            "stones": described["stones"], "diagram": described["diagram"]}
        # one chunk a column: only the row groups that span two ranges are copied
        rows = pa.table([columns[name] for name in PATTERN_STATS_SCHEMA.names],
                        names=PATTERN_STATS_SCHEMA.names).cast(PATTERN_STATS_SCHEMA).combine_chunks()
    for group in sink.groups.add(part, rows):
        sink.writer.write_table(group, row_group_size=ROW_GROUP_ROWS)


def merge_pattern_counts(
    runs: Sequence[Path],
    write: Callable[[tuple[str, int], pa.Table], None],
    *,
    progress: Callable[[int], AbstractContextManager[Callable[[str], None]]],
) -> None:
    """Hand the complete counts of an incremental build, the sum of the state's `runs` (the previous runs, base
    first, and the new games' counts), to `write` (pattern_counts_writer's), part by part in key order.

    Each run is pattern counts sorted by family, symmetry and key, in row groups of one family and symmetry (as
    pattern_counts_writer writes them). They are merged in one pass, a row group at a time (_merge_runs), so
    memory holds a few row groups a run whatever the corpus size; row groups are read on a thread while the
    main thread merges. `progress(steps)` gives the context of `advance(note)`, called once a part.
    """
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(pq.ParquetFile(path)) for path in runs]
        reader = stack.enter_context(ThreadPoolExecutor(max_workers=1))
        groups = [_row_group_parts(file, path) for file, path in zip(files, runs, strict=True)]
        parts = sorted(set().union(*groups))
        with progress(len(parts)) as advance:
            for part in parts:
                streams = [_read_ahead(file, by_part.get(part, []), reader=reader)
                           for file, by_part in zip(files, groups, strict=True)]
                for chunk in _merge_runs(streams):
                    write(part, chunk)
                advance(f"{part[0]} {part[1]}")


def merge_move_patterns(previous: Path, new: Iterable[Path], family: str) -> Iterator[pa.Table]:
    """The move_patterns rows of `family` of an incremental build, in table order (game_id, move_number): the rows
    of the previous release's file `previous` merged with the new games' event shards `new` (EVENTS_SCHEMA's
    columns; write_move_patterns casts them).

    Both are in that order already (a previous file's row groups hold one family each, as
    write_move_patterns writes them; shards hold consecutive games), and a game's rows are all in one
    of them, so whole games are interleaved by game_id a row group at a time, without a sort. Python
    orders strings as DuckDB orders the full build's games: by code point, the byte order of UTF-8.
    """
    with pq.ParquetFile(previous) as file:
        groups = _row_group_parts(file, previous, columns=("family",)).get((family,), [])
        old = (file.read_row_group(index, columns=EVENTS_SCHEMA.names) for index in groups)
        added = (pq.read_table(shard, columns=EVENTS_SCHEMA.names, filters=[("family", "=", family)]) for shard in new)
        runs = heapq.merge(_game_runs(old, stream=0), _game_runs(added, stream=1), key=lambda run: run.game_id)
        for _, same in itertools.groupby(runs, key=lambda run: run.source):  # consecutive runs of a table: one slice
            games = list(same)
            yield games[0].table.slice(games[0].start, games[-1].end - games[0].start)


class _GameRun(NamedTuple):
    """The rows of one game in a table of move_patterns rows."""

    game_id: str
    source: tuple[int, int]  # (stream, table number in it)
    table: pa.Table
    start: int
    end: int


def _game_runs(tables: Iterable[pa.Table], *, stream: int) -> Iterator[_GameRun]:
    """The runs of one game's rows in `tables` (rows in game_id order), in order."""
    for number, table in enumerate(tables):
        if table.num_rows == 0:
            continue
        ids = table["game_id"]
        changes = pc.indices_nonzero(pc.not_equal(ids[1:], ids[:-1])).to_numpy().astype(np.int64)
        starts = np.concatenate(([0], changes + 1))
        ends = np.append(starts[1:], table.num_rows)
        for game_id, start, end in zip(ids.take(starts).to_pylist(), starts.tolist(), ends.tolist(), strict=True):
            yield _GameRun(game_id, (stream, number), table, start, end)


def _row_group_parts(
    file: pq.ParquetFile, path: Path, *, columns: tuple[str, ...] = ("family", "symmetry")
) -> dict[tuple[Any, ...], list[int]]:
    """The row groups of each part of a file (its values of `columns`: pattern counts by family and symmetry,
    move_patterns by family), in file order, from their statistics."""
    indices = [file.schema_arrow.get_field_index(name) for name in columns]
    parts: dict[tuple[Any, ...], list[int]] = {}
    for index in range(file.metadata.num_row_groups):
        group = file.metadata.row_group(index)
        if group.num_rows == 0:
            continue
        stats = [group.column(column).statistics for column in indices]
        if any(s is None or not s.has_min_max or s.min != s.max for s in stats):
            raise ValueError(f"{path}: row group {index} is not of one {' and '.join(columns)}")
        parts.setdefault(tuple(s.min for s in stats), []).append(index)
    return parts


def _read_ahead(
    file: pq.ParquetFile, groups: list[int], *, reader: ThreadPoolExecutor
) -> Iterator[tuple[pa.Table, np.ndarray]]:
    """Row groups `groups` of `file` with their int64 keys, each read on `reader` while the last one is used."""

    def read(index: int) -> tuple[pa.Table, np.ndarray]:
        table = file.read_row_group(index, use_threads=False)
        return table, table["key"].to_numpy()

    if not groups:
        return
    pending = reader.submit(read, groups[0])
    for following in groups[1:]:
        chunk = pending.result()
        pending = reader.submit(read, following)
        yield chunk
    yield pending.result()


def _merge_runs(runs: list[Iterator[tuple[pa.Table, np.ndarray]]]) -> Iterator[pa.Table]:
    """Counts of one family and symmetry summed over keyed row groups of several runs, in key order: a k-way merge.

    Each step takes every run's rows up to the smallest last key of their current row groups, which
    uses up at least one of them, and sums them with merge_counts: the later runs' rows (delta runs,
    small) first, then into the first run's (the base, the largest), so a step copies the base's rows
    once however many runs there are; once one run is left, its row groups pass as they are.
    """
    current = {i: chunk for i, run in enumerate(runs) if (chunk := next(run, None)) is not None}
    while len(current) > 1:
        bound = min(keys[-1] for _, keys in current.values())
        pieces: list[tuple[pa.Table, np.ndarray]] = []
        for i, (table, keys) in list(current.items()):
            n = int(np.searchsorted(keys, bound, side="right"))
            if n:
                pieces.append((table.slice(0, n), keys[:n]))
            if n < len(keys):
                current[i] = (table.slice(n), keys[n:])
            elif (following := next(runs[i], None)) is not None:
                current[i] = following
            else:
                del current[i]
        (first, first_keys), *later = pieces
        if later:  # the later runs' rows summed first (delta runs: few), then into the first run's (the base)
            added, added_keys = later[0]
            for table, keys in later[1:]:
                added = merge_counts(added, added_keys, table, keys)
                added_keys = added["key"].to_numpy()
            first = merge_counts(first, first_keys, added, added_keys)
        yield first
    for i, (table, _) in current.items():
        yield table
        yield from (rest for rest, _ in runs[i])


class _RowGroups:
    """Regroups rows, one part (pattern_stats: family and symmetry; move_patterns: family) after another, into the
    row groups of the file.

    Rows come in tables of any size and chunking; a row group ends every ROW_GROUP_ROWS rows and
    where the part changes, and is one contiguous table. So the file's bytes depend
    on its rows only, not on how they were summed or merged (the same inputs give the same file).
    """

    def __init__(self) -> None:
        self._part: Hashable = None
        self._pending: list[pa.Table] = []
        self._rows = 0

    def add(self, part: Hashable, rows: pa.Table) -> list[pa.Table]:
        """Take `rows` of `part`, which follow every row taken before; return the row groups
        completed."""
        done = self.rest() if part != self._part else []
        self._part = part
        self._pending.append(rows)
        self._rows += rows.num_rows
        while self._rows >= ROW_GROUP_ROWS:
            joined = pa.concat_tables(self._pending)
            done.append(joined.slice(0, ROW_GROUP_ROWS).combine_chunks())
            self._pending, self._rows = [joined.slice(ROW_GROUP_ROWS)], self._rows - ROW_GROUP_ROWS
        return done

    def rest(self) -> list[pa.Table]:
        """The last, shorter row group of the current part (if it has rows left); the next part starts afresh."""
        done = [pa.concat_tables(self._pending).combine_chunks()] if self._rows else []
        self._pending, self._rows = [], 0
        return done
