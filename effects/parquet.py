"""The Parquet files of pattern_stats (written range by range as the build sums it, and merged row group by row group
with the new games' counts in an incremental build) and of move_patterns, in row groups that depend on the rows only."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from itertools import chain
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from gopat.transforms.patterns.canonical import EVENTS_SCHEMA, describe_keys, key_values, merge_counts
from gopat.transforms.patterns.families import FAMILIES

PATTERN_STATS_SCHEMA = pa.schema([
    ("family", pa.string()), ("symmetry", pa.int32()), ("key", pa.string()), ("occurrence", pa.int64()),
    ("chosen", pa.int64()), ("chosen_rate", pa.float64()), ("orbit_size", pa.int32()), ("stones", pa.int32()),
    ("diagram", pa.string()), ("result", pa.int64()),
])
ROW_GROUP_ROWS = 1_000_000  # as the release's other tables (effects/warehouse/publish.py)
PATTERN_STATS_PARQUET = {  # dictionaries only for the repetitive columns: keys and diagrams are unique
    "compression": "zstd", "use_dictionary": ["family", "symmetry", "orbit_size", "stones", "result"],
}


@contextlib.contextmanager
def pattern_stats_writer(out: Path) -> Iterator[Callable[[tuple[str, int], pa.Table], None]]:
    """Write Parquet file `out` of pattern_stats: yield `write(part, summed)`, to be called with each summed key range
    of each part (family, symmetry), in order.

    Each range is described and written on a thread (_write_part) while the caller sums the next one, in row groups
    that do not depend on the ranges (_RowGroups).
    """
    with (
        pq.ParquetWriter(out, PATTERN_STATS_SCHEMA, **PATTERN_STATS_PARQUET) as writer,
        ThreadPoolExecutor(max_workers=1) as background,
    ):
        groups = _RowGroups()  # used on the background thread only
        written: Future[None] | None = None

        def write(part: tuple[str, int], summed: pa.Table) -> None:
            nonlocal written
            if written is not None:
                written.result()
            written = background.submit(_write_part, writer, groups, part, summed)

        yield write
        if written is not None:
            written.result()
        for rows in groups.rest():
            writer.write_table(rows, row_group_size=ROW_GROUP_ROWS)


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


def _write_part(writer: pq.ParquetWriter, groups: _RowGroups, part: tuple[str, int], summed: pa.Table) -> None:
    """Describe one summed range of `part` (family, symmetry; pattern_stats.sql, int64 keys) and write its full row
    groups to the file.

    The key becomes its digit string and `stones` and `diagram` are added, in Arrow: passing the
    strings through DuckDB cost more than drawing them. Runs on a thread while the build's
    connection sums the next range.
    """
    described = describe_keys(part[0], summed["key"].to_numpy())
    columns = {**{name: summed[name] for name in summed.column_names}, **{
        "key": described["key_text"], "stones": described["stones"], "diagram": described["diagram"]}}
    rows = pa.table([columns[name] for name in PATTERN_STATS_SCHEMA.names], names=PATTERN_STATS_SCHEMA.names)
    # one chunk a column (the strings are one already): only the row groups that span two ranges are copied
    for group in groups.add(part, rows.cast(PATTERN_STATS_SCHEMA).combine_chunks()):
        writer.write_table(group, row_group_size=ROW_GROUP_ROWS)


def merge_pattern_stats_files(
    previous: Path, new: Path, out: Path, *, progress: Callable[[int], AbstractContextManager[Callable[[str], None]]]
) -> Path:
    """Write `pattern_stats` of an incremental build to `out`: the previous release's file plus the new games'.

    Both files are sorted by family, symmetry and key, in row groups of one family and symmetry (as
    aggregate_patterns writes them). They are merged in one pass, a row group at a time
    (transforms/patterns/canonical.py merge_counts), so memory holds a few row groups whatever the corpus size.
    Row groups are read (and their keys parsed) on one thread and written on another while the
    main thread merges. `progress(steps)` gives the context of `advance(note)`, called once a part. Returns `out`.
    """
    with (
        pq.ParquetFile(previous) as base_file,
        pq.ParquetFile(new) as new_file,
        pq.ParquetWriter(out, PATTERN_STATS_SCHEMA, **PATTERN_STATS_PARQUET) as writer,
        ThreadPoolExecutor(max_workers=1) as reader,
        ThreadPoolExecutor(max_workers=1) as background,
    ):
        base_parts, new_parts = _row_group_parts(base_file, previous), _row_group_parts(new_file, new)
        parts = sorted(base_parts.keys() | new_parts.keys())
        groups = _RowGroups()
        written: Future[None] | None = None
        with progress(len(parts)) as advance:
            for family, symmetry in parts:
                n_digits = FAMILIES[family].layout.n_digits
                chunks = _merge_part(*(
                    _read_ahead(file, row_groups.get((family, symmetry), []), n_digits=n_digits, reader=reader)
                    for file, row_groups in ((base_file, base_parts), (new_file, new_parts))
                ))
                for rows in chain.from_iterable(groups.add((family, symmetry), chunk) for chunk in chunks):
                    if written is not None:
                        written.result()
                    written = background.submit(writer.write_table, rows, row_group_size=ROW_GROUP_ROWS)
                advance(f"{family} {symmetry}")
            if written is not None:
                written.result()
            for rows in groups.rest():
                writer.write_table(rows, row_group_size=ROW_GROUP_ROWS)
    return out


def _row_group_parts(file: pq.ParquetFile, path: Path) -> dict[tuple[str, int], list[int]]:
    """The row groups of each (family, symmetry) of a pattern_stats file, in file order (from their statistics)."""
    columns = [file.schema_arrow.get_field_index(name) for name in ("family", "symmetry")]
    parts: dict[tuple[str, int], list[int]] = {}
    for index in range(file.metadata.num_row_groups):
        group = file.metadata.row_group(index)
        if group.num_rows == 0:
            continue
        stats = [group.column(column).statistics for column in columns]
        if any(s is None or not s.has_min_max or s.min != s.max for s in stats):
            raise ValueError(f"{path}: row group {index} is not of one family and symmetry")
        parts.setdefault((stats[0].min, stats[1].min), []).append(index)
    return parts


def _read_ahead(
    file: pq.ParquetFile, groups: list[int], *, n_digits: int, reader: ThreadPoolExecutor
) -> Iterator[tuple[pa.Table, np.ndarray]]:
    """Row groups `groups` of `file` with their int64 keys, each read on `reader` while the last one is used."""

    def read(index: int) -> tuple[pa.Table, np.ndarray]:
        table = file.read_row_group(index, use_threads=False)  # one core: the writer is the merge's bottleneck
        return table, key_values(table["key"], n_digits)

    if not groups:
        return
    pending = reader.submit(read, groups[0])
    for following in groups[1:]:
        chunk = pending.result()
        pending = reader.submit(read, following)
        yield chunk
    yield pending.result()


def _merge_part(
    base_chunks: Iterator[tuple[pa.Table, np.ndarray]], new_chunks: Iterator[tuple[pa.Table, np.ndarray]]
) -> Iterator[pa.Table]:
    """Rows of one family and symmetry, previous plus new, in key order: a two-way merge of keyed row groups.

    Each step merges the two current row groups up to the smaller of their last keys, which uses
    up at least one of them.
    """
    base_chunk, new_chunk = next(base_chunks, None), next(new_chunks, None)
    while base_chunk is not None and new_chunk is not None:
        bound = min(base_chunk[1][-1], new_chunk[1][-1])
        b, n = (int(np.searchsorted(keys, bound, side="right")) for _, keys in (base_chunk, new_chunk))
        yield merge_counts(base_chunk[0].slice(0, b), base_chunk[1][:b], new_chunk[0].slice(0, n), new_chunk[1][:n])
        base_chunk = (base_chunk[0].slice(b), base_chunk[1][b:]) if b < len(base_chunk[1]) else next(base_chunks, None)
        new_chunk = (new_chunk[0].slice(n), new_chunk[1][n:]) if n < len(new_chunk[1]) else next(new_chunks, None)
    for rest, chunks in ((base_chunk, base_chunks), (new_chunk, new_chunks)):
        for table, _ in chain([rest] if rest is not None else [], chunks):
            yield table


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
