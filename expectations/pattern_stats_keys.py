"""Key checks of the `pattern_stats` suite in streamed batches: every published key parsed and re-canonicalised, every
key of the complete counts merged by colour swap."""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa

from gopat.expectations.pattern_keys import parse_keys
from gopat.expectations.runner import Invariant
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.keys import key_string
from gopat.transforms.patterns.symmetry import Group

SYMMETRIES = (8, 16)
BATCH_ROWS = 1 << 19  # rows a batch: CHECKERS + 1 batches are in memory at once
MERGE_TABLE = "_pattern_stats_merge_check"  # prefix of the scratch tables of the key checks, dropped after
MERGE_PARTITION_ROWS = 8_000_000  # rows of a family per scratch table
CHECKERS = 2  # threads checking or splitting batches (numba and numpy, without the GIL)
SAMPLES = 3

Batch = dict[str, Any]  # numpy columns; `key` int64 (complete counts) or an Arrow string array (published rows)


@dataclass
class _Tally:
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



def key_invariants(con: duckdb.DuckDBPyConnection, source: str) -> list[Invariant]:
    """Key format, uniqueness, canonical keys, orbit sizes and variants of the published rows of `source`.

    Family by family, every key text of the 8 and 16 symmetries is parsed and checked in batches on
    CHECKERS threads. Keys that come in strictly increasing order within each symmetry, as the build
    writes them, are unique; otherwise DuckDB counts the duplicates.
    """
    tallies = _tallies(
        "key_is_colour_then_family_digits", "family_symmetry_key_unique", "key_is_canonical",
        "orbit_size_matches_key", "key_variants_recanonicalise_to_key",
    )
    present = {family for (family,) in con.execute("SELECT DISTINCT family FROM query_table(?)", [source]).fetchall()}
    for family in sorted(present & FAMILIES.keys()):
        groups = {symmetry: FAMILIES[family].group(symmetry) for symmetry in SYMMETRIES}
        order = _Order()
        with ThreadPoolExecutor(max_workers=CHECKERS) as checker:  # batches are checked while others are read
            pending: deque[Future[_Checked]] = deque()
            for symmetry in SYMMETRIES:
                for batch in _batches(con, source, family, symmetry, "checks/pattern_stats_key_batches"):
                    pending.append(checker.submit(_check_rows, family, groups[symmetry], symmetry, batch))
                    if len(pending) > CHECKERS:
                        _tally(pending.popleft().result(), tallies, order)
            while pending:
                _tally(pending.popleft().result(), tallies, order)
        if not order.increasing:
            tallies["family_symmetry_key_unique"].add(*_duplicate_texts(con, source, family))
    return [tally.invariant() for tally in tallies.values()]


def complete_count_invariants(con: duckdb.DuckDBPyConnection, source: str) -> list[Invariant]:
    """Uniqueness of the int keys of complete counts `source` (the build state) and the 16 = merged 8 check.

    Family by family: keys in strictly increasing order in each symmetry, as the build writes them, are unique,
    and the merge check walks them in order (:func:`_sorted_merge_differences`). Otherwise the keys of the 8
    and 16 symmetries go to scratch tables (their own key, and the 16-canonical key they merge into), split
    by merge key into parts of about MERGE_PARTITION_ROWS rows, where DuckDB sums the merge one part at a
    time (a part's hash tables fit in memory; a key's 8 and 16 rows and any copies of a row all land in the
    same part). The check needs every key: a key below its threshold can be part of a 16-key above it.
    """
    tallies = _tallies("complete_counts_key_unique", "symmetry16_is_symmetry8_merged_by_colour_swap")
    present = dict(con.execute("SELECT family, count(*) FROM query_table(?) GROUP BY family", [source]).fetchall())
    for family in sorted(present.keys() & FAMILIES.keys()):
        group16 = FAMILIES[family].group(16)
        merged = _sorted_merge_differences(con, source, family, group16)
        if merged is not None:  # keys strictly increasing in both symmetries: unique, no scratch tables needed
            tallies["symmetry16_is_symmetry8_merged_by_colour_swap"].add(*merged)
            continue
        parts = 1 << max(0, math.ceil(math.log2(present[family] / MERGE_PARTITION_ROWS)))
        tables = [f"{MERGE_TABLE}_{part}" for part in range(parts)]
        try:
            for table in tables:
                con.execute(
                    f"CREATE OR REPLACE TEMP TABLE {table} "
                    "(symmetry INTEGER, own BIGINT, key BIGINT, occurrence BIGINT, chosen BIGINT)"
                )
            order = _Order()
            with ThreadPoolExecutor(max_workers=CHECKERS) as splitter:  # batches are split while others are inserted
                pending: deque[Future[_Checked]] = deque()
                for symmetry in SYMMETRIES:
                    for batch in _batches(con, source, family, symmetry, "checks/pattern_counts_key_batches"):
                        pending.append(splitter.submit(_merge_rows, group16, symmetry, batch, parts))
                        if len(pending) > CHECKERS:
                            _insert(con, tables, pending.popleft().result(), order)
                while pending:
                    _insert(con, tables, pending.popleft().result(), order)
            for table in tables:
                if not order.increasing:
                    tallies["complete_counts_key_unique"].add(*_duplicates(con, family, table))
                tallies["symmetry16_is_symmetry8_merged_by_colour_swap"].add(*_merge_differences(con, family, table))
        finally:
            for table in tables:
                con.execute(f"DROP TABLE IF EXISTS {table}")
    return [tally.invariant() for tally in tallies.values()]


def _sorted_merge_differences(
    con: duckdb.DuckDBPyConnection, source: str, family: str, group16: Group
) -> tuple[int, list[str]] | None:
    """The 16 = merged 8 check of one family's complete counts, as :func:`_merge_differences` counts it, by merging
    sorted streams; None as soon as a symmetry's keys are not strictly increasing (as the build writes them).

    An 8-row merges into its 16-canonical key: the row's own key (a 16-canonical key is 8-canonical) or, for
    about half the rows, the smaller key of its colour swap. A first pass over the 8-rows keeps those swapped
    rows, sorted by the key they merge into; a second pass merges the other 8-rows, the swapped ones and the
    16-rows, all in key order, range by range of the 16-rows.
    """
    order = _Order()
    direct: list[npt.NDArray[np.bool_]] = []  # per 8-row in table order: it merges into its own key
    swapped: list[tuple[npt.NDArray[np.int64], ...]] = []
    query = "checks/pattern_counts_key_batches"
    with ThreadPoolExecutor(max_workers=CHECKERS) as pool:  # batches are canonicalised while others are read
        pending: deque[Future[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], Batch]]] = deque()

        def take() -> bool:
            keys, merge_keys, batch = pending.popleft().result()
            order.add(8, keys)
            own = merge_keys == keys
            direct.append(own)
            swapped.append((merge_keys[~own], batch["occurrence"][~own], batch["chosen"][~own]))
            return order.increasing

        for batch in _batches(con, source, family, 8, query):
            pending.append(pool.submit(_merge_keys, group16, batch))
            if len(pending) > CHECKERS and not take():
                return None
        while pending:
            if not take():
                return None
    rank = np.argsort(np.concatenate([k for k, _, _ in swapped]), kind="stable") if swapped else np.zeros(0, np.int64)
    swaps = [np.concatenate([part[i] for part in swapped])[rank] if swapped else np.zeros(0, np.int64)
             for i in range(3)]  # the swapped rows: key merged into, counts; sorted by that key
    swapped.clear()
    own = np.concatenate(direct) if direct else np.zeros(0, dtype=np.bool_)
    eights = _direct_rows(_batches(con, source, family, 8, query), own)
    empty = np.zeros(0, dtype=np.int64)
    differences, examples = 0, list[str]()
    sixteen = _Order()
    pending_rows: list[tuple[npt.NDArray[np.int64], ...]] = []
    used = 0
    batches16: Iterator[Batch | None] = itertools.chain(_batches(con, source, family, 16, query), [None])
    for block in batches16:  # None: the 8-rows above the last 16-row
        if block is not None:
            sixteen.add(16, block["key"])
            if not sixteen.increasing:
                return None
        top = None if block is None else int(block["key"][-1])  # a block is never empty
        rows, pending_rows = _rows_up_to(eights, pending_rows, top)
        stop = len(swaps[0]) if top is None else int(np.searchsorted(swaps[0], top, side="right"))
        rows.append(tuple(column[used:stop] for column in swaps))
        used = stop
        rows16 = (empty, empty, empty) if block is None else (block["key"], block["occurrence"], block["chosen"])
        count, shown = _compare(family, _summed(rows), rows16)
        differences += count
        examples += shown[:SAMPLES - len(examples)]
    return differences, examples


def _merge_keys(group16: Group, batch: Batch) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], Batch]:
    """A batch of 8-rows' keys, the 16-canonical keys they merge into, and the batch."""
    return batch["key"], group16.canonicalize(batch["key"])[0], batch


def _direct_rows(
    batches: Iterator[Batch], direct: npt.NDArray[np.bool_]
) -> Iterator[tuple[npt.NDArray[np.int64], ...]]:
    """Key and counts of the 8-rows of ``batches`` that merge into their own key (``direct``, per row in table
    order)."""
    first = 0
    for batch in batches:
        own = direct[first:first + len(batch["key"])]
        first += len(own)
        yield batch["key"][own], batch["occurrence"][own], batch["chosen"][own]


def _rows_up_to(
    rows: Iterator[tuple[npt.NDArray[np.int64], ...]], held: list[tuple[npt.NDArray[np.int64], ...]], top: int | None
) -> tuple[list[tuple[npt.NDArray[np.int64], ...]], list[tuple[npt.NDArray[np.int64], ...]]]:
    """The rows (sorted by key) of ``held`` then ``rows`` with keys up to ``top`` (None: all), and those held back."""
    taken = []
    while True:
        while held:
            keys = held[0][0]
            cut = len(keys) if top is None else int(np.searchsorted(keys, top, side="right"))
            taken.append(tuple(column[:cut] for column in held[0]))
            if cut < len(keys):
                return taken, [tuple(column[cut:] for column in held[0]), *held[1:]]
            held = held[1:]
        batch = next(rows, None)
        if batch is None:
            return taken, []
        held = [batch]


def _summed(rows: list[tuple[npt.NDArray[np.int64], ...]]) -> tuple[npt.NDArray[np.int64], ...]:
    """Key and summed counts of each distinct key of sorted parts ``rows``."""
    keys, occurrence, chosen = (np.concatenate([part[i] for part in rows]) for i in range(3))
    if not len(keys):
        return keys, occurrence, chosen
    order = np.argsort(keys, kind="stable")  # a merge of the sorted parts
    keys, occurrence, chosen = keys[order], occurrence[order], chosen[order]
    starts = np.flatnonzero(np.diff(keys, prepend=keys[0] - 1))
    return keys[starts], np.add.reduceat(occurrence, starts), np.add.reduceat(chosen, starts)


def _compare(
    family: str, eight: tuple[npt.NDArray[np.int64], ...], sixteen: tuple[npt.NDArray[np.int64], ...]
) -> tuple[int, list[str]]:
    """Keys whose merged 8 counts (``eight``: sorted distinct keys and counts) differ from the 16-rows (sorted), and
    examples, smallest keys first."""
    at = np.searchsorted(sixteen[0], eight[0])
    found = at < len(sixteen[0])
    found[found] = sixteen[0][at[found]] == eight[0][found]
    same = found.copy()
    same[found] = (sixteen[1][at[found]] == eight[1][found]) & (sixteen[2][at[found]] == eight[2][found])
    paired = np.zeros(len(sixteen[0]), dtype=np.bool_)
    paired[at[found]] = True
    wrong, alone = np.flatnonzero(~same), np.flatnonzero(~paired)  # 8-keys absent or different; 16-keys alone

    def counts(side: tuple[npt.NDArray[np.int64], ...], row: int | None) -> tuple[int, int] | None:
        return None if row is None else (int(side[1][row]), int(side[2][row]))

    shown = sorted([(int(eight[0][i]), int(i), int(at[i]) if found[i] else None) for i in wrong[:SAMPLES]]
                   + [(int(sixteen[0][j]), None, int(j)) for j in alone[:SAMPLES]], key=lambda example: example[0])
    return len(wrong) + len(alone), [_merge_example(family, key, counts(eight, i), counts(sixteen, j))
                                     for key, i, j in shown[:SAMPLES]]


def _merge_example(family: str, key: int, eight: tuple[int, int] | None, sixteen: tuple[int, int] | None) -> str:
    """One example of the merge check: a 16-canonical key, its merged 8 and its 16 (occurrence, chosen), None
    for no row."""

    def text(counts: tuple[int, int] | None) -> str:
        return "absent" if counts is None else f"occurrence {counts[0]}, chosen {counts[1]}"

    return f"{family} {key_string(key, FAMILIES[family].layout.n_digits)}: merged 8 {text(eight)}; 16 {text(sixteen)}"


def _tallies(*names: str) -> dict[str, _Tally]:
    return {name: _Tally(name) for name in names}


@dataclass
class _Order:
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
class _Checked:
    """One checked batch: its well-formed keys, the violations found (count and examples by invariant name) and
    its scratch rows by part (complete counts only)."""

    symmetry: int
    keys: npt.NDArray[np.int64]
    found: dict[str, tuple[int, list[str]]]
    parts: list[pa.Table] = field(default_factory=list)


def _check_rows(family: str, group: Group, symmetry: int, batch: Batch) -> _Checked:
    """Check one batch of published rows."""
    keys, _, found = _check_batch(family, group, batch)
    return _Checked(symmetry, keys, found)


def _merge_rows(group16: Group, symmetry: int, batch: Batch, parts: int) -> _Checked:
    """The scratch rows of one batch of complete counts (symmetry, own key, 16-canonical key, counts) split into
    `parts`."""
    keys = batch["key"]
    merge_keys = group16.canonicalize(keys)[0] if symmetry == 8 else keys
    rows = pa.table({
        "symmetry": pa.array(np.full(len(keys), symmetry, dtype=np.int32)), "own": keys,
        "key": merge_keys, "occurrence": batch["occurrence"], "chosen": batch["chosen"],
    })
    part_of = (merge_keys % parts).astype(np.int32)
    order = np.argsort(part_of, kind="stable")
    ends = np.cumsum(np.bincount(part_of, minlength=parts))
    rows = rows.take(order)
    split = [rows.slice(end - size, size) for end, size in zip(ends, np.diff(ends, prepend=0), strict=True)]
    return _Checked(symmetry, keys, {}, split)


def _tally(checked: _Checked, tallies: dict[str, _Tally], order: _Order) -> None:
    """Count a checked batch's violations and note its key order (batches are taken in table order)."""
    for name, (count, examples) in checked.found.items():
        tallies[name].add(count, examples)
    order.add(checked.symmetry, checked.keys)


def _insert(con: duckdb.DuckDBPyConnection, tables: list[str], checked: _Checked, order: _Order) -> None:
    """Note a batch's key order (batches are taken in table order) and append each part's scratch rows to its
    table."""
    order.add(checked.symmetry, checked.keys)
    for table, rows in zip(tables, checked.parts, strict=True):
        con.register("merge_rows", rows)
        con.execute(f"INSERT INTO {table} FROM merge_rows")
        con.unregister("merge_rows")


def _batches(
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


def _check_batch(
    family: str, group: Group, batch: Batch
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], dict[str, tuple[int, list[str]]]]:
    """Check the key invariants of one batch of one family and symmetry.

    Returns the int64 keys of its well-formed rows, the mask of those rows in the batch, and the
    violations found: count and up to SAMPLES examples by invariant name.
    """
    n_digits = FAMILIES[family].layout.n_digits
    texts = batch["key"]
    parsed, variants, ok = parse_keys(texts, n_digits=n_digits, group=group)
    bad = np.flatnonzero(~ok)
    found = {"key_is_colour_then_family_digits": (
        len(bad), [f"{family}/{group.order} {texts[int(row)]}" for row in bad[:SAMPLES]])}
    keys, variants = parsed[ok], variants[ok]
    canonical, orbit, _ = group.canonicalize(keys)
    recanonical = group.canonicalize(variants)[0]

    def text(key: np.int64) -> str:
        return key_string(int(key), n_digits)

    orbit_sizes = batch["orbit_size"][ok]
    checks: dict[str, tuple[npt.NDArray[np.bool_], Callable[[int], str]]] = {
        "key_is_canonical": (canonical != keys, lambda row: f"canonical form {text(canonical[row])}"),
        "orbit_size_matches_key": (
            orbit_sizes != orbit, lambda row: f"orbit_size {orbit_sizes[row]}, recomputed {orbit[row]}"),
        "key_variants_recanonicalise_to_key": (
            recanonical != keys,
            lambda row: f"variant {text(variants[row])} re-canonicalises to {text(recanonical[row])}",
        ),
    }
    for name, (wrong, describe) in checks.items():
        rows = np.flatnonzero(wrong)
        examples = [f"{family}/{group.order} {text(keys[row])}: {describe(row)}" for row in rows[:SAMPLES]]
        found[name] = (len(rows), examples)
    return keys, ok, found



def _duplicate_texts(con: duckdb.DuckDBPyConnection, source: str, family: str) -> tuple[int, list[str]]:
    """Number of (symmetry, key) pairs of one family of published rows `source` given more than once, and
    examples."""
    rows = con.sql(
        sql_text("checks/pattern_stats_duplicate_texts"),
        params={"source": source, "family": family, "samples": SAMPLES},
    ).fetchall()
    examples = [f"{family}/{symmetry} {key}: {copies} rows" for _, symmetry, key, copies in rows]
    return (rows[0][0] if rows else 0), examples


def _duplicates(con: duckdb.DuckDBPyConnection, family: str, table: str) -> tuple[int, list[str]]:
    """Number of (symmetry, key) pairs of scratch table `table` given more than once, and examples."""
    rows = con.sql(
        sql_text("checks/pattern_stats_duplicate_keys"), params={"scratch": table, "samples": SAMPLES}
    ).fetchall()
    n_digits = FAMILIES[family].layout.n_digits
    examples = [f"{family}/{symmetry} {key_string(own, n_digits)}: {copies} rows" for _, symmetry, own, copies in rows]
    return (rows[0][0] if rows else 0), examples


def _merge_differences(con: duckdb.DuckDBPyConnection, family: str, table: str) -> tuple[int, list[str]]:
    """Number of 16-canonical keys whose merged 8-symmetry counts differ from the 16 rows, and examples.

    Sums scratch table `table` (the 8 rows under their 16-canonical key, and the 16 rows) in DuckDB
    (checks/pattern_stats_merge_differences.sql).
    """
    rows = con.sql(
        sql_text("checks/pattern_stats_merge_differences"), params={"scratch": table, "samples": SAMPLES}
    ).fetchall()
    examples = [_merge_example(family, key, None if o8 is None else (o8, c8), None if o16 is None else (o16, c16))
                for _, key, o8, c8, o16, c16 in rows]
    return (rows[0][0] if rows else 0), examples

