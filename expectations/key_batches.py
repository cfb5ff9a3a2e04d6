"""Streamed batches of one family and symmetry of a pattern table, for the key checks of the `pattern_stats` suite
(pattern_stats_keys.py, pattern_counts_merge.py), and the tallies of what they find."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa

from gopat.expectations.runner import Invariant
from gopat.transforms.analytics.loader import sql_text

BATCH_ROWS = 1 << 19  # rows a batch: CHECKERS + 1 batches are in memory at once
CHECKERS = 2  # threads checking or splitting batches (numba and numpy, without the GIL)
SAMPLES = 3

Batch = dict[str, Any]  # numpy columns; `key` int64 (complete counts) or an Arrow string array (published rows)


@dataclass
class Tally:
    """Violation count and a few examples of one key invariant."""

    name: str
    violations: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, count: int, examples: Iterable[str]) -> None:
        """Add `count` violations; keep examples until SAMPLES are kept."""
        self.violations += count
        for example in examples:
            if len(self.examples) >= SAMPLES:
                break
            self.examples.append(example)

    def invariant(self) -> Invariant:
        """The tally as an invariant for the GX run."""
        return Invariant(self.name, self.violations, "e.g. " + "; ".join(self.examples) if self.examples else "")


def empty_tallies(*names: str) -> dict[str, Tally]:
    """An empty tally of each invariant of `names`."""
    return {name: Tally(name) for name in names}


@dataclass
class Order:
    """Whether the well-formed keys of one family have come in strictly increasing order in each symmetry."""

    increasing: bool = True
    last: dict[int, int] = field(default_factory=dict)

    def add(self, symmetry: int, keys: npt.NDArray[np.int64]) -> None:
        """Take the next batch of keys of `symmetry`, in table order."""
        if len(keys):
            follows = symmetry not in self.last or keys[0] > self.last[symmetry]
            self.increasing = self.increasing and follows and bool(np.all(keys[1:] > keys[:-1]))
            self.last[symmetry] = int(keys[-1])


@dataclass(frozen=True)
class Checked:
    """One checked batch: its well-formed keys, the violations found (count and examples by invariant name) and
    its scratch rows by part (complete counts only)."""

    symmetry: int
    keys: npt.NDArray[np.int64]
    found: dict[str, tuple[int, list[str]]]
    parts: list[pa.Table] = field(default_factory=list)


def batches(
    con: duckdb.DuckDBPyConnection, source: str, family: str, symmetry: int, query: str
) -> Iterator[Batch]:
    """The rows of one family and symmetry of `source` (SQL file `query`) as numpy columns (key texts as Arrow
    strings), about BATCH_ROWS at a time."""
    with con.cursor() as cursor:  # its own cursor: the caller writes through `con` while this streams
        reader = cursor.sql(
            sql_text(query),
            params={"source": source, "family": family, "symmetry": symmetry},
        ).to_arrow_reader(BATCH_ROWS)
        pending: list[pa.RecordBatch] = []
        rows = 0
        for record_batch in reader:
            pending.append(record_batch)
            rows += record_batch.num_rows
            if rows >= BATCH_ROWS:
                yield _columns(pending)
                pending, rows = [], 0
        if rows:
            yield _columns(pending)


def _columns(record_batches: list[pa.RecordBatch]) -> Batch:
    """Numpy columns of record batches; a text `key` stays an Arrow string array."""
    table = pa.Table.from_batches(record_batches)
    columns: Batch = {name: table.column(name).to_numpy() for name in table.column_names if name != "key"}
    key = table.column("key")
    columns["key"] = (
        key.to_numpy() if pa.types.is_integer(key.type) else pa.concat_arrays(key.chunks).cast(pa.large_string())
    )
    return columns
