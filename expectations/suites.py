"""The suite of each published table (transforms/tables/registry.py names its file): table name -> its `validate`."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from gopat.expectations import (
    dont_care_templates,
    fuseki,
    game_counts,
    games,
    move_patterns,
    moves,
    opening_tree,
    pattern_stats,
    pattern_tail,
    rejects,
    setups,
)
from gopat.expectations.runner import SuiteResult

Suite = Callable[..., SuiteResult]
"""`validate(con, *, manifest)`: a table's expectations over the build's DuckDB connection."""

SUITES: Mapping[str, Suite] = {module.__name__.rsplit(".", 1)[1]: module.validate for module in (
    dont_care_templates, fuseki, game_counts, games, move_patterns, moves, opening_tree, pattern_stats, pattern_tail,
    rejects, setups,
)}

