"""Parquet files written from Arrow: one atomic writer for every file the build writes outside DuckDB, and the
release's layouts for patterns: pattern_stats' schema and options (its part files are written by
effects/pattern_parts.py), and a build's move_patterns file, written in row groups that depend on the rows only."""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
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
# pattern counts (extraction shards, runs of the complete counts): dictionaries for the repetitive columns only; the
# sorted, mostly distinct int64 keys and the counts are smaller and quicker to write as plain zstd pages
COUNTS_PARQUET: dict[str, Any] = {"compression": "zstd", "use_dictionary": ["family", "symmetry", "orbit_size"]}


def write_parquet(
    path: Path, tables: Iterable[pa.Table], *, schema: pa.Schema, row_group_rows: int = ROW_GROUP_ROWS, **options: Any
) -> Path:
    """Write `tables` of `schema`, each in row groups of at most `row_group_rows` rows, to Parquet file `path` by a
    temporary file beside it, renamed: the file is whole or absent. `options` are pyarrow's ParquetWriter's
    (default: zstd). Returns `path`."""
    with parquet_file(path, schema=schema, row_group_rows=row_group_rows, **options) as write:
        for table in tables:
            write(table)
    return path


@contextlib.contextmanager
def parquet_file(
    path: Path, *, schema: pa.Schema, row_group_rows: int = ROW_GROUP_ROWS, **options: Any
) -> Iterator[Callable[[pa.Table], None]]:
    """A function that writes a table of `schema` to Parquet file `path`, in row groups of at most `row_group_rows`
    rows, while in the block (write_parquet's file: whole at the block's end, or absent if the block raises)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with pq.ParquetWriter(tmp, schema, **{"compression": "zstd", **options}) as writer:
            yield functools.partial(writer.write_table, row_group_size=row_group_rows)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_move_patterns(out: Path, families: Iterable[tuple[str, pa.Table]]) -> Path:
    """Write Parquet file `out` of move_patterns from `(family, rows)` pairs given in table order (family, game_id,
    move_number); returns `out`.

    Row groups end every ROW_GROUP_ROWS rows and where the family changes, whatever the sizes of the
    pieces (_RowGroups), so the same rows give the same bytes (any number of workers).
    """
    return write_parquet(out, _row_groups(families), schema=EVENTS_SCHEMA)


def _row_groups(families: Iterable[tuple[str, pa.Table]]) -> Iterator[pa.Table]:
    """The row groups of move_patterns rows given as `(family, rows)` pairs in table order (_RowGroups)."""
    groups = _RowGroups()
    for family, rows in families:
        yield from groups.add(family, rows.cast(EVENTS_SCHEMA))
    yield from groups.rest()


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
