"""The work of a shard on the build's runner (flows/shards.py): it reads its inputs, computes, writes its own files
to the stage and returns counts only, so no game passes through the flow (docs/scaling.md#one-way-data-flow).

An ingest shard parses and replays archive members into the rows of games, moves, setups and rejects; an
extraction shard reads a range of the kept games back from the staged moves and setups files and writes their
pattern counts and move_patterns rows. Workers and the flow share the stage by path.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from gopat.effects.parquet import COUNTS_PARQUET, parquet_file, write_parquet
from gopat.transforms.games.members import Member
from gopat.transforms.games.packed import GameMoves
from gopat.transforms.games.records import ingest_members
from gopat.transforms.patterns.canonical import (
    EVENTS_SCHEMA,
    PATTERN_COUNTS_SCHEMA,
    canonical_events,
    canonical_shard,
)
from gopat.transforms.patterns.extract import extract
from gopat.transforms.patterns.families import replay_groups
from gopat.transforms.patterns.symmetry import SYMMETRIES

INGESTED_TABLES = ("games", "moves", "setups", "rejects")  # an ingest shard's files, one folder each
# Row groups of an extraction shard's counts (a family after another, each sorted by symmetry and key, its last row
# group ending with it): a part reads only those that can hold its key range (docs/releases.md#parts).
COUNTS_ROW_GROUP_ROWS = 122_880


@dataclass(frozen=True, slots=True)
class Ingested:
    """What an ingest shard wrote: its file of each of INGESTED_TABLES, and its counts."""

    files: dict[str, Path]
    files_ingested: int
    trees_in: int  # game trees of the files ingested: games + rejected trees (docs/releases.md#ingest-contract)
    games: int
    seconds: dict[str, float]  # 'parse' and 'replay' (with row building)


@dataclass(frozen=True, slots=True)
class StagedGames:
    """The staged files an extraction shard reads: the games to extract (game_id, board_size, in game_id order) and
    the moves and setups files of the build's kept games (the release's files, in game_id order)."""

    games: Path
    moves: Path
    setups: Path


def ingest_shard(
    members: Iterable[Member | tuple[str, bytes]], *, source: str, source_sha256: str, source_index: int,
    folder: Path, name: str,
) -> Ingested:
    """Parse and replay `members` of a source (records.ingest_members) and write the rows of each of INGESTED_TABLES
    to `folder/<table>/<name>.parquet`; the games carry `source_index`, the source's place in the build."""
    shard = ingest_members(members, source=source, source_sha256=source_sha256)
    frames = {
        "games": shard.games.with_columns(source_index=pl.lit(source_index, pl.Int32)),
        "moves": shard.moves, "setups": shard.setups, "rejects": shard.rejects,
    }
    files = {table: folder / table / f"{name}.parquet" for table in INGESTED_TABLES}
    for table, frame in frames.items():
        table_rows = frame.to_arrow()
        write_parquet(files[table], [table_rows], schema=table_rows.schema)
    return Ingested(files=files, files_ingested=shard.files_ingested, trees_in=shard.trees_in,
                    games=shard.games.height, seconds=shard.seconds)


def extract_range(
    staged: StagedGames, first: str | None, last: str | None, families: tuple[str, ...], *,
    event_families: Sequence[str], counts: Path, events: Path,
) -> dict[str, int]:
    """Extract the staged games from `first` to `last` (game_ids, both included; None: no game) and write their
    pattern counts to `counts`, a family after another as extract_shard makes them, and their move_patterns rows to
    `events`, a row group a family in family order; returns the chosen events per family."""
    game_ids, games = read_games(staged, first, last)
    chosen: dict[str, int] = {}
    chosen_rows: dict[str, pa.Table] = {}
    with parquet_file(counts, schema=PATTERN_COUNTS_SCHEMA, row_group_rows=COUNTS_ROW_GROUP_ROWS,
                      **COUNTS_PARQUET) as write:
        for rows in extract_shard(games, families, game_ids=game_ids, event_families=event_families):
            write(rows.counts)
            chosen[rows.family] = rows.chosen
            if rows.events is not None:
                chosen_rows[rows.family] = rows.events
    write_parquet(events, [chosen_rows[family] for family in sorted(chosen_rows)], schema=EVENTS_SCHEMA)
    return chosen


def read_games(staged: StagedGames, first: str | None, last: str | None) -> tuple[list[str], list[GameMoves]]:
    """The staged games from `first` to `last` (game_ids, both included), in game_id order, as replayed games:
    each game's setup stones and legal moves, read from the row groups of the moves and setups files that hold them."""
    if first is None or last is None:
        return [], []
    between = [("game_id", ">=", first), ("game_id", "<=", last)]
    wanted = pl.from_arrow(pq.read_table(staged.games, columns=["game_id", "board_size"], filters=between))
    assert isinstance(wanted, pl.DataFrame)  # a table gives a frame
    ids = wanted["game_id"].to_list()
    setups, moves = (_stones(path, ids, between) for path in (staged.setups, staged.moves))
    empty = np.zeros((0, 3), dtype=np.int16)
    games = [
        GameMoves(board_size=size, setup=setups.get(game_id, empty), moves=moves.get(game_id, empty))
        for game_id, size in zip(ids, wanted["board_size"].to_list(), strict=True)
    ]
    return ids, games


def _stones(path: Path, ids: list[str], between: list[tuple[str, str, str]]) -> dict[str, np.ndarray]:
    """The ``(colour, row, col)`` stones of games `ids` in a moves or setups file (rows in game order), by game; a
    pass is ``(colour, -1, -1)``, as records.game_row replays it."""
    table = pq.read_table(path, columns=["game_id", "colour", "row", "col"], filters=between)
    rows = pl.from_arrow(table)
    assert isinstance(rows, pl.DataFrame)  # a table gives a frame
    rows = rows.filter(pl.col("game_id").is_in(ids))
    if rows.is_empty():
        return {}
    stones = rows.select(
        pl.when(pl.col("colour") == "B").then(1).otherwise(2).alias("colour"),
        pl.col("row").fill_null(-1), pl.col("col").fill_null(-1),
    ).to_numpy().astype(np.int16)
    per_game = rows.group_by("game_id", maintain_order=True).len()
    split = np.split(stones, np.cumsum(per_game["len"].to_numpy())[:-1])
    return dict(zip(per_game["game_id"].to_list(), split, strict=True))


class FamilyRows(NamedTuple):
    """What extraction makes of a shard of games for one family (extract_shard)."""

    family: str
    counts: pa.Table  # pattern counts, canonical under both groups (PATTERN_COUNTS_SCHEMA)
    events: pa.Table | None  # move_patterns rows (EVENTS_SCHEMA) of an event family, in game and move order
    chosen: int  # chosen events


def extract_shard(
    games: list[GameMoves], families: tuple[str, ...], *, game_ids: Sequence[str] = (),
    event_families: Sequence[str] = (),
) -> Iterator[FamilyRows]:
    """The rows of each of `families` for a shard of games, one family after another: its pattern counts, the chosen
    events of `event_families` as `move_patterns` rows (games named by `game_ids`, in shard order) and its number of
    chosen events (the manifest's check on the summed table).

    One replay keys each group of families.replay_groups, in their order; a family's rows are made from its group's
    raw counts, which are dropped before the next group's replay, so a caller that writes each family's rows before
    taking the next holds one group's rows at most.
    """
    for group in replay_groups(families):
        extracted = extract(games, families=group)
        alone = len(group) == 1  # the group's rows are its family's
        for family in group:
            raw = extracted.counts if alone else extracted.counts.filter(pl.col("family") == family)
            counts = canonical_shard(raw, symmetries=SYMMETRIES).to_arrow()
            rows = extracted.events if alone else extracted.events.filter(pl.col("family") == family)
            yield FamilyRows(
                family, counts.select(PATTERN_COUNTS_SCHEMA.names).cast(PATTERN_COUNTS_SCHEMA),
                canonical_events(rows, game_ids=game_ids) if family in event_families else None,
                extracted.chosen_events[family],
            )
            del raw, counts, rows
        del extracted
