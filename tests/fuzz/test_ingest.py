"""Fuzzing archive reading plus `ingest_members`, as the build joins them (flows/ingest.py).

The ingest equations hold on every archive: files in = members ingested + file rejects, trees in = games +
rejected trees (docs/releases.md#ingest-contract); every member becomes game rows (and rows for its broken trees)
or exactly one reject row; moves and setups have the games' move and setup stone counts.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.games.archives import Member, MemberReject
from gopat.transforms.games.board import MAX_SIZE, MIN_SIZE
from gopat.transforms.games.parsing import parse_collection
from gopat.transforms.games.records import ingest_members
from tests.fuzz import test_archives
from tests.fuzz.strategies import CI, Archive, archives, documented_codes, seed_files

NAME = "ingest"
SOURCE, SHA256 = "fuzz.tar.gz", "f" * 64
PARSE_REASONS = documented_codes(parse_collection.__doc__, after="Raises")


def inputs(seeds: tuple[bytes, ...]) -> st.SearchStrategy[Archive]:
    """Archives of fuzzed files, without the slow multi-megabyte bomb members."""
    return archives(seeds, max_entries=6, bomb=False)


def check(archive: Archive) -> None:
    """Raise AssertionError when the ingest equation or the rows' consistency breaks."""
    items = test_archives.check(archive)
    members = [(item.name, item.data) for item in items if isinstance(item, Member)]
    member_rejects = len(items) - len(members)
    shard = ingest_members(members, source=SOURCE, source_sha256=SHA256)
    tree_rejects = shard.rejects.filter(pl.col("tree_index").is_not_null())  # broken trees of files that gave games
    rejected = shard.rejects.filter(pl.col("tree_index").is_null())["member"].to_list()
    files_in, files_rejected = len(items), member_rejects + len(rejected)
    assert files_in == shard.files_ingested + files_rejected, (files_in, shard.files_ingested, files_rejected)
    assert shard.trees_in == shard.games.height + tree_rejects.height, (shard.trees_in, shard.games.height)
    assert all(isinstance(item, MemberReject) for item in items if not isinstance(item, Member))
    ingested = set(shard.games["member"].to_list())
    assert set(tree_rejects["member"].to_list()) <= ingested, "a rejected tree of a file that gave no game"
    assert len(ingested) == shard.files_ingested and len(set(rejected)) == len(rejected), "a member counted twice"
    assert ingested | set(rejected) == {name for name, _ in members} and not ingested & set(rejected)
    assert set(shard.rejects["reason"].to_list()) <= PARSE_REASONS, shard.rejects["reason"].unique().to_list()
    games = shard.games
    assert games["game_id"].n_unique() == games.height == len(shard.replays)
    assert games["board_size"].is_between(MIN_SIZE, MAX_SIZE).all()
    assert shard.moves.height == int(games["move_count"].sum()), "moves rows != the games' move counts"
    assert shard.setups.height == int(games["setup_stones"].sum()), "setups rows != the games' setup stones"
    assert (games["source"] == SOURCE).all() and (games["source_sha256"] == SHA256).all()


def reproducer(archive: Archive) -> bytes:
    """The archive's bytes to save for a failing input."""
    return archive.data


@settings(CI, max_examples=120)
@given(data=st.data())
def test_ingest_equation_holds_on_fuzzed_archives(tiny_archive: Path, hostile_dir: Path, data: st.DataObject) -> None:
    archive = data.draw(inputs(seed_files(tiny_archive, hostile_dir)))
    check(archive)
