"""The search index of a release: its games replayed into board events, built on first use and cached
beside the release in `warehouse/cache/<version>/search/<key>/` (docs/search.md#index)."""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from gopat.effects.warehouse.files import fsync_tree, remove
from gopat.effects.warehouse.layout import Layout, code_version, current_version, read_manifest, resolve_version
from gopat.transforms.search.replay import Events, replay_events

if TYPE_CHECKING:
    import duckdb

INDEX_FORMAT = 2  # bump when the files below change meaning
GAME_COLUMNS = ("game_id", "pb", "pw", "dt", "year", "winner")
BATCH_ROWS = 1_000_000  # rows of moves or setups read at a time


@dataclass(frozen=True, slots=True)
class SearchIndex:
    """A release's games (in game_id order) and their events; `built_seconds` is None when read from the cache."""

    version: str
    path: Path
    games: pl.DataFrame
    events: Events
    built_seconds: float | None


def index_path(layout: Layout, version: str) -> Path:
    """The index folder of a release: keyed by the format, the code version and the sha256 of games, moves, setups."""
    files = read_manifest(layout, version).get("files", {})
    sha256s = [str(entry["sha256"]) if (entry := files.get(f"{table}.parquet")) else "None"
               for table in ("games", "moves", "setups")]
    parts = [str(INDEX_FORMAT), code_version(), *sha256s]
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]
    return layout.root / "cache" / version / "search" / key


def load_index(warehouse: Path, release: str | None = None) -> SearchIndex:
    """The search index of `release` (default: the current one), built and cached when absent."""
    layout = Layout(Path(warehouse))
    version = resolve_version(layout, release) if release else current_version(layout)
    if version is None:
        raise ValueError(f"no release in {layout.releases}; run `gopat build` first")
    path = index_path(layout, version)
    built = None
    if not (path / "games.parquet").is_file():
        start = time.perf_counter()
        build_index(layout, version, path)
        built = time.perf_counter() - start
    # mapped, not read: a new process pays only for the pages its search reads (the page cache shares them)
    arrays = {f.name: np.load(path / f"{f.name}.npy", mmap_mode="r") for f in fields(Events)}
    return SearchIndex(version=version, path=path, games=pl.read_parquet(path / "games.parquet"),
                       events=Events(**arrays), built_seconds=built)


def build_index(layout: Layout, version: str, path: Path) -> None:
    """Replay every game of the release into events and write them to `path` atomically (a hidden folder, renamed)."""
    # imported here: a search that finds its index cached needs neither DuckDB nor pyarrow
    from gopat.effects.parquet import write_parquet
    from gopat.effects.warehouse.open import connect_release
    from gopat.transforms.analytics.loader import sql_text

    con, _ = connect_release(layout.root, version)
    try:
        games = con.sql(sql_text("search/games")).pl()
        counts = games["move_count"].to_numpy().astype(np.int64)
        moves = _placed(con, "search/moves", counts, table="moves", version=version)
        setups = _setups(con, version, games)
    finally:
        con.close()
    events = replay_events(
        games["board_size"].to_numpy().astype(np.int64),
        np.concatenate([[0], np.cumsum(games["setup_stones"].to_numpy())]).astype(np.int64),
        setups,
        np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        moves,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    hidden = path.parent / f".tmp-{path.name}-{os.getpid()}"
    remove(hidden)
    hidden.mkdir()
    for f in fields(Events):
        np.save(hidden / f"{f.name}.npy", getattr(events, f.name))
    rows = games.select(GAME_COLUMNS).to_arrow()
    write_parquet(hidden / "games.parquet", [rows], schema=rows.schema)
    fsync_tree(hidden)
    try:
        os.rename(hidden, path)
    except OSError:  # another process published the same index first
        remove(hidden)
        if not (path / "games.parquet").is_file():
            raise


def _setups(con: duckdb.DuckDBPyConnection, version: str, games: pl.DataFrame) -> np.ndarray:
    """The release's setup stones ``(colour, row, col)`` in game order, as many per game as `setup_stones` says."""
    expected = int(games["setup_stones"].sum())
    views = {name for (name,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    if "setups" not in views:
        if expected:
            raise ValueError(f"release {version}: {expected} setup stones but no setups table (a release built before "
                             "it was published); rebuild it to search it")
        return np.zeros((0, 3), np.int16)
    counts = games["setup_stones"].to_numpy().astype(np.int64)
    return _placed(con, "search/setups", counts, table="setups", version=version)


def _placed(con: duckdb.DuckDBPyConnection, query: str, counts: np.ndarray, *, table: str, version: str
            ) -> np.ndarray:
    """The ``(colour, row, col)`` rows of `query` in game order, then number order, `counts[g]` for game g: each row
    is placed by its (game, number) as the batches stream in, so nothing is sorted and nothing is held twice.

    Raises ValueError unless the rows fill exactly the places the counts give."""
    from gopat.transforms.analytics.loader import sql_text

    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    stones = np.empty((int(starts[-1]), 3), np.int16)  # int16: a quarter of int64's memory
    filled = np.zeros(len(stones), np.bool_)
    rows = 0
    con.execute(sql_text("search/game_ranks"))
    for batch in con.sql(sql_text(query)).to_arrow_reader(BATCH_ROWS):
        game = batch.column("game").to_numpy()
        number = batch.column("number").to_numpy().astype(np.int64)
        if ((number < 1) | (number > counts[game])).any():
            raise ValueError(f"release {version}: {table} numbers a row past its game's count")
        at = starts[game] + number - 1
        for column, name in enumerate(("colour", "row", "col")):
            stones[at, column] = batch.column(name).to_numpy()
        filled[at] = True
        rows += batch.num_rows
    if rows != len(stones) or not filled.all():
        raise ValueError(f"release {version}: {table} has {rows} rows, the games count {len(stones)}")
    return stones
