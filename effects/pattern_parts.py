"""One part of the pattern counts (a family, a symmetry and a key range), summed and written as a task on the build's
runner (flows/shards.py): its file of the run of the complete counts and its file of pattern_stats
(docs/releases.md#parts).

A part reads its inputs by path, the extraction shards, summed in a DuckDB of its own (one thread,
models/pattern_counts.sql), or the files of the runs, merged (canonical.py summed_runs), and
writes its files, so parts run side by side in worker processes and no row passes through the
flow. The same part of the same counts gives the same bytes, whoever sums it and how.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from gopat.effects.parquet import COUNTS_PARQUET, PATTERN_STATS_PARQUET, PATTERN_STATS_SCHEMA, write_parquet
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.patterns.canonical import PATTERN_COUNTS_SCHEMA, key_texts, summed_runs
from gopat.transforms.patterns.parts import SAMPLE_MODULUS, Part

SAMPLE_SCHEMA = pa.schema([("family", pa.string()), ("symmetry", pa.int32()), ("key", pa.int64())])
PART_MEMORY = "1GB"  # a part's DuckDB; two workers and the flow's 2 GB stay under 4 GiB (docs/guarantees.md)


@dataclass(frozen=True, slots=True)
class LeftOut:
    """What a part's pattern_stats file leaves out: keys below the family's threshold and their summed counts."""

    keys: int
    occurrence: int
    chosen: int


def sum_part(
    part: Part, inputs: Sequence[Path], *, runs: bool = False, run: Path | None, published: Path | None,
    min_occurrence: int,
) -> LeftOut:
    """Sum the counts of `part` in Parquet files `inputs` (pattern counts: family, symmetry, key, orbit_size,
    occurrence, chosen, result) per key; write them to `run` and the keys seen at least `min_occurrence` times,
    with their key texts, to `published`, each if given; return what `published` leaves out.

    `runs`: the inputs are the runs' files, few and each sorted by key, summed by a merge of sorted
    inputs; else the inputs are extraction shards, dozens of files each sorted by key, summed by DuckDB's hash
    aggregate.
    Files are written whole or not at all (effects/parquet.py write_parquet).
    """
    if not inputs:
        counts = PATTERN_COUNTS_SCHEMA.empty_table()
    elif runs:
        counts = summed_runs(_rows(part, inputs), family=part.family, symmetry=part.symmetry)
    else:
        counts = _summed(part, inputs)
    if run is not None:
        write_parquet(run, [counts], schema=PATTERN_COUNTS_SCHEMA, **COUNTS_PARQUET)
    if published is None:
        return LeftOut(0, 0, 0)
    kept = counts.filter(pc.greater_equal(counts["occurrence"], min_occurrence))
    write_parquet(published, [_published(part.family, kept)], schema=PATTERN_STATS_SCHEMA, **PATTERN_STATS_PARQUET)
    return LeftOut(counts.num_rows - kept.num_rows, _sum(counts, "occurrence") - _sum(kept, "occurrence"),
                   _sum(counts, "chosen") - _sum(kept, "chosen"))


def _summed(part: Part, inputs: Sequence[Path]) -> pa.Table:
    """models/pattern_counts.sql over `inputs`: the counts of `part`, summed per key."""
    con = duckdb.connect(config={"threads": 1, "memory_limit": PART_MEMORY})
    try:
        con.execute("SET enable_progress_bar = false")  # a session option; a part's queries are short
        con.read_parquet([str(path) for path in inputs]).create_view("pattern_shards")
        con.execute(
            "SET VARIABLE summed_part = {'family': ?, 'symmetry': ?, 'lo': ?::BIGINT, 'hi': ?::BIGINT}",
            [part.family, part.symmetry, part.lo, part.hi],
        )
        counts = con.sql(sql_text("models/pattern_counts")).to_arrow_table()
    finally:
        con.close()
    return counts.select(PATTERN_COUNTS_SCHEMA.names).cast(PATTERN_COUNTS_SCHEMA).combine_chunks()


def _rows(part: Part, inputs: Sequence[Path]) -> pa.Table:
    """The rows of `part` in Parquet files `inputs`; only the row groups that can hold its keys are read."""
    where = (pc.field("family") == part.family) & (pc.field("symmetry") == part.symmetry)
    if part.lo is not None:
        where &= pc.field("key") >= part.lo
    if part.hi is not None:
        where &= pc.field("key") < part.hi
    return ds.dataset([str(path) for path in inputs], format="parquet").to_table(
        columns=["key", "orbit_size", "occurrence", "chosen", "result"], filter=where, use_threads=False)


def part_files(folder: Path, part: Part | None = None) -> list[Path]:
    """The part files of a partitioned table or run `folder` (not a run's sample file), in table order; only
    those of `part`'s family and symmetry if given."""
    if part is not None:
        return sorted((folder / Path(part.file).parent).glob("*.parquet"))
    return sorted(folder.glob("*/*/*.parquet"))


def key_sample(con: duckdb.DuckDBPyConnection, sources: Sequence[Path]) -> pa.Table:
    """The keys that cut parts in Parquet files `sources` (family, symmetry, key: shards, run files or run samples):
    those whose hash is 0 modulo SAMPLE_MODULUS, distinct, in table order (pattern_parts.sql).

    The sample of a set of keys depends on the set only, and the sample of samples is their union:
    a run keeps its sample in its SAMPLE_FILE (flows/patterns.py), so an incremental build plans its parts
    from the new games' shards and the runs' samples without reading the runs.
    """
    con.read_parquet([str(path) for path in sources], union_by_name=True).create_view("pattern_keys", replace=True)
    con.execute("SET VARIABLE sample_modulus = ?", [SAMPLE_MODULUS])
    return con.sql(sql_text("steps/pattern_parts")).to_arrow_table()


def write_sample(path: Path, sample: pa.Table) -> None:
    """Write a key sample (family, symmetry, key: key_sample) to Parquet file `path`, by a temporary file renamed."""
    write_parquet(path, [sample.select(SAMPLE_SCHEMA.names).cast(SAMPLE_SCHEMA)], schema=SAMPLE_SCHEMA)


def _published(family: str, counts: pa.Table) -> pa.Table:
    """pattern_stats rows of summed counts: the key as its digit string (drawn in Arrow: passing the strings through
    DuckDB costs more than drawing them)."""
    columns = {name: counts[name] for name in counts.column_names}
    columns["key"] = key_texts(family, counts["key"].to_numpy())
    return pa.table([columns[name] for name in PATTERN_STATS_SCHEMA.names],
                    names=PATTERN_STATS_SCHEMA.names).cast(PATTERN_STATS_SCHEMA)


def _sum(rows: pa.Table, column: str) -> int:
    return int(pc.sum(rows[column]).as_py() or 0)
