"""Expectation suite of the `game_counts` table: exact counts, the documented numbers and counting bounds."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import duckdb

from gopat.expectations import expect as e
from gopat.expectations import runner
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.patterns.symmetry import SQUARE_SYMMETRIES
from gopat.transforms.tables.registry import contract

TABLE = "game_counts"
SCHEMA = contract(TABLE)
# docs/symmetry.md#game-counts: 19x19, N = 1, 2, 3 -> (sequences, positions) up to the 8 symmetries.
KNOWN = {(19, 1): (55, 55), (19, 2): (16_416, 16_416), (19, 3): (5_834_862, 2_919_078)}
SAMPLES = 3


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table game_counts in `con`; `manifest` is not used.

    Exact integers are checked in Python: the numbers of docs/symmetry.md#game-counts for 19x19 and
    N <= 3; every count lies between the number of labelled games / 8 (an orbit has at most 8
    members) and that number; positions never exceed sequences; the float columns round the exact values.
    """
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA, types=False)
    if stopped:
        return stopped
    invariants = [schema, *runner.sql_invariants(con, "checks/game_counts")]
    rows = con.execute(sql_text("checks/game_counts_exact")).fetchall()
    invariants += _exact_invariants(rows)
    return runner.run_checks(con, TABLE, invariants, _expectations())


def _expectations() -> list[e.Expectation]:
    return [
        *runner.key_expectations(("board_size", "moves"), not_null=("board_size", "moves", "sequences_approx")),
        e.ExpectColumnValuesToBeBetween(column="board_size", min_value=2, max_value=25),
        e.ExpectColumnValuesToBeBetween(column="moves", min_value=1),
        e.ExpectColumnValuesToBeBetween(column="sequences_approx", min_value=0),
        e.ExpectColumnValuesToBeBetween(column="positions_approx", min_value=0),
    ]


def _exact_invariants(rows: list[tuple[Any, ...]]) -> list[runner.Invariant]:
    known, bounds, order, approx = [], [], [], []
    for size, moves, sequences_text, positions_text, sequences_approx, positions_approx in rows:
        sequences, positions = int(sequences_text), int(positions_text)
        label = f"{size}x{size} N={moves}: {sequences}, {positions}"
        if (size, moves) in KNOWN and KNOWN[(size, moves)] != (sequences, positions):
            known.append(f"{label}, expected {KNOWN[(size, moves)]}")
        points = size * size
        labelled_sequences = math.perm(points, moves)
        black, white = (moves + 1) // 2, moves // 2
        labelled_positions = math.comb(points, black) * math.comb(points - black, white) if moves <= points else 0
        for count, labelled in ((sequences, labelled_sequences), (positions, labelled_positions)):
            if not (labelled <= SQUARE_SYMMETRIES * count and count <= labelled):
                bounds.append(label)
        if positions > sequences:
            order.append(label)
        for exact, rounded in ((sequences, sequences_approx), (positions, positions_approx)):
            if not math.isclose(float(exact), rounded, rel_tol=1e-12):
                approx.append(label)
    return [
        runner.Invariant("game_counts_match_design_numbers", len(known), "; ".join(known[:SAMPLES])),
        runner.Invariant("game_counts_within_labelled_counts_and_an_eighth", len(bounds), "; ".join(bounds[:SAMPLES])),
        runner.Invariant("game_counts_positions_not_above_sequences", len(order), "; ".join(order[:SAMPLES])),
        runner.Invariant("game_counts_approx_equals_exact", len(approx), "; ".join(approx[:SAMPLES])),
    ]
