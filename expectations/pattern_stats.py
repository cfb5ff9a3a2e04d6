"""Expectation suite of the `pattern_stats` table: counts, canonical keys, orbits and the symmetry merge."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pyarrow as pa

from expectations.runner import (
    Invariant,
    SuiteResult,
    manifest_fact,
    run_invariants,
    schema_invariant,
    sql_invariant,
    table_columns,
)
from transforms.patterns import FAMILIES, stones
from transforms.symmetry import Element, Group, key_string

TABLE = "pattern_stats"
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
BATCH_ROWS = 1 << 20
MERGE_TABLE = "_pattern_stats_merge_check"  # scratch table of the 16 = merged 8 check, dropped after
SAMPLES = 3


def validate(con: duckdb.DuckDBPyConnection, *, manifest: dict) -> SuiteResult:
    """Validate table pattern_stats in `con` (tables are named games, moves, rejects, pattern_stats in
    the connection's default schema). `manifest` holds the ingest and families facts of the schema contract.

    Row checks run in DuckDB as violation counts; key checks stream the keys through numpy in
    batches (re-canonicalise every key, recompute orbit sizes and stones, apply one group element per
    row and re-canonicalise, merge the 8-symmetry rows by colour swap and compare with the
    16-symmetry rows). GX asserts every count is 0.
    """
    families = manifest.get("families")
    if not isinstance(families, Mapping):
        raise ValueError("manifest lacks families")
    chosen_events = {name: manifest_fact(manifest, "families", name, "chosen_events") for name in families}
    columns = table_columns(con, TABLE)
    schema = schema_invariant(TABLE, columns, SCHEMA)
    if any(columns.get(name) != kind for name, kind in SCHEMA.items()):
        return run_invariants(TABLE, [schema])
    invariants = [schema, *_row_invariants(con), *_total_invariants(con, chosen_events), *_key_invariants(con)]
    return run_invariants(TABLE, invariants)


def key_digits(keys: pa.Array, n_digits: int) -> np.ndarray:
    """The digits of key texts as a (rows, n_digits) uint8 matrix, without a Python loop.

    Every key must be a non-null string of exactly `n_digits` digits 0..3 (filter in SQL first).
    """
    keys = keys.cast(pa.large_string())
    offsets = np.frombuffer(keys.buffers()[1], dtype=np.int64)[keys.offset : keys.offset + len(keys) + 1]
    if keys.null_count or np.any(np.diff(offsets) != n_digits):
        raise ValueError(f"keys must be {n_digits} digits long")
    if not len(keys):
        return np.zeros((0, n_digits), dtype=np.uint8)
    data = np.frombuffer(keys.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    digits = (data - np.uint8(ord("0"))).reshape(-1, n_digits)
    if np.any(digits > 3):
        raise ValueError("keys must be digits 0..3")
    return digits


def encode_digits(digits: np.ndarray) -> np.ndarray:
    """Base-4 int64 keys of a (rows, n_digits) digit matrix, most significant digit first."""
    keys = np.zeros(len(digits), dtype=np.int64)
    for column in range(digits.shape[1]):
        keys <<= 2
        keys |= digits[:, column]
    return keys


def apply_element(element: Element, digits: np.ndarray) -> np.ndarray:
    """Digit matrix of every key transformed by `element` (``new[i] = maps[i][old[perm[i]]]``)."""
    maps = np.array(element.maps, dtype=np.uint8)
    columns = np.arange(element.n_digits)
    return maps[columns, digits[:, list(element.perm)]]


def _row_invariants(con: duckdb.DuckDBPyConnection) -> list[Invariant]:
    """Row checks as DuckDB queries returning the violating rows."""
    registered = ", ".join(f"'{name}'" for name in FAMILIES)
    lengths = ", ".join(f"('{name}', {family.layout.n_digits})" for name, family in FAMILIES.items())
    result_limit = 4 ** FAMILIES[RESULT_FAMILY].layout.n_digits
    t = TABLE
    return [
        _unique_keys(con),
        sql_invariant(
            con,
            "family_is_registered",
            f"SELECT family, symmetry, key FROM {t} WHERE family IS NULL OR family NOT IN ({registered})",
        ),
        sql_invariant(
            con,
            "symmetry_in_8_16",
            f"SELECT family, symmetry, key FROM {t} WHERE symmetry IS NULL OR symmetry NOT IN (8, 16)",
        ),
        sql_invariant(
            con,
            "key_is_colour_then_family_digits",
            f"""SELECT family, symmetry, key FROM {t} JOIN (VALUES {lengths}) AS f(family, n_digits) USING (family)
                WHERE key IS NULL OR length(key) <> n_digits OR NOT regexp_full_match(key, '[12][0-3]*')""",
        ),
        sql_invariant(
            con,
            "occurrence_at_least_1",
            f"SELECT family, symmetry, key, occurrence FROM {t} WHERE occurrence IS NULL OR occurrence < 1",
        ),
        sql_invariant(
            con,
            "chosen_between_0_and_occurrence",
            f"""SELECT family, symmetry, key, chosen, occurrence FROM {t}
                WHERE chosen IS NULL OR chosen < 0 OR chosen > occurrence""",
        ),
        sql_invariant(
            con,
            "chosen_rate_between_0_and_1",
            f"""SELECT family, symmetry, key, chosen_rate FROM {t}
                WHERE chosen_rate IS NULL OR NOT (chosen_rate BETWEEN 0 AND 1)""",
        ),
        sql_invariant(
            con,
            "chosen_rate_is_chosen_over_occurrence",
            f"""SELECT family, symmetry, key, chosen_rate, chosen, occurrence FROM {t}
                WHERE NOT (abs(chosen_rate - chosen::DOUBLE / occurrence) <= 1e-12)""",
        ),
        sql_invariant(
            con,
            "orbit_size_divides_symmetry",
            f"""SELECT family, symmetry, key, orbit_size FROM {t}
                WHERE CASE WHEN orbit_size >= 1 THEN symmetry % orbit_size <> 0 ELSE true END""",
        ),
        sql_invariant(
            con,
            "result_is_blk4_mask_else_null",
            f"""SELECT family, symmetry, key, result FROM {t}
                WHERE (family = '{RESULT_FAMILY}') IS DISTINCT FROM (result IS NOT NULL)
                   OR result < 0 OR result >= {result_limit}""",
        ),
        sql_invariant(
            con,
            "diagram_present",
            f"SELECT family, symmetry, key FROM {t} WHERE diagram IS NULL OR diagram = ''",
        ),
    ]


def _unique_keys(con: duckdb.DuckDBPyConnection) -> Invariant:
    """(family, symmetry, key) unique, checked one (family, symmetry) part at a time to bound memory."""
    parts = con.sql(f"SELECT DISTINCT family, symmetry FROM {TABLE} ORDER BY ALL").fetchall()
    found = [
        sql_invariant(
            con,
            "family_symmetry_key_unique",
            f"""SELECT family, symmetry, key, count(*) AS copies FROM {TABLE}
                WHERE family IS NOT DISTINCT FROM $family AND symmetry IS NOT DISTINCT FROM $symmetry
                GROUP BY ALL HAVING count(*) > 1""",
            params={"family": family, "symmetry": symmetry},
        )
        for family, symmetry in parts
    ]
    evidence = "; ".join(invariant.evidence for invariant in found if invariant.violations)
    return Invariant("family_symmetry_key_unique", sum(invariant.violations for invariant in found), evidence)


def _total_invariants(con: duckdb.DuckDBPyConnection, chosen_events: Mapping[str, int]) -> list[Invariant]:
    """Per family and symmetry totals against the manifest and against each other."""
    totals = {
        (family, symmetry): (int(occurrence), int(chosen))
        for family, symmetry, occurrence, chosen in con.sql(
            f"""SELECT family, symmetry, coalesce(sum(occurrence), 0), coalesce(sum(chosen), 0) FROM {TABLE}
                WHERE family IS NOT NULL AND symmetry IN (8, 16) GROUP BY ALL"""
        ).fetchall()
    }
    families = sorted(set(chosen_events) | {family for family, _ in totals})
    manifest_problems = []
    for family in families:
        if family not in chosen_events:
            manifest_problems.append(f"{family}: not in manifest families")
            continue
        for symmetry in SYMMETRIES:
            chosen = totals.get((family, symmetry), (0, 0))[1]
            if chosen != chosen_events[family]:
                manifest_problems.append(
                    f"{family}/{symmetry}: sum(chosen)={chosen}, chosen_events={chosen_events[family]}"
                )
    merge_problems = [
        f"{family}: (occurrence, chosen) 8={totals.get((family, 8), (0, 0))}, 16={totals.get((family, 16), (0, 0))}"
        for family in families
        if totals.get((family, 8), (0, 0)) != totals.get((family, 16), (0, 0))
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


def _key_invariants(con: duckdb.DuckDBPyConnection) -> list[Invariant]:
    """Canonical keys, orbit sizes, stones, variants and the 16 = merged 8 check, family by family."""
    tallies = {
        name: _Tally(name)
        for name in (
            "key_is_canonical",
            "orbit_size_matches_key",
            "key_variants_recanonicalise_to_key",
            "stones_match_key",
            "symmetry16_is_symmetry8_merged_by_colour_swap",
        )
    }
    present = {row[0] for row in con.sql(f"SELECT DISTINCT family FROM {TABLE}").fetchall()}
    for family in sorted(present & set(FAMILIES)):
        groups = {symmetry: FAMILIES[family].group(symmetry) for symmetry in SYMMETRIES}
        con.execute(f"CREATE OR REPLACE TABLE {MERGE_TABLE} (symmetry INTEGER, key BIGINT, occurrence BIGINT, chosen BIGINT)")
        try:
            for symmetry in SYMMETRIES:
                for batch in _batches(con, family, symmetry):
                    keys = _check_batch(family, groups[symmetry], batch, tallies)
                    if symmetry == 8:
                        keys = groups[16].canonicalize(keys)[0]
                    merge_rows = pa.table({
                        "symmetry": pa.array(np.full(len(keys), symmetry, dtype=np.int32)),
                        "key": keys, "occurrence": batch["occurrence"], "chosen": batch["chosen"],
                    })
                    con.register("merge_rows", merge_rows)
                    con.execute(f"INSERT INTO {MERGE_TABLE} FROM merge_rows")
                    con.unregister("merge_rows")
            count, examples = _merge_differences(con, family)
        finally:
            con.execute(f"DROP TABLE IF EXISTS {MERGE_TABLE}")
        tallies["symmetry16_is_symmetry8_merged_by_colour_swap"].add(count, examples)
    return [tally.invariant() for tally in tallies.values()]


def _batches(con: duckdb.DuckDBPyConnection, family: str, symmetry: int) -> Iterator[dict[str, np.ndarray]]:
    """Well-formed rows of one family and symmetry as numpy columns, about BATCH_ROWS at a time."""
    with con.cursor() as cursor:  # its own cursor: the caller writes through `con` while this streams
        reader = cursor.sql(
            f"""SELECT key, coalesce(orbit_size, 0) AS orbit_size, coalesce(stones, -1) AS stones,
                       coalesce(occurrence, 0) AS occurrence, coalesce(chosen, 0) AS chosen
                FROM {TABLE}
                WHERE family = $family AND symmetry = $symmetry AND length(key) = $n_digits
                  AND regexp_full_match(key, '[0-3]+')""",
            params={"family": family, "symmetry": symmetry, "n_digits": FAMILIES[family].layout.n_digits},
        ).to_arrow_reader(BATCH_ROWS)
        pending: list[pa.RecordBatch] = []
        rows = 0
        for record_batch in reader:
            pending.append(record_batch)
            rows += record_batch.num_rows
            if rows >= BATCH_ROWS:
                yield _columns(pending, family)
                pending, rows = [], 0
        if rows:
            yield _columns(pending, family)


def _columns(record_batches: list[pa.RecordBatch], family: str) -> dict[str, np.ndarray]:
    """Numpy columns of record batches; `digits` is the key digit matrix."""
    table = pa.Table.from_batches(record_batches)
    columns = {name: table.column(name).to_numpy() for name in ("orbit_size", "stones", "occurrence", "chosen")}
    keys = pa.concat_arrays(table.column("key").chunks)
    columns["digits"] = key_digits(keys, FAMILIES[family].layout.n_digits)
    return columns


def _check_batch(family: str, group: Group, batch: dict[str, np.ndarray], tallies: dict[str, _Tally]) -> np.ndarray:
    """Tally the key invariants of one batch of one family and symmetry; returns its int64 keys."""
    digits = batch["digits"]
    n_digits = digits.shape[1]
    keys = encode_digits(digits)
    canonical, orbit, _ = group.canonicalize(keys)
    variant_digits = np.empty_like(digits)
    for index, element in enumerate(group.elements):
        variant_digits[index :: group.order] = apply_element(element, digits[index :: group.order])
    variants = encode_digits(variant_digits)
    recanonical = group.canonicalize(variants)[0]
    counted = stones(family, keys)

    def text(key: np.int64) -> str:
        return key_string(int(key), n_digits)

    checks: dict[str, tuple[np.ndarray, Callable[[int], str]]] = {
        "key_is_canonical": (canonical != keys, lambda row: f"canonical form {text(canonical[row])}"),
        "orbit_size_matches_key": (
            batch["orbit_size"] != orbit,
            lambda row: f"orbit_size {batch['orbit_size'][row]}, recomputed {orbit[row]}",
        ),
        "key_variants_recanonicalise_to_key": (
            recanonical != keys,
            lambda row: f"variant {text(variants[row])} re-canonicalises to {text(recanonical[row])}",
        ),
        "stones_match_key": (
            batch["stones"] != counted,
            lambda row: f"stones {batch['stones'][row]}, recomputed {counted[row]}",
        ),
    }
    for name, (bad, describe) in checks.items():
        rows = np.flatnonzero(bad)
        examples = (f"{family}/{group.order} {text(keys[row])}: {describe(row)}" for row in rows[:SAMPLES])
        tallies[name].add(len(rows), examples)
    return keys


def _merge_differences(con: duckdb.DuckDBPyConnection, family: str) -> tuple[int, list[str]]:
    """Number of 16-canonical keys whose merged 8-symmetry counts differ from the 16 rows, and examples.

    Sums MERGE_TABLE (the 8 rows under their 16-canonical key, and the 16 rows) in DuckDB, so the
    check spills to disk instead of holding a family's keys in memory.
    """
    rows = con.sql(
        f"""WITH sides AS (
                SELECT key, symmetry, sum(occurrence) AS occurrence, sum(chosen) AS chosen
                FROM {MERGE_TABLE} GROUP BY key, symmetry
            )
            SELECT count(*) OVER () AS differences, coalesce(m.key, t.key) AS key,
                   m.occurrence, m.chosen, t.occurrence, t.chosen
            FROM (FROM sides WHERE symmetry = 8) AS m
            FULL OUTER JOIN (FROM sides WHERE symmetry = 16) AS t USING (key)
            WHERE m.occurrence IS DISTINCT FROM t.occurrence OR m.chosen IS DISTINCT FROM t.chosen
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
