"""Rows of `games`, `moves` and `rejects` from archive members: parse, replay, normalise headers."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from gopat.transforms.games.board import replay
from gopat.transforms.games.errors import RejectError
from gopat.transforms.games.members import Member
from gopat.transforms.games.packed import GameMoves
from gopat.transforms.games.parsing import GameRecord, parse_collection
from gopat.transforms.tables.registry import polars_schema

HEADERS = ("PB", "PW", "BR", "WR", "DT", "EV", "RE", "KM", "HA", "RU")
GAMES_SCHEMA, MOVES_SCHEMA, SETUPS_SCHEMA, REJECTS_SCHEMA = (polars_schema(name) for name in (
    "games", "moves", "setups", "rejects"))  # the tables' stored columns (transforms/tables/registry.py)
# Fox stores komi scaled (KM[375] = 7.5); KataGo's table of the values seen in the wild.
FOX_KOMI = {375: 7.5, 750: 7.5, 325: 6.5, 650: 6.5, 275: 5.5, 550: 5.5, 350: 7.0, 700: 7.0}
YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")


@dataclass(slots=True)
class IngestedShard:
    """What a batch of members became: table frames plus replayable games keyed by game_id."""

    games: pl.DataFrame
    moves: pl.DataFrame
    setups: pl.DataFrame
    rejects: pl.DataFrame
    replays: dict[str, GameMoves] = field(default_factory=dict)
    files_ingested: int = 0
    trees_in: int = 0  # game trees of the files ingested: games + rejected trees (docs/releases.md#ingest-contract)
    seconds: dict[str, float] = field(default_factory=dict)  # 'parse' and 'replay' (with row building)


def ingest_members(
    members: Iterable[Member | tuple[str, bytes]], *, source: str, source_sha256: str
) -> IngestedShard:
    """Parse and replay every member (a Member, or a UTF-8 name and its bytes).

    A member that yields no game becomes one `rejects` row; a game tree of a collection that
    yields no game while other trees do becomes one `rejects` row with its tree index.
    """
    game_rows: list[dict[str, Any]] = []
    reject_rows: list[dict[str, Any]] = []
    replays: dict[str, GameMoves] = {}
    files_ingested = trees_in = 0
    parse_seconds = replay_seconds = 0.0
    for item in members:
        member = item if isinstance(item, Member) else Member(*item)
        name, raw, guessed = member.name, member.name_raw, member.name_guessed
        start = time.perf_counter()
        try:
            records, rejected = parse_collection(member.data)
        except RejectError as error:
            reject_rows.append(
                reject_row(source, source_sha256, name, error.reason, str(error), member_raw=raw, name_guessed=guessed)
            )
            continue
        finally:
            parsed = time.perf_counter()
            parse_seconds += parsed - start
        files_ingested += 1
        trees_in += len(records) + len(rejected)
        reject_rows.extend(
            reject_row(
                source, source_sha256, name, tree.reason, tree.message,
                member_raw=raw, name_guessed=guessed, tree_index=tree.tree_index,
            )
            for tree in rejected
        )
        for record in records:
            game_id = f"{source_sha256[:12]}:{name}" + (f"#{record.tree_index}" if record.tree_index else "")
            row, game = game_row(record, game_id=game_id)
            row.update(
                source=source, source_sha256=source_sha256, member=name, member_raw=raw, member_name_guessed=guessed
            )
            game_rows.append(row)
            replays[game_id] = game
        replay_seconds += time.perf_counter() - parsed
    return IngestedShard(
        games=pl.DataFrame(game_rows, schema=GAMES_SCHEMA),
        moves=moves_frame(replays),
        setups=setups_frame(replays),
        rejects=pl.DataFrame(reject_rows, schema=REJECTS_SCHEMA),
        replays=replays,
        files_ingested=files_ingested,
        trees_in=trees_in,
        seconds={"parse": parse_seconds, "replay": replay_seconds},
    )


def reject_row(
    source: str,
    sha256: str | None,
    member: str,
    reason: str,
    message: str,
    *,
    member_raw: str | None = None,
    name_guessed: bool = False,
    tree_index: int | None = None,
) -> dict[str, Any]:
    """One `rejects` row; ``tree_index`` only for a game tree of a file that yields games."""
    return {
        "source": source,
        "source_sha256": sha256,
        "member": member,
        "member_raw": member_raw,
        "member_name_guessed": name_guessed,
        "tree_index": tree_index,
        "reason": reason,
        "message": message,
    }


def game_row(record: GameRecord, *, game_id: str) -> tuple[dict[str, Any], GameMoves]:
    """The `games` row of a parsed record (without source columns) and its legal main line."""
    setup = np.array(record.setup, dtype=np.int16).reshape(-1, 3)
    moves = np.array(record.moves, dtype=np.int16).reshape(-1, 3)
    legal, reason = replay(record.board_size, setup, moves)
    flags = list(record.flags)
    if reason is not None:
        flags.append(f"illegal_{reason}")
    moves = moves[:legal]
    headers = record.headers
    komi, komi_flag = parse_komi(headers.get("KM"))
    if komi_flag:
        flags.append(komi_flag)
    digest = hashlib.sha1(np.int16(record.board_size).tobytes() + setup.tobytes() + b"|" + moves.tobytes())
    row = {
        "game_id": game_id,
        "tree_index": record.tree_index,
        **{name.lower(): headers.get(name) for name in HEADERS},
        "year": parse_year(headers.get("DT")),
        "winner": parse_winner(headers.get("RE")),
        "komi": komi,
        "handicap": parse_handicap(headers.get("HA")),
        "board_size": record.board_size,
        "move_count": len(moves),
        "setup_stones": len(setup),
        "encoding": record.encoding,
        "flags": flags,
        "sequence_sha1": digest.hexdigest(),
    }
    return row, GameMoves(board_size=record.board_size, setup=setup, moves=moves)


def moves_frame(replays: dict[str, GameMoves]) -> pl.DataFrame:
    """The `moves` rows of many games, built column-wise in one go."""
    return _stones_frame({game_id: game.moves for game_id, game in replays.items()}, "move_number", MOVES_SCHEMA)


def setups_frame(replays: dict[str, GameMoves]) -> pl.DataFrame:
    """The `setups` rows of many games: their setup stones in the order they are placed."""
    return _stones_frame({game_id: game.setup for game_id, game in replays.items()}, "stone_number", SETUPS_SCHEMA)


def _stones_frame(stones: dict[str, np.ndarray], number: str, schema: dict[str, Any]) -> pl.DataFrame:
    """Rows (game_id, number from 1, colour, row, col) of each game's ``(colour, row, col)`` stones; a pass
    (-1, -1) has no row or col."""
    ids = [game_id for game_id, rows in stones.items() if len(rows)]
    counts = np.array([len(stones[i]) for i in ids], dtype=np.int64)
    both = np.concatenate([stones[i] for i in ids]) if ids else np.zeros((0, 3), np.int16)
    colour, row, col = both[:, 0], both[:, 1], both[:, 2]
    on_board = row >= 0
    frame = pl.DataFrame(
        {
            "game_id": np.repeat(np.array(ids, dtype=object), counts),
            number: np.concatenate([np.arange(1, n + 1) for n in counts]) if ids else [],
            "colour": np.where(colour == 1, "B", "W"),
            "row": row,
            "col": col,
        },
        schema=schema,
    )
    return frame.with_columns(pl.when(pl.Series(on_board)).then(pl.col(c)) for c in ("row", "col"))


def parse_year(dt: str | None) -> int | None:
    """First 4-digit number of DT within 1000..2999."""
    match = YEAR.search(dt or "")
    year = int(match.group(1)) if match else None
    return year if year is not None and 1000 <= year <= 2999 else None


def parse_winner(result: str | None) -> str | None:
    """'B', 'W', 'D' (draw or jigo) or None from an RE value."""
    text = (result or "").strip().upper()
    if text.startswith(("B+", "W+")):
        return text[0]
    if text in {"0", "DRAW", "JIGO", "D"}:
        return "D"
    return None


def parse_komi(km: str | None) -> tuple[float | None, str | None]:
    """Komi and a flag: Fox's scaled values are repaired ('komi_scaled'), implausible ones dropped."""
    try:
        komi = float((km or "").strip())
    except ValueError:
        return None, "komi_unparsed" if km else None
    if komi in FOX_KOMI:
        return FOX_KOMI[int(komi)], "komi_scaled"
    if not -50 <= komi <= 50:
        return None, "komi_implausible"
    return komi, None


def parse_handicap(ha: str | None) -> int:
    """HA as an integer, 0 when absent, unreadable or more than a board's points (361)."""
    text = (ha or "").strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 3:
        return 0
    return int(text) if int(text) <= 361 else 0
