"""ingest_members: member-name provenance and rejected game trees in the games and rejects frames."""

from __future__ import annotations

from gopat.transforms.games.archives import Member
from gopat.transforms.games.records import ingest_members

SHA = "ab" * 32
GOOD = b"(;GM[1]FF[4]SZ[9]PB[a];B[aa];W[cc])"
BROKEN = b"(;GM[1]FF[4]SZ[9];B[bb];W[c"  # cut inside a value
GBK = "棋谱/柯洁.sgf".encode("gbk")


def test_rows_carry_the_name_bytes_and_the_rejected_trees() -> None:
    members = [
        # trees 0 and 2 kept, 1 rejected
        Member("棋谱/柯洁.sgf", GOOD + BROKEN + b"\n" + GOOD, name_raw=GBK.hex(), name_guessed=True),
        Member("棋谱/空.sgf", b"  ", name_raw="c6e5c6d72fbfd52e736766", name_guessed=True),  # rejected whole
        ("plain.sgf", GOOD),  # a (name, bytes) pair: a UTF-8 name
    ]
    shard = ingest_members(members, source="src", source_sha256=SHA)
    games = shard.games.select("game_id", "member", "member_raw", "member_name_guessed", "tree_index").rows()
    assert games == [
        ("abababababab:棋谱/柯洁.sgf", "棋谱/柯洁.sgf", GBK.hex(), True, 0),
        ("abababababab:棋谱/柯洁.sgf#2", "棋谱/柯洁.sgf", GBK.hex(), True, 2),
        ("abababababab:plain.sgf", "plain.sgf", None, False, 0),
    ]
    rejects = shard.rejects.select("member", "member_raw", "member_name_guessed", "tree_index", "reason").rows()
    assert rejects == [
        ("棋谱/柯洁.sgf", GBK.hex(), True, 1, "truncated"),
        ("棋谱/空.sgf", "c6e5c6d72fbfd52e736766", True, None, "empty_file"),
    ]
    # trees in = games + rejected trees, over the files ingested
    assert (shard.files_ingested, shard.trees_in) == (2, 4)
    assert shard.trees_in == shard.games.height + shard.rejects["tree_index"].count()
    assert set(shard.replays) == {row[0] for row in games}


def test_an_impossible_handicap_is_zero() -> None:
    """Found by the fuzzing campaign (tests/fuzz): HA beyond Int32, and a digit int() refuses."""
    members = [(f"{i}.sgf", f"(;GM[1]SZ[19]HA[{ha}];B[aa])".encode()) for i, ha in
               enumerate(["99999999999", "9" * 40, "²", "362", " 9 "])]
    shard = ingest_members(members, source="src", source_sha256=SHA)
    assert shard.games["handicap"].to_list() == [0, 0, 0, 0, 9]
