"""A search over a release's games: the hits (one per game) and the tables `gopat search` prints (docs/search.md)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from gopat.transforms.search.diagram import Pattern
from gopat.transforms.search.placements import placements
from gopat.transforms.search.replay import Events
from gopat.transforms.search.scan import scan

COLOURS = {1: "B", 2: "W"}


@dataclass(frozen=True, slots=True)
class Continuation:
    """The first later move inside the matched region: the diagram's (row, col), its colour as drawn, and
    whether it was the very next move."""

    row: int
    col: int
    colour: str
    immediate: bool


@dataclass(frozen=True, slots=True)
class Hit:
    """A game's first matching position: `move` moves were played (passes included)."""

    game: int
    move: int
    swapped: bool
    continuation: Continuation | None


def search(events: Events, games: np.ndarray, pattern: Pattern, *, colour_swap: bool = False,
           to_move: str | None = None) -> list[Hit]:
    """The hits among `games` (indices into `events`), in the order of `games`."""
    mover = {None: 0, "B": 1, "W": 2}[to_move]
    sizes = events.size[games]
    ranked: list[tuple[int, Hit]] = []  # (index in `games`, hit)
    for size in np.unique(sizes):
        rank = np.flatnonzero(sizes == size)
        table = placements(pattern, size=int(size), colour_swap=colour_swap, keep_swapped=mover != 0)
        found = scan(events, games[rank], table, to_move=mover)
        hit = np.flatnonzero(found.position >= 0)
        placement, position, continued = found.placement[hit], found.position[hit], found.continuation[hit]
        swapped = table.swapped[placement] == 1
        rows, cols = np.full(len(hit), -1), np.full(len(hit), -1)
        has = continued >= 0
        rows[has], cols[has] = table.frame_points(placement[has], found.point[hit][has])
        drawn = np.where(swapped, 3 - found.colour[hit], found.colour[hit])
        for r, g, k, j, s, row, col, c in zip(rank[hit].tolist(), games[rank[hit]].tolist(), position.tolist(),
                                              continued.tolist(), swapped.tolist(), rows.tolist(), cols.tolist(),
                                              drawn.tolist(), strict=True):
            continuation = Continuation(row, col, COLOURS[c], j == k + 1) if j >= 0 else None
            ranked.append((r, Hit(game=g, move=k, swapped=s, continuation=continuation)))
    ranked.sort(key=lambda item: item[0])
    return [hit for _, hit in ranked]


def select_games(games: pl.DataFrame, *, from_year: int | None = None, to_year: int | None = None,
                 player: str | None = None) -> np.ndarray:
    """Indices of the games that pass the filters: year bounds (a game without a year fails any), a player
    whose name contains `player` (either colour, case-insensitive)."""
    keep = []
    if from_year is not None:
        keep.append(pl.col("year") >= from_year)
    if to_year is not None:
        keep.append(pl.col("year") <= to_year)
    if player is not None:
        needle = player.lower()
        keep.append(pl.col("pb").str.to_lowercase().str.contains(needle, literal=True).fill_null(False)
                    | pl.col("pw").str.to_lowercase().str.contains(needle, literal=True).fill_null(False))
    selected = games.with_row_index("index").filter(*keep) if keep else games.with_row_index("index")
    return selected["index"].to_numpy().astype(np.int64)


def summary(hits: list[Hit], games: pl.DataFrame, *, searched: int, top_players: int = 10) -> dict[str, Any]:
    """The answer as one JSON-ready object: hits, every hit's game, continuations, years and players."""
    rows = games[[hit.game for hit in hits]].to_dicts() if hits else []
    listed = [{"game_id": row["game_id"], "move": hit.move, "swapped": hit.swapped,
               "continuation": None if hit.continuation is None else {
                   "point": [hit.continuation.row, hit.continuation.col], "colour": hit.continuation.colour,
                   "immediate": hit.continuation.immediate},
               "black": row["pb"], "white": row["pw"], "date": row["dt"], "year": row["year"], "winner": row["winner"]}
              for hit, row in zip(hits, rows, strict=True)]
    return {"hits": len(hits), "searched": searched, "games": listed, "continuations": continuations(listed),
            "no_continuation": sum(1 for g in listed if g["continuation"] is None),
            "years": [{"year": y, "hits": n} for y, n in sorted(Counter(g["year"] for g in listed).items(),
                                                                 key=lambda item: (item[0] is None, item[0] or 0))],
            "players": [{"name": name, "hits": n} for name, n in _players(listed)[:top_players]]}


def continuations(listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Continuations ranked by count: immediate and tenuki counts and Black's win rate (B 1, W 0, draw 0.5,
    unknown results left out), ties by point then colour."""
    groups: dict[tuple[int, int, str], list[dict[str, Any]]] = {}
    for game in listed:
        c = game["continuation"]
        if c is not None:
            groups.setdefault((c["point"][0], c["point"][1], c["colour"]), []).append(game)
    ranked = []
    for (row, col, colour), members in groups.items():
        scores = [{"B": 1.0, "W": 0.0, "D": 0.5}[g["winner"]] for g in members if g["winner"] in ("B", "W", "D")]
        immediate = sum(1 for g in members if g["continuation"]["immediate"])
        ranked.append({"point": [row, col], "colour": colour, "count": len(members), "immediate": immediate,
                       "tenuki": len(members) - immediate,
                       "black_win_rate": sum(scores) / len(scores) if scores else None})
    return sorted(ranked, key=lambda c: (-c["count"], c["point"], c["colour"]))


def _players(listed: list[dict[str, Any]]) -> list[tuple[str, int]]:
    counts: Counter[str] = Counter()
    for game in listed:
        counts.update({name for name in (game["black"], game["white"]) if name})
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))
