"""Move-prediction evaluation outside Prefect: held-out games read and split by date, a release's predictor and
opening book loaded, and evaluation records written into the release manifest."""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import io
import json
import os
import random
import tarfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypedDict

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa

from gopat.effects.warehouse.fetch import fetch, is_url, sha256_file, sha256_folder
from gopat.effects.warehouse.layout import Layout, current_version, read_manifest, table_files
from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.games.archives import MemberReject, iter_members
from gopat.transforms.games.board import BLACK, WHITE
from gopat.transforms.games.errors import RejectError
from gopat.transforms.games.packed import GameMoves
from gopat.transforms.games.parsing import parse_games
from gopat.transforms.games.records import game_row, ingest_members
from gopat.transforms.predict.book import BOOK_MOVES, BOOK_SIZE, Book, build_book
from gopat.transforms.predict.predictor import Predictor, load_predictor
from gopat.transforms.predict.ranking import Weights, load_weights


def release_version(layout: Layout, release: str | None) -> str:
    """The requested version, or the current one; ValueError when there is none."""
    version = release or current_version(layout)
    if version is None:
        raise ValueError(f"no release in {layout.releases}; run `gopat build` first")
    read_manifest(layout, version)
    return version


def release_families(layout: Layout, version: str) -> list[str]:
    """The pattern families release ``version`` was built with."""
    return list(read_manifest(layout, version).get("config", {}).get("families", []))


def opening_book(con: duckdb.DuckDBPyConnection, release_dir: Path) -> Book:
    """The opening book of a release's games: the first BOOK_MOVES moves of its 19x19 games without setup stones."""
    frame = con.sql(
        sql_text("evaluation/book_moves"),
        params=[str(release_dir / "moves.parquet"), str(release_dir / "games.parquet"), BOOK_SIZE, BOOK_MOVES],
    ).pl()
    moves = np.stack([np.where(frame["colour"].to_numpy() == "B", BLACK, WHITE), frame["row"].to_numpy(),
                      frame["col"].to_numpy()], axis=1).astype(np.int16)
    ends = np.flatnonzero(frame["game_id"].to_numpy()[1:] != frame["game_id"].to_numpy()[:-1]) + 1
    no_setup = np.zeros((0, 3), dtype=np.int16)
    return build_book([GameMoves(BOOK_SIZE, no_setup, part) for part in np.split(moves, ends) if len(part)])


def predictor_for(layout: Layout, version: str, *, weights: Weights | None = None) -> Predictor:
    """Load a release's 16-symmetry statistics of the families ``weights`` (default: the shipped ones) rank with,
    and its opening book."""
    weights = weights or load_weights()
    needed = weights.families
    built = release_families(layout, version)
    missing = [f for f in needed if f not in built]
    if missing:
        raise ValueError(
            f"release {version} lacks the prediction families {' '.join(missing)}; build it with "
            f"`gopat build --families {' '.join(needed)}` (plus any other families)"
        )
    parts = table_files(layout.release_dir(version))["pattern_stats"]  # a partitioned table (docs/releases.md)
    params = [[str(path.resolve()) for path in parts], list(needed)]
    with duckdb.connect() as con:
        book = opening_book(con, layout.release_dir(version).resolve())
        rows = con.sql(sql_text("evaluation/pattern_count"), params=params).fetchall()[0][0]
        batches = con.sql(sql_text("evaluation/patterns"), params=params).to_arrow_reader(1_000_000)
        return load_predictor(_frames(batches), weights=weights, rows=rows, book=book)


def _frames(batches: Iterable[pa.RecordBatch]) -> Iterator[pl.DataFrame]:
    """Each Arrow record batch as a polars DataFrame (zero copy)."""
    for batch in batches:
        frame = pl.from_arrow(batch)
        if not isinstance(frame, pl.DataFrame):  # a record batch always gives a DataFrame
            raise TypeError(f"expected a DataFrame from a record batch, got {type(frame).__name__}")
        yield frame


def read_games(source: str, *, raw_dir: Path) -> tuple[list[GameMoves], dict[str, Any]]:
    """Parse and replay every game of a source (URL, archive, SGF file or folder); the games and a summary
    (``source``, ``sha256``, ``files``, ``rejected``, ``games``)."""
    if is_url(source):
        fetched = fetch(source, raw_dir=raw_dir)
        path, sha = fetched.path, fetched.sha256
    else:
        path = Path(source).expanduser()
        if not path.exists():
            raise ValueError(f"{source}: no such file or folder")
        sha = sha256_folder(path) if path.is_dir() else sha256_file(path)
    members, rejected = [], 0
    for member in iter_members(path):
        if isinstance(member, MemberReject):
            rejected += 1
        else:
            members.append((member.name, member.data))
    shard = ingest_members(members, source=source, source_sha256=sha)
    games = [shard.replays[game_id] for game_id in shard.games["game_id"]]
    summary = {"source": source, "sha256": sha, "files": len(members) + rejected,
               "rejected": rejected + len(shard.rejects), "games": len(games)}
    return games, summary


@contextlib.contextmanager
def _manifest_lock(layout: Layout) -> Iterator[None]:
    """Serialise manifest updates of one warehouse (blocking, unlike the build lock)."""
    layout.root.mkdir(parents=True, exist_ok=True)
    with (layout.root / ".manifest.lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def record_evaluation(layout: Layout, version: str, record: dict[str, Any]) -> Path:
    """Add ``record`` to the release manifest's ``evaluations`` (keyed by the games' sha256), atomically.

    The manifest is written to a hidden temporary file in releases/ (not in the release folder, which
    must hold only the files its manifest lists) and renamed over it; the Parquet files and their
    ``files`` checksums are untouched.
    """
    path = layout.release_dir(version) / "manifest.json"
    with _manifest_lock(layout):
        manifest = read_manifest(layout, version)
        manifest.setdefault("evaluations", {})[record["games"]["sha256"]] = record
        tmp = layout.releases / f".manifest-{version}-{os.getpid()}.json.tmp"
        try:
            with tmp.open("w") as fh:
                fh.write(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    return path


class SplitCounts(TypedDict):
    """Members written by :func:`split_by_year` (``test_candidates``: dated from the test year on; ``skipped``:
    unreadable)."""

    train: int
    test: int
    test_candidates: int
    skipped: int
    calibration: int


def split_by_year(source: Path, *, first_test_year: int, train: Path, test: Path, test_games: int | None = None,
                  seed: int = 0, calibration: Path | None = None, calibration_games: int = 1000) -> SplitCounts:
    """Hold out games by date: write two .tar.gz archives (byte for byte reproducible) from ``source``.

    ``train`` gets every member whose first game is dated (DT) before ``first_test_year`` or not
    dated; ``test`` the members dated from that year on whose move sequences (the duplicate rule,
    docs/releases.md#duplicates) are not in ``train``, or a seeded random sample of ``test_games`` of
    them. Unreadable members go nowhere. ``calibration``, if given, gets a seeded sample of ``calibration_games`` of
    the held-out members not in ``test`` (to fit ranking weights on). Returns the counts.
    """
    before, after, train_sequences, skipped = [], [], set(), 0
    for member in iter_members(source):
        if isinstance(member, MemberReject):
            skipped += 1
            continue
        try:
            records = parse_games(member.data)
        except RejectError:
            skipped += 1
            continue
        rows = [game_row(record, game_id=member.name)[0] for record in records]
        sequences = {row["sequence_sha1"] for row in rows if row["move_count"] >= 20}
        year = rows[0]["year"]
        if year is None or year < first_test_year:
            before.append(member)
            train_sequences |= sequences
        else:
            after.append((member, sequences))
    held_out = sorted((m for m, sequences in after if not sequences & train_sequences), key=lambda m: m.name)
    rng = random.Random(seed)
    if test_games is not None and test_games < len(held_out):
        held_out = sorted(rng.sample(held_out, test_games), key=lambda m: m.name)
    outputs = [(train, before), (test, held_out)]
    if calibration is not None:
        taken = {m.name for m in held_out}
        rest = [m for m, sequences in after if not sequences & train_sequences and m.name not in taken]
        outputs.append((calibration, rng.sample(rest, min(calibration_games, len(rest)))))
    for path, members in outputs:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz, \
                tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT) as tar:
            for member in sorted(members, key=lambda m: m.name):
                info = tarfile.TarInfo(member.name)
                info.size = len(member.data)
                tar.addfile(info, io.BytesIO(member.data))
    return {"train": len(before), "test": len(held_out), "test_candidates": len(after), "skipped": skipped,
            "calibration": len(outputs[2][1]) if calibration is not None else 0}
