"""A whole extraction shard's rows as the tests compare them, collected from effects/shard_work.py extract_shard."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from gopat.effects.shard_work import extract_shard
from gopat.transforms.games.packed import GameMoves


def shard_rows(
    games: list[GameMoves], families: Sequence[str], **options: Any
) -> tuple[pa.Table, list[pa.Table], dict[str, int]]:
    """The pattern counts of every family in the order extract_shard makes them, the move_patterns rows a table a
    family in family order, and the chosen events per family."""
    rows = list(extract_shard(games, tuple(families), **options))
    events = [family.events for family in sorted(rows) if family.events is not None]
    chosen = {family.family: family.chosen for family in rows}
    return pa.concat_tables([family.counts for family in rows]), events, chosen
