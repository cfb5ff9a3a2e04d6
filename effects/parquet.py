"""Parquet files written from Arrow: one atomic writer for every file the build writes outside DuckDB, and the
release's layouts for patterns: pattern_stats' schema and options (its part files are written by
effects/pattern_parts.py), and the move_patterns file, written and merged in row groups that depend on the rows only."""

from __future__ import annotations

import heapq
import itertools
import os
from collections.abc import Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from gopat.transforms.patterns.canonical import EVENTS_SCHEMA
from gopat.transforms.tables.registry import TABLES

PATTERN_STATS_SCHEMA = TABLES["pattern_stats"].stored
ROW_GROUP_ROWS = 1_000_000  # as the release's other tables (effects/warehouse/publish.py)
# dictionaries for the repetitive columns; the sorted keys share prefixes with the one before
PATTERN_STATS_PARQUET: dict[str, Any] = {
    "compression": "zstd", "use_dictionary": ["family", "symmetry", "orbit_size", "result"],
    "column_encoding": {"key": "DELTA_BYTE_ARRAY"},
}


def write_parquet(
    path: Path, tables: Iterable[pa.Table], *, schema: pa.Schema, row_group_rows: int = ROW_GROUP_ROWS, **options: Any
) -> Path:
    """Write `tables` of `schema`, each in row groups of at most `row_group_rows` rows, to Parquet file `path` by a
    temporary file beside it, renamed: the file is whole or absent. `options` are pyarrow's ParquetWriter's
    (default: zstd). Returns `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with pq.ParquetWriter(tmp, schema, **{"compression": "zstd", **options}) as writer:
            for table in tables:
                writer.write_table(table, row_group_size=row_group_rows)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_move_patterns(out: Path, families: Iterable[tuple[str, pa.Table]]) -> Path:
    """Write Parquet file `out` of move_patterns from `(family, rows)` pairs given in table order (family, game_id,
    move_number); returns `out`.

    Row groups end every ROW_GROUP_ROWS rows and where the family changes, whatever the sizes of the
    pieces (_RowGroups), so the same rows give the same bytes (full and incremental builds, any
    number of workers).
    """
    return write_parquet(out, _row_groups(families), schema=EVENTS_SCHEMA)


def _row_groups(families: Iterable[tuple[str, pa.Table]]) -> Iterator[pa.Table]:
    """The row groups of move_patterns rows given as `(family, rows)` pairs in table order (_RowGroups)."""
    groups = _RowGroups()
    for family, rows in families:
        yield from groups.add(family, rows.cast(EVENTS_SCHEMA))
    yield from groups.rest()


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
        groups = _row_group_sections(file, previous, columns=("family",)).get((family,), [])
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


def _row_group_sections(
    file: pq.ParquetFile, path: Path, *, columns: tuple[str, ...]
) -> dict[tuple[Any, ...], list[int]]:
    """The row groups of each section of a file (rows of the same values of `columns`: move_patterns' families), in
    file order, from their statistics."""
    indices = [file.schema_arrow.get_field_index(name) for name in columns]
    sections: dict[tuple[Any, ...], list[int]] = {}
    for index in range(file.metadata.num_row_groups):
        group = file.metadata.row_group(index)
        if group.num_rows == 0:
            continue
        stats = [group.column(column).statistics for column in indices]
        if any(s is None or not s.has_min_max or s.min != s.max for s in stats):
            raise ValueError(f"{path}: row group {index} is not of one {' and '.join(columns)}")
        sections.setdefault(tuple(s.min for s in stats), []).append(index)
    return sections


class _RowGroups:
    """Regroups rows, one section (move_patterns: a family) after another, into the row groups of the file.

    Rows come in tables of any size and chunking; a row group ends every ROW_GROUP_ROWS rows and
    where the section changes, and is one contiguous table. So the file's bytes depend
    on its rows only, not on how they were summed or merged (the same inputs give the same file).
    """

    def __init__(self) -> None:
        self._section: Hashable = None
        self._pending: list[pa.Table] = []
        self._rows = 0

    def add(self, section: Hashable, rows: pa.Table) -> list[pa.Table]:
        """Take `rows` of `section`, which follow every row taken before; return the row groups
        completed."""
        done = self.rest() if section != self._section else []
        self._section = section
        self._pending.append(rows)
        self._rows += rows.num_rows
        while self._rows >= ROW_GROUP_ROWS:
            joined = pa.concat_tables(self._pending)
            done.append(joined.slice(0, ROW_GROUP_ROWS).combine_chunks())
            self._pending, self._rows = [joined.slice(ROW_GROUP_ROWS)], self._rows - ROW_GROUP_ROWS
        return done

    def rest(self) -> list[pa.Table]:
        """The last, shorter row group of the current section (if it has rows left); the next one starts afresh."""
        done = [pa.concat_tables(self._pending).combine_chunks()] if self._rows else []
        self._pending, self._rows = [], 0
        return done
