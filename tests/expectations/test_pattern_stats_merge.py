"""The 16 = merged 8 check of the complete counts: the sorted merge agrees with a dictionary reference, and the
scratch tables take over when the keys are not in order."""

from __future__ import annotations

from collections import defaultdict

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.expectations import key_batches, pattern_counts_merge
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.keys import key_string

FAMILY = "sq3"
GROUP8, GROUP16 = FAMILIES[FAMILY].group(8), FAMILIES[FAMILY].group(16)
N_DIGITS = FAMILIES[FAMILY].layout.n_digits
MERGE = "symmetry16_is_symmetry8_merged_by_colour_swap"

raw_keys = st.lists(st.integers(min_value=4 ** (N_DIGITS - 1), max_value=3 * 4 ** (N_DIGITS - 1) - 1),
                    min_size=1, max_size=60)
faults = st.lists(st.tuples(st.sampled_from(["drop", "bump", "extra"]), st.sampled_from([8, 16]),
                            st.integers(0, 10 ** 6)), max_size=3)


def counts_table(keys: list[int], fault_list: list[tuple[str, int, int]]) -> dict[int, dict[int, list[int]]]:
    """Per symmetry, key -> [occurrence, chosen] of the raw ``keys`` (pattern events), then the faults applied."""
    table: dict[int, dict[int, list[int]]] = {8: defaultdict(lambda: [0, 0]), 16: defaultdict(lambda: [0, 0])}
    raw = np.array(keys, dtype=np.int64)
    for symmetry, group in ((8, GROUP8), (16, GROUP16)):
        for i, key in enumerate(group.canonicalize(raw)[0].tolist()):
            table[symmetry][key][0] += 1
            table[symmetry][key][1] += i % 2
    for kind, symmetry, seed in fault_list:
        rows = sorted(table[symmetry])
        if kind == "drop" and rows:
            del table[symmetry][rows[seed % len(rows)]]
        elif kind == "bump" and rows:
            table[symmetry][rows[seed % len(rows)]][seed % 2] += 1
        elif kind == "extra":  # a row for the 8-canonical form of some pattern
            key = GROUP8.canonicalize(np.array([4 ** (N_DIGITS - 1) + seed % (2 * 4 ** (N_DIGITS - 1))]))[0][0]
            table[symmetry][int(key)][0] += 1
    return table


def reference(table: dict[int, dict[int, list[int]]]) -> tuple[int, list[str]]:
    """Differences between the 8-rows summed by their 16-canonical key and the 16-rows, and the first examples."""
    merged: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for key, (occurrence, chosen) in table[8].items():
        target = int(GROUP16.canonicalize(np.array([key], dtype=np.int64))[0][0])
        merged[target][0] += occurrence
        merged[target][1] += chosen

    def text(side: dict[int, list[int]], key: int) -> str:
        return f"occurrence {side[key][0]}, chosen {side[key][1]}" if key in side else "absent"

    wrong = sorted(key for key in merged.keys() | table[16].keys() if merged.get(key) != table[16].get(key))
    examples = [f"{FAMILY} {key_string(key, N_DIGITS)}: merged 8 {text(merged, key)}; 16 {text(table[16], key)}"
                for key in wrong[:key_batches.SAMPLES]]
    return len(wrong), examples


def connection(table: dict[int, dict[int, list[int]]], *, shuffled: bool = False) -> duckdb.DuckDBPyConnection:
    """A connection with view `counts` of ``table`` in key order (or reversed), as runs of complete counts hold them."""
    rows = [(FAMILY, symmetry, key, *counts) for symmetry in (8, 16) for key, counts in sorted(table[symmetry].items())]
    con = duckdb.connect()
    con.execute("CREATE TABLE counts (family VARCHAR, symmetry INTEGER, key BIGINT, occurrence BIGINT, "
                "chosen BIGINT)")
    if rows:
        con.executemany("INSERT INTO counts VALUES (?, ?, ?, ?, ?)", rows[::-1] if shuffled else rows)
    return con


@settings(max_examples=60, deadline=None)
@given(keys=raw_keys, fault_list=faults, batch_rows=st.integers(1, 9))
def test_sorted_merge_matches_the_reference(keys: list[int], fault_list: list[tuple[str, int, int]],
                                            batch_rows: int) -> None:
    table = counts_table(keys, fault_list)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(key_batches, "BATCH_ROWS", batch_rows)
        found = pattern_counts_merge._sorted_merge_differences(connection(table), "counts", FAMILY, GROUP16)
    assert found == reference(table)


@settings(max_examples=20, deadline=None)
@given(keys=raw_keys, fault_list=faults)
def test_keys_out_of_order_fall_back_to_the_scratch_tables(keys: list[int],
                                                           fault_list: list[tuple[str, int, int]]) -> None:
    table = counts_table(keys, fault_list)
    con = connection(table, shuffled=True)
    out_of_order = any(len(table[symmetry]) > 1 for symmetry in (8, 16))
    if out_of_order:
        assert pattern_counts_merge._sorted_merge_differences(con, "counts", FAMILY, GROUP16) is None
    tallies = {i.name: i for i in pattern_counts_merge.complete_count_invariants(con, "counts")}
    differences, examples = reference(table)
    assert tallies["complete_counts_key_unique"].violations == 0
    assert (tallies[MERGE].violations, tallies[MERGE].evidence) == (differences, "e.g. " + "; ".join(examples)
                                                                    if examples else "")
