"""The incremental build's merge of move_patterns: whole games interleaved by game_id equal a sort of all rows."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gopat.effects.parquet import merge_move_patterns
from gopat.transforms.patterns.canonical import EVENTS_SCHEMA

FAMILIES = ("d12", "dia13", "sq3")
# game ids as the build writes them (docs/releases.md#games): hash prefix, colon, member; some share a prefix
GAME_IDS = st.builds(lambda prefix, member: f"{prefix}:{member}", st.sampled_from(["0a1b", "0a1c", "ff00"]),
                     st.text("ab/é.", min_size=1, max_size=4))


def _rows(games: dict[str, int], family: str) -> list[dict[str, object]]:
    """`games[id]` moves of each game, for `family`, in game and move order."""
    return [
        {"family": family, "game_id": game_id, "move_number": move, "colour": "BW"[move % 2],
         "key8": f"{family}{move}", "key16": f"{game_id}{move}"}
        for game_id in sorted(games) for move in range(1, games[game_id] + 1)
    ]


def _write(path: Path, rows: list[dict[str, object]], *, row_group_rows: int) -> Path:
    """Parquet file `path` of `rows`, a row group per family cut every `row_group_rows` rows."""
    with pq.ParquetWriter(path, EVENTS_SCHEMA) as writer:
        for family in FAMILIES:
            part = pa.Table.from_pylist([r for r in rows if r["family"] == family], schema=EVENTS_SCHEMA)
            for start in range(0, part.num_rows, row_group_rows):
                writer.write_table(part.slice(start, row_group_rows), row_group_size=row_group_rows)
    return path


@given(
    games=st.dictionaries(GAME_IDS, st.integers(1, 7), min_size=1, max_size=25),
    new_share=st.integers(0, 100),
    shards=st.integers(1, 4),
    row_group_rows=st.integers(1, 9),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_merge_equals_a_sort_of_the_previous_and_new_rows(
    tmp_path: Path, games: dict[str, int], new_share: int, shards: int, row_group_rows: int
) -> None:
    ids = sorted(games)
    new = {game_id for i, game_id in enumerate(ids) if (i * 37) % 100 < new_share}  # spread over the order
    old_rows = [r for f in FAMILIES[:2] for r in _rows({g: games[g] for g in ids if g not in new}, f)]
    new_rows = [r for f in FAMILIES for r in _rows({g: games[g] for g in ids if g in new}, f)]
    previous = _write(tmp_path / "previous.parquet", old_rows, row_group_rows=row_group_rows)
    added_games = sorted(new)
    cut = [added_games[len(added_games) * i // shards: len(added_games) * (i + 1) // shards]  # consecutive games
           for i in range(shards)]
    shard_files = [
        _write(tmp_path / f"shard-{i}.parquet", [r for r in new_rows if r["game_id"] in part], row_group_rows=1000)
        for i, part in enumerate(cut)
    ]
    for family in FAMILIES:
        merged = [row for table in merge_move_patterns(previous, shard_files, family) for row in table.to_pylist()]
        expected = sorted((r for r in old_rows + new_rows if r["family"] == family),
                          key=lambda r: (str(r["game_id"]).encode(), r["move_number"]))
        assert merged == expected, family


def test_previous_row_group_of_two_families_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "previous.parquet"
    pq.write_table(pa.Table.from_pylist(_rows({"a:1": 1}, "d12") + _rows({"a:1": 1}, "sq3"), schema=EVENTS_SCHEMA),
                   path)
    with pytest.raises(ValueError, match="row group 0 is not of one family"):
        list(merge_move_patterns(path, [], "d12"))
