"""Key checks of the `pattern_stats` suite on the complete counts (its runs), in streamed batches: every key
unique, and the 16-symmetry rows equal to the 8-symmetry rows merged by colour swap."""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa

from gopat.expectations.key_batches import CHECKERS, SAMPLES, Batch, Checked, Order, batches, empty_tallies
from gopat.expectations.runner import Invariant
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.keys import key_string
from gopat.transforms.patterns.symmetry import SYMMETRIES, Group

MERGE_TABLE = "_pattern_stats_merge_check"  # prefix of the scratch tables of the key checks, dropped after
MERGE_PARTITION_ROWS = 8_000_000  # rows of a family per scratch table


def complete_count_invariants(con: duckdb.DuckDBPyConnection, source: str) -> list[Invariant]:
    """Uniqueness of the int keys of complete counts `source` (its runs) and the 16 = merged 8 check.

    Family by family: keys in strictly increasing order in each symmetry, as the build writes them, are unique,
    and the merge check walks them in order (:func:`_sorted_merge_differences`). Otherwise the keys of the 8
    and 16 symmetries go to scratch tables (their own key, and the 16-canonical key they merge into), split
    by merge key into parts of about MERGE_PARTITION_ROWS rows, where DuckDB sums the merge one part at a
    time (a part's hash tables fit in memory; a key's 8 and 16 rows and any copies of a row all land in the
    same part). The check needs every key: a key below its threshold can be part of a 16-key above it.
    """
    tallies = empty_tallies("complete_counts_key_unique", "symmetry16_is_symmetry8_merged_by_colour_swap")
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
            order = Order()
            with ThreadPoolExecutor(max_workers=CHECKERS) as splitter:  # batches are split while others are inserted
                pending: deque[Future[Checked]] = deque()
                for symmetry in SYMMETRIES:
                    for batch in batches(con, source, family, symmetry, "checks/pattern_counts_key_batches"):
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
    order = Order()
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

        for batch in batches(con, source, family, 8, query):
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
    eights = _direct_rows(batches(con, source, family, 8, query), own)
    empty = np.zeros(0, dtype=np.int64)
    differences, examples = 0, list[str]()
    sixteen = Order()
    pending_rows: list[tuple[npt.NDArray[np.int64], ...]] = []
    used = 0
    batches16: Iterator[Batch | None] = itertools.chain(batches(con, source, family, 16, query), [None])
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


def _merge_rows(group16: Group, symmetry: int, batch: Batch, parts: int) -> Checked:
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
    return Checked(symmetry, keys, {}, split)


def _insert(con: duckdb.DuckDBPyConnection, tables: list[str], checked: Checked, order: Order) -> None:
    """Note a batch's key order (batches are taken in table order) and append each part's scratch rows to its
    table."""
    order.add(checked.symmetry, checked.keys)
    for table, rows in zip(tables, checked.parts, strict=True):
        con.register("merge_rows", rows)
        con.execute(f"INSERT INTO {table} FROM merge_rows")
        con.unregister("merge_rows")


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
