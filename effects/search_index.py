"""The search index of a release: its games replayed into board events, built on first use and cached
beside the release in `warehouse/cache/<version>/search/<key>/` (docs/search.md#index)."""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import polars as pl

from gopat.effects.warehouse.fetch import sha256_file, sha256_folder
from gopat.effects.warehouse.files import fsync_tree, remove
from gopat.effects.warehouse.layout import Layout, code_version, current_version, read_manifest, resolve_version
from gopat.effects.warehouse.open import open_release
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.games.archives import Member, iter_members
from gopat.transforms.games.parsing import parse_games
from gopat.transforms.search.replay import Events, replay_events

INDEX_FORMAT = 1  # bump when the files below change meaning
GAME_COLUMNS = ("game_id", "pb", "pw", "dt", "year", "winner")


@dataclass(frozen=True, slots=True)
class SearchIndex:
    """A release's games (in game_id order) and their events; `built_seconds` is None when read from the cache."""

    version: str
    path: Path
    games: pl.DataFrame
    events: Events
    built_seconds: float | None


def index_path(layout: Layout, version: str) -> Path:
    """The index folder of a release: keyed by the format, the code version and the sha256 of games and moves."""
    files = read_manifest(layout, version).get("files", {})
    sha256s = [str(files.get(f"{table}.parquet", {}).get("sha256")) for table in ("games", "moves")]
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
    arrays = {f.name: np.load(path / f"{f.name}.npy") for f in fields(Events)}
    return SearchIndex(version=version, path=path, games=pl.read_parquet(path / "games.parquet"),
                       events=Events(**arrays), built_seconds=built)


def build_index(layout: Layout, version: str, path: Path) -> None:
    """Replay every game of the release into events and write them to `path` atomically (a hidden folder, renamed)."""
    con, _ = open_release(layout.root, version)
    try:
        games = con.sql(sql_text("search__games")).pl()
        moves = con.sql(sql_text("search__moves")).fetchnumpy()
    finally:
        con.close()
    counts = games["move_count"].to_numpy().astype(np.int64)
    if int(counts.sum()) != len(moves["colour"]):
        raise ValueError(f"release {version}: moves has {len(moves['colour'])} rows, games count {int(counts.sum())}")
    setups = read_setups(layout, version, games.filter(pl.col("setup_stones") > 0))
    setup_list = [setups.get(game_id, np.zeros((0, 3), np.int64)) for game_id in games["game_id"]]
    events = replay_events(
        games["board_size"].to_numpy().astype(np.int64),
        np.concatenate([[0], np.cumsum([len(s) for s in setup_list])]).astype(np.int64),
        np.concatenate(setup_list).astype(np.int64) if setup_list else np.zeros((0, 3), np.int64),
        np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        np.stack([moves["colour"], moves["row"], moves["col"]], axis=1).astype(np.int64),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    hidden = path.parent / f".tmp-{path.name}-{os.getpid()}"
    remove(hidden)
    hidden.mkdir()
    for f in fields(Events):
        np.save(hidden / f"{f.name}.npy", getattr(events, f.name))
    games.select(GAME_COLUMNS).write_parquet(hidden / "games.parquet")
    fsync_tree(hidden)
    try:
        os.rename(hidden, path)
    except OSError:  # another process published the same index first
        remove(hidden)
        if not (path / "games.parquet").is_file():
            raise


def read_setups(layout: Layout, version: str, games: pl.DataFrame) -> dict[str, np.ndarray]:
    """The setup stones of `games`, read again from their sources: the release keeps only their number.

    A source is looked up in the warehouse's raw store, else at its recorded path if its sha256 still matches.
    """
    found: dict[str, np.ndarray] = {}
    for (source, sha), group in games.group_by(["source", "source_sha256"], maintain_order=True):
        wanted = {(m, t): g for g, m, t in group.select("game_id", "member", "tree_index").iter_rows()}
        path = _source_file(layout, str(source), str(sha))
        if path is None:
            raise ValueError(f"release {version}: {len(wanted)} games have setup stones, which the release does not "
                             f"store, and their source {source} is neither in {layout.raw} nor at its path")
        names = {m for m, _ in wanted}
        for item in iter_members(path):
            if isinstance(item, Member) and item.name in names:
                for record in parse_games(item.data):
                    game_id = wanted.get((item.name, record.tree_index))
                    if game_id is not None:
                        found[game_id] = np.array(record.setup, dtype=np.int64).reshape(-1, 3)
        missing = [g for g in wanted.values() if g not in found]
        if missing:
            raise ValueError(f"release {version}: {source}: game {missing[0]} not found again in its source")
    return found


def _source_file(layout: Layout, source: str, sha: str) -> Path | None:
    stored = sorted(p for p in layout.raw.glob(f"{sha}.*") if not p.name.endswith(".part")) if sha else []
    if stored:
        return stored[0]
    path = Path(source)
    if path.is_dir() and sha256_folder(path) == sha:
        return path
    if path.is_file() and sha256_file(path) == sha:
        return path
    return None
