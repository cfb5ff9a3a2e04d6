"""Expectation suite of the `pattern_stats` table: counts, canonical keys, orbits and the symmetry merge."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pyarrow as pa
from numba import njit

from gopat.expectations.runner import (
    Invariant,
    SuiteResult,
    count_invariants,
    manifest_fact,
    run_invariants,
    schema_invariant,
    table_columns,
)
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.render import stones
from gopat.transforms.patterns.symmetry import Group, key_string

TABLE = "pattern_stats"
PREVIOUS, NEW = "pattern_stats_previous", "pattern_stats_new"  # the views of an incremental build
SCHEMA = {
    "family": "VARCHAR",
    "symmetry": "INTEGER",
    "key": "VARCHAR",
    "occurrence": "BIGINT",
    "chosen": "BIGINT",
    "chosen_rate": "DOUBLE",
    "orbit_size": "INTEGER",
    "stones": "INTEGER",
    "diagram": "VARCHAR",
    "result": "BIGINT",
}
SYMMETRIES = (8, 16)
RESULT_FAMILY = "blk4"
BATCH_ROWS = 1 << 19  # rows a batch: CHECKERS + 1 batches are in memory at once
MERGE_TABLE = "_pattern_stats_merge_check"  # prefix of the scratch tables of the key checks, dropped after
MERGE_PARTITION_ROWS = 8_000_000  # rows of a family per scratch table
CHECKERS = 2  # threads checking batches (the key checks are numba, without the GIL)
SAMPLES = 3


def validate(con: duckdb.DuckDBPyConnection, *, manifest: dict) -> SuiteResult:
    """Validate table pattern_stats in `con` (tables are named games, moves, rejects, pattern_stats in
    the connection's default schema). `manifest` holds the ingest and families facts of the schema contract.

    Row checks are violation counts of one DuckDB scan; key checks stream the keys in batches
    (parse every key text, re-canonicalise every key, recompute orbit sizes and stones, apply one
    group element per row and re-canonicalise, find duplicate keys, merge the 8-symmetry rows by
    colour swap and compare with the 16-symmetry rows). GX asserts every count is 0.

    An incremental build (manifest `incremental`) adds the new games' counts (view
    pattern_stats_new) to the previous release's table (view pattern_stats_previous), which passed
    this suite with the same code. Row and total checks cover the whole table; key checks cover the
    new games' rows; and the table must be exactly previous plus new (rows, occurrence, chosen). As
    counts add, every key check that holds in both holds in their sum.
    """
    families = manifest.get("families")
    if not isinstance(families, Mapping):
        raise ValueError("manifest lacks families")
    chosen_events = {name: manifest_fact(manifest, "families", name, "chosen_events") for name in families}
    columns = table_columns(con, TABLE)
    schema = schema_invariant(TABLE, columns, SCHEMA)
    if any(columns.get(name) != kind for name, kind in SCHEMA.items()):
        return run_invariants(TABLE, [schema])
    totals = _totals(con, TABLE)
    invariants = [schema, *_row_invariants(con), *_total_invariants(totals, chosen_events)]
    if manifest.get("incremental"):
        invariants += [*_key_invariants(con, NEW), _previous_plus_new(con, totals)]
    else:
        invariants += _key_invariants(con, TABLE)
    return run_invariants(TABLE, invariants)


def _row_invariants(con: duckdb.DuckDBPyConnection) -> list[Invariant]:
    """Row checks counted in one DuckDB scan (evidence is queried only for the checks that fail)."""
    registered = ", ".join(f"'{name}'" for name in FAMILIES)
    result_limit = 4 ** FAMILIES[RESULT_FAMILY].layout.n_digits
    return count_invariants(con, TABLE, {
        "family_is_registered": ("family, symmetry, key", f"family IS NULL OR family NOT IN ({registered})"),
        "symmetry_in_8_16": ("family, symmetry, key", "symmetry IS NULL OR symmetry NOT IN (8, 16)"),
        "occurrence_at_least_1": ("family, symmetry, key, occurrence", "occurrence IS NULL OR occurrence < 1"),
        "chosen_between_0_and_occurrence": (
            "family, symmetry, key, chosen, occurrence", "chosen IS NULL OR chosen < 0 OR chosen > occurrence"),
        "chosen_rate_between_0_and_1": (
            "family, symmetry, key, chosen_rate", "chosen_rate IS NULL OR NOT (chosen_rate BETWEEN 0 AND 1)"),
        "chosen_rate_is_chosen_over_occurrence": (
            "family, symmetry, key, chosen_rate, chosen, occurrence",
            "NOT (abs(chosen_rate - chosen::DOUBLE / occurrence) <= 1e-12)"),
        "orbit_size_divides_symmetry": (
            "family, symmetry, key, orbit_size",
            "CASE WHEN orbit_size >= 1 THEN symmetry % orbit_size <> 0 ELSE true END"),
        "result_is_blk4_mask_else_null": (
            "family, symmetry, key, result",
            f"""(family = '{RESULT_FAMILY}') IS DISTINCT FROM (result IS NOT NULL)
                OR result < 0 OR result >= {result_limit}"""),
        "diagram_present": ("family, symmetry, key", "diagram IS NULL OR diagram = ''"),
    })


def _totals(con: duckdb.DuckDBPyConnection, source: str) -> dict[tuple[str, int], tuple[int, int, int]]:
    """(rows, occurrence, chosen) of `source` per family and symmetry (8 or 16)."""
    return {
        (family, symmetry): (int(rows), int(occurrence), int(chosen))
        for family, symmetry, rows, occurrence, chosen in con.sql(
            f"""SELECT family, symmetry, count(*), coalesce(sum(occurrence), 0), coalesce(sum(chosen), 0)
                FROM {source} WHERE family IS NOT NULL AND symmetry IN (8, 16) GROUP BY ALL"""
        ).fetchall()
    }


def _total_invariants(
    totals: Mapping[tuple[str, int], tuple[int, int, int]], chosen_events: Mapping[str, int]
) -> list[Invariant]:
    """Per family and symmetry sums of occurrence and chosen (from `totals`) against the manifest and each other."""
    sums = {part: (occurrence, chosen) for part, (_, occurrence, chosen) in totals.items()}
    families = sorted(set(chosen_events) | {family for family, _ in totals})
    manifest_problems = []
    for family in families:
        if family not in chosen_events:
            manifest_problems.append(f"{family}: not in manifest families")
            continue
        for symmetry in SYMMETRIES:
            chosen = sums.get((family, symmetry), (0, 0))[1]
            if chosen != chosen_events[family]:
                manifest_problems.append(
                    f"{family}/{symmetry}: sum(chosen)={chosen}, chosen_events={chosen_events[family]}"
                )
    merge_problems = [
        f"{family}: (occurrence, chosen) 8={sums.get((family, 8), (0, 0))}, 16={sums.get((family, 16), (0, 0))}"
        for family in families
        if sums.get((family, 8), (0, 0)) != sums.get((family, 16), (0, 0))
    ]
    return [
        Invariant("chosen_sum_equals_manifest_chosen_events", len(manifest_problems), "; ".join(manifest_problems)),
        Invariant("symmetry16_totals_equal_symmetry8", len(merge_problems), "; ".join(merge_problems)),
    ]


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


def _previous_plus_new(
    con: duckdb.DuckDBPyConnection, totals: Mapping[tuple[str, int], tuple[int, int, int]]
) -> Invariant:
    """Per family and symmetry, the table's `totals` (rows, occurrence, chosen) equal the previous release's plus
    the new games' (rows: less the new keys the previous table has)."""
    previous, new = _totals(con, PREVIOUS), _totals(con, NEW)
    known = {
        (family, symmetry): rows
        for family, symmetry, rows in con.sql(
            f"""SELECT family, symmetry, count(*) FROM {NEW} SEMI JOIN {PREVIOUS} USING (family, symmetry, key)
                GROUP BY ALL"""
        ).fetchall()
    }
    problems = []
    for part in sorted(previous.keys() | new.keys() | totals.keys()):
        before, added = previous.get(part, (0, 0, 0)), new.get(part, (0, 0, 0))
        expected = (before[0] + added[0] - known.get(part, 0), before[1] + added[1], before[2] + added[2])
        if totals.get(part, (0, 0, 0)) != expected:
            problems.append(f"{part[0]}/{part[1]}: (rows, occurrence, chosen) expected {expected}, "
                            f"found {totals.get(part, (0, 0, 0))}")
    return Invariant("table_is_previous_release_plus_new_games", len(problems), "; ".join(problems[:SAMPLES]))


def _key_invariants(con: duckdb.DuckDBPyConnection, source: str) -> list[Invariant]:
    """Key format, uniqueness, canonical keys, orbit sizes, stones, variants and the 16 = merged 8 check of `source`.

    Family by family, every key of the 8 and 16 symmetries is parsed and checked in batches; the
    well-formed ones go to scratch tables (their own key, and the 16-canonical key they merge into),
    split by merge key into parts of about MERGE_PARTITION_ROWS rows, where DuckDB sums the merge
    one part at a time (a part's hash tables fit in memory; a key's 8 and 16 rows and any copies of
    a row all land in the same part). Keys that come in strictly increasing order within each
    symmetry, as the build writes them, are unique; otherwise DuckDB counts the duplicates too.
    """
    tallies = {
        name: _Tally(name)
        for name in (
            "key_is_colour_then_family_digits",
            "family_symmetry_key_unique",
            "key_is_canonical",
            "orbit_size_matches_key",
            "key_variants_recanonicalise_to_key",
            "stones_match_key",
            "symmetry16_is_symmetry8_merged_by_colour_swap",
        )
    }
    present = dict(con.execute(f"SELECT family, count(*) FROM {source} GROUP BY family").fetchall())
    for family in sorted(set(present) & set(FAMILIES)):
        groups = {symmetry: FAMILIES[family].group(symmetry) for symmetry in SYMMETRIES}
        parts = 1 << max(0, math.ceil(math.log2(present[family] / MERGE_PARTITION_ROWS)))
        tables = [f"{MERGE_TABLE}_{part}" for part in range(parts)]
        try:
            for table in tables:
                con.execute(
                    f"CREATE OR REPLACE TEMP TABLE {table} "
                    "(symmetry INTEGER, own BIGINT, key BIGINT, occurrence BIGINT, chosen BIGINT)"
                )
            order = _Order()
            with ThreadPoolExecutor(max_workers=CHECKERS) as checker:  # batches are checked while others are inserted
                pending: deque[Future[_Checked]] = deque()
                for symmetry in SYMMETRIES:
                    for batch in _batches(con, source, family, symmetry):
                        pending.append(checker.submit(_merge_rows, family, groups, symmetry, batch, parts))
                        if len(pending) > CHECKERS:
                            _take(con, tables, pending.popleft().result(), tallies, order)
                while pending:
                    _take(con, tables, pending.popleft().result(), tallies, order)
            for table in tables:
                if not order.increasing:
                    tallies["family_symmetry_key_unique"].add(*_duplicates(con, family, table))
                tallies["symmetry16_is_symmetry8_merged_by_colour_swap"].add(*_merge_differences(con, family, table))
        finally:
            for table in tables:
                con.execute(f"DROP TABLE IF EXISTS {table}")
    return [tally.invariant() for tally in tallies.values()]


@dataclass
class _Order:
    """Whether the well-formed keys of one family have come in strictly increasing order in each symmetry."""

    increasing: bool = True
    last: dict[int, int] = field(default_factory=dict)

    def add(self, symmetry: int, keys: np.ndarray) -> None:
        """Take the next batch of keys of `symmetry`, in table order."""
        if len(keys):
            follows = symmetry not in self.last or keys[0] > self.last[symmetry]
            self.increasing = self.increasing and follows and bool(np.all(keys[1:] > keys[:-1]))
            self.last[symmetry] = int(keys[-1])


@dataclass(frozen=True)
class _Checked:
    """One checked batch: its well-formed keys, the violations found (count and examples by invariant name) and
    its scratch rows by part."""

    symmetry: int
    keys: np.ndarray
    found: dict[str, tuple[int, list[str]]]
    parts: list[pa.Table]


def _merge_rows(family: str, groups: dict[int, Group], symmetry: int, batch: dict, parts: int) -> _Checked:
    """Check one batch, then its scratch rows (symmetry, own key, 16-canonical key, counts) split into `parts`."""
    keys, ok, found = _check_batch(family, groups[symmetry], batch)
    merge_keys = groups[16].canonicalize(keys)[0] if symmetry == 8 else keys
    rows = pa.table({
        "symmetry": pa.array(np.full(len(keys), symmetry, dtype=np.int32)), "own": keys,
        "key": merge_keys, "occurrence": batch["occurrence"][ok], "chosen": batch["chosen"][ok],
    })
    part_of = (merge_keys % parts).astype(np.int32)
    order = np.argsort(part_of, kind="stable")
    ends = np.cumsum(np.bincount(part_of, minlength=parts))
    rows = rows.take(order)
    split = [rows.slice(end - size, size) for end, size in zip(ends, np.diff(ends, prepend=0), strict=True)]
    return _Checked(symmetry, keys, found, split)


def _take(
    con: duckdb.DuckDBPyConnection, tables: list[str], checked: _Checked, tallies: dict[str, _Tally], order: _Order
) -> None:
    """Count a checked batch's violations and key order (batches are taken in table order) and append each part's
    scratch rows to its table."""
    for name, (count, examples) in checked.found.items():
        tallies[name].add(count, examples)
    order.add(checked.symmetry, checked.keys)
    for table, rows in zip(tables, checked.parts, strict=True):
        con.register("merge_rows", rows)
        con.execute(f"INSERT INTO {table} FROM merge_rows")
        con.unregister("merge_rows")


def _batches(
    con: duckdb.DuckDBPyConnection, source: str, family: str, symmetry: int
) -> Iterator[dict[str, np.ndarray]]:
    """The rows of one family and symmetry of `source` as numpy columns (keys as Arrow strings), about BATCH_ROWS
    at a time."""
    with con.cursor() as cursor:  # its own cursor: the caller writes through `con` while this streams
        reader = cursor.sql(
            f"""SELECT key, coalesce(orbit_size, 0) AS orbit_size, coalesce(stones, -1) AS stones,
                       coalesce(occurrence, 0) AS occurrence, coalesce(chosen, 0) AS chosen
                FROM {source} WHERE family = $family AND symmetry = $symmetry""",
            params={"family": family, "symmetry": symmetry},
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


def _columns(record_batches: list[pa.RecordBatch]) -> dict[str, np.ndarray]:
    """Numpy columns of record batches; `key` stays an Arrow string array."""
    table = pa.Table.from_batches(record_batches)
    columns = {name: table.column(name).to_numpy() for name in ("orbit_size", "stones", "occurrence", "chosen")}
    columns["key"] = pa.concat_arrays(table.column("key").chunks).cast(pa.large_string())
    return columns


def _check_batch(
    family: str, group: Group, batch: dict
) -> tuple[np.ndarray, np.ndarray, dict[str, tuple[int, list[str]]]]:
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
    counted = stones(family, keys)

    def text(key: np.int64) -> str:
        return key_string(int(key), n_digits)

    orbit_sizes, stones_given = batch["orbit_size"][ok], batch["stones"][ok]
    checks: dict[str, tuple[np.ndarray, Callable[[int], str]]] = {
        "key_is_canonical": (canonical != keys, lambda row: f"canonical form {text(canonical[row])}"),
        "orbit_size_matches_key": (
            orbit_sizes != orbit, lambda row: f"orbit_size {orbit_sizes[row]}, recomputed {orbit[row]}"),
        "key_variants_recanonicalise_to_key": (
            recanonical != keys,
            lambda row: f"variant {text(variants[row])} re-canonicalises to {text(recanonical[row])}",
        ),
        "stones_match_key": (
            stones_given != counted, lambda row: f"stones {stones_given[row]}, recomputed {counted[row]}"),
    }
    for name, (wrong, describe) in checks.items():
        rows = np.flatnonzero(wrong)
        found[name] = (len(rows), [f"{family}/{group.order} {text(keys[row])}: {describe(row)}" for row in rows[:SAMPLES]])
    return keys, ok, found


def parse_keys(texts: pa.Array, *, n_digits: int, group: Group) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Keys of digit texts, one variant of each, and which texts are well-formed keys.

    A well-formed key is `n_digits` digits 0..3 whose first (the colour to move) is 1 or 2. Row i's
    variant is its key transformed by group element ``i % group.order``, computed digit by digit
    from the element's permutation and value maps (not with the byte tables `Group.canonicalize`
    uses), so the variant check compares two implementations.
    """
    texts = texts.cast(pa.large_string())
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int64)[texts.offset : texts.offset + len(texts) + 1]
    buffer = texts.buffers()[2]
    data = np.frombuffer(buffer, dtype=np.uint8) if buffer is not None and buffer.size else np.zeros(0, np.uint8)
    valid = texts.is_valid().to_numpy(zero_copy_only=False)
    perms = np.array([element.perm for element in group.elements], dtype=np.int64)
    maps = np.array([element.maps for element in group.elements], dtype=np.int64)
    return _parse_keys(offsets, data, valid, n_digits, perms, maps)


@njit(cache=True, nogil=True)
def _parse_keys(
    offsets: np.ndarray, data: np.ndarray, valid: np.ndarray, n_digits: int, perms: np.ndarray, maps: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = valid.size
    keys = np.zeros(rows, dtype=np.int64)
    variants = np.zeros(rows, dtype=np.int64)
    ok = np.zeros(rows, dtype=np.bool_)
    digits = np.zeros(n_digits, dtype=np.int64)
    for row in range(rows):
        start = offsets[row]
        if not valid[row] or offsets[row + 1] - start != n_digits:
            continue
        good = True
        key = 0
        for i in range(n_digits):
            digit = np.int64(data[start + i]) - 48
            good = good and 0 <= digit <= 3
            digits[i] = digit & 3
            key = (key << 2) | (digit & 3)
        if not good or digits[0] == 0 or digits[0] == 3:
            continue
        element = row % perms.shape[0]
        variant = 0
        for i in range(n_digits):
            variant = (variant << 2) | maps[element, i, digits[perms[element, i]]]
        keys[row], variants[row], ok[row] = key, variant, True
    return keys, variants, ok


def _duplicates(con: duckdb.DuckDBPyConnection, family: str, table: str) -> tuple[int, list[str]]:
    """Number of (symmetry, key) pairs of scratch table `table` given more than once, and examples."""
    rows = con.sql(
        f"""SELECT count(*) OVER () AS duplicates, symmetry, own, count(*) AS copies
            FROM {table} GROUP BY symmetry, own HAVING count(*) > 1
            ORDER BY symmetry, own LIMIT {SAMPLES}"""
    ).fetchall()
    n_digits = FAMILIES[family].layout.n_digits
    examples = [f"{family}/{symmetry} {key_string(own, n_digits)}: {copies} rows" for _, symmetry, own, copies in rows]
    return (rows[0][0] if rows else 0), examples


def _merge_differences(con: duckdb.DuckDBPyConnection, family: str, table: str) -> tuple[int, list[str]]:
    """Number of 16-canonical keys whose merged 8-symmetry counts differ from the 16 rows, and examples.

    Sums scratch table `table` (the 8 rows under their 16-canonical key, and the 16 rows) in DuckDB,
    both sides in one aggregation (NULL: the key has no row of that side).
    """
    rows = con.sql(
        f"""WITH sides AS (
                SELECT
                    key,
                    sum(occurrence) FILTER (WHERE symmetry = 8) AS occurrence_8,
                    sum(chosen) FILTER (WHERE symmetry = 8) AS chosen_8,
                    sum(occurrence) FILTER (WHERE symmetry = 16) AS occurrence_16,
                    sum(chosen) FILTER (WHERE symmetry = 16) AS chosen_16
                FROM {table} GROUP BY key
            )
            SELECT count(*) OVER () AS differences, key, occurrence_8, chosen_8, occurrence_16, chosen_16
            FROM sides
            WHERE occurrence_8 IS DISTINCT FROM occurrence_16 OR chosen_8 IS DISTINCT FROM chosen_16
            ORDER BY key LIMIT {SAMPLES}"""
    ).fetchall()
    n_digits = FAMILIES[family].layout.n_digits

    def counts(occurrence: int | None, chosen: int | None) -> str:
        return "absent" if occurrence is None else f"occurrence {occurrence}, chosen {chosen}"

    examples = [
        f"{family} {key_string(key, n_digits)}: merged 8 {counts(o8, c8)}; 16 {counts(o16, c16)}"
        for _, key, o8, c8, o16, c16 in rows
    ]
    return (rows[0][0] if rows else 0), examples
