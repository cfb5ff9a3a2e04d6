"""Key checks of the `pattern_stats` suite on the published rows, in streamed batches: every key parsed and
re-canonicalised, its orbit size recomputed, its uniqueness."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import duckdb
import numpy as np
import numpy.typing as npt

from gopat.expectations.key_batches import CHECKERS, SAMPLES, Batch, Checked, Order, Tally, batches, empty_tallies
from gopat.expectations.pattern_keys import parse_keys
from gopat.expectations.runner import Invariant
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.keys import key_string
from gopat.transforms.patterns.symmetry import SYMMETRIES, Group


def key_invariants(con: duckdb.DuckDBPyConnection, source: str) -> list[Invariant]:
    """Key format, uniqueness, canonical keys, orbit sizes and variants of the published rows of `source`.

    Family by family, every key text of the 8 and 16 symmetries is parsed and checked in batches on
    CHECKERS threads. Keys that come in strictly increasing order within each symmetry, as the build
    writes them, are unique; otherwise DuckDB counts the duplicates.
    """
    tallies = empty_tallies(
        "key_is_colour_then_family_digits", "family_symmetry_key_unique", "key_is_canonical",
        "orbit_size_matches_key", "key_variants_recanonicalise_to_key",
    )
    present = {family for (family,) in con.execute("SELECT DISTINCT family FROM query_table(?)", [source]).fetchall()}
    for family in sorted(present & FAMILIES.keys()):
        groups = {symmetry: FAMILIES[family].group(symmetry) for symmetry in SYMMETRIES}
        order = Order()
        with ThreadPoolExecutor(max_workers=CHECKERS) as checker:  # batches are checked while others are read
            pending: deque[Future[Checked]] = deque()
            for symmetry in SYMMETRIES:
                for batch in batches(con, source, family, symmetry, "checks/pattern_stats_key_batches"):
                    pending.append(checker.submit(_check_rows, family, groups[symmetry], symmetry, batch))
                    if len(pending) > CHECKERS:
                        _tally(pending.popleft().result(), tallies, order)
            while pending:
                _tally(pending.popleft().result(), tallies, order)
        if not order.increasing:
            tallies["family_symmetry_key_unique"].add(*_duplicate_texts(con, source, family))
    return [tally.invariant() for tally in tallies.values()]


def _check_rows(family: str, group: Group, symmetry: int, batch: Batch) -> Checked:
    """Check one batch of published rows."""
    keys, _, found = _check_batch(family, group, batch)
    return Checked(symmetry, keys, found)


def _tally(checked: Checked, tallies: dict[str, Tally], order: Order) -> None:
    """Count a checked batch's violations and note its key order (batches are taken in table order)."""
    for name, (count, examples) in checked.found.items():
        tallies[name].add(count, examples)
    order.add(checked.symmetry, checked.keys)


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
