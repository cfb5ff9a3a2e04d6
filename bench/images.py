"""Image corpus: the 8 board symmetries of every game kept in a release, and the exact check of their build.

Usage: .venv/bin/python bench/images.py --warehouse DIR [--archive PATH ...] --out DIR
       .venv/bin/python bench/images.py --check BASE_WAREHOUSE IMAGES_WAREHOUSE

Generating reads the `games` table of the warehouse's current release and streams the source archives its rows
name (by default the paths in its `source` column; `--archive` gives them elsewhere, matched by sha256). It writes
`base.tar.gz` (each kept game once, `NNNNNN.sgf`) and `images.tar.gz` (its 8 images, `NNNNNN-T.sgf`, T = 0..7, 0 the
identity; T as in transforms/analytics/sql/fuseki__d4.sql), then prints the command lines that build and check them.
Each file holds the kept game tree of its member only, as its main line: the nodes the build reads. Every
point-valued property is transformed (B, W, AB, AW, AE and the markup TR, SQ, CR, MA, SL, TB, TW, DD, VW, LB, AR,
LN; compressed rectangles by their corners); passes, malformed and off-board values stay as written, so each image
stops where the game does. Every other property is kept byte for byte, but for CA, which names UTF-8 when the build
reads the file by re-encoding it as UTF-8 (files in other encodings).

Left out of both archives, with the count printed: a game of 20 moves or more whose 8 images are not 8 distinct
move sequences (a symmetric game), or one of whose images is an image of a game kept before it (the same game in
another orientation): the build keeps one copy of games with the same `sequence_sha1` (transforms/analytics/sql/
games.sql), so they would collide. Shorter games are never compared by the build and are kept even when symmetric.
A game whose identity image does not read back with its release's `sequence_sha1` is left out too.

The images are built with every family's min_occurrence times 8 (printed; `d12`, `sq3` and `dia13` publish every
key at 1). `--check` then compares the two current releases, one line per table, and exits 1 on any mismatch:
`games`, `moves`, `setups`, `move_patterns` rows x8; `pattern_stats` the same (family, symmetry, key) with
occurrence and chosen x8; `pattern_tail` the same keys with occurrence, chosen and the threshold x8; `fuseki` the
same (kind, key, position, distinct_sequences, years) with games and result counts x8. Every pattern key, fuseki
key and d12 event is canonical modulo the 8 symmetries, so each table is exactly x8.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import gzip
import hashlib
import io
import multiprocessing
import os
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

import duckdb
from sgfmill import sgf_grammar

from gopat.effects.warehouse.layout import Layout, current_version, read_manifest
from gopat.effects.warehouse.open import create_views, open_release
from gopat.transforms.games.archives import iter_members
from gopat.transforms.games.errors import RejectError
from gopat.transforms.games.members import Member
from gopat.transforms.games.parsing import GameRecord, parse_collection, read_trees
from gopat.transforms.games.records import game_row
from gopat.transforms.patterns.families import COMPLETE_FAMILIES

IMAGES = 8
COMPARED_MOVES = 20  # the build compares sequences of games with at least this many moves (games.sql)
MOVE_PROPERTIES = ("B", "W")
POINT_LISTS = ("AB", "AW", "AE", "TR", "SQ", "CR", "MA", "SL", "TB", "TW", "DD", "VW")
POINT_PAIRS = ("AR", "LN")  # point:point
LABELS = ("LB",)  # point:text
POINT_VALUED = frozenset((*MOVE_PROPERTIES, *POINT_LISTS, *POINT_PAIRS, *LABELS))
PROGRESS_EVERY = 5000
CHUNK = 64  # games per task of a worker process


def transform(row: int, col: int, size: int, t: int) -> tuple[int, int]:
    """(row, col) under symmetry t of a size x size board (0 identity, 1-3 rotations, 4-7 reflections)."""
    m = size - 1
    return ((row, col), (col, m - row), (m - row, m - col), (m - col, row),
            (row, m - col), (m - row, col), (col, row), (m - col, m - row))[t]


@functools.cache
def point_maps(size: int) -> tuple[dict[bytes, bytes], ...]:
    """For each symmetry t, every SGF point of a size x size board to its image."""
    points = [(row, col) for row in range(size) for col in range(size)]
    return tuple({bytes((97 + col, 97 + row)): bytes((97 + image[1], 97 + image[0]))
                  for row, col in points for image in [transform(row, col, size, t)]} for t in range(IMAGES))


def _image_value(name: str, value: bytes, points: dict[bytes, bytes]) -> bytes:
    """One value of a point-valued property under the symmetry of `points` (a rectangle or a pair by both points;
    passes, off-board and malformed values as they are)."""
    if name not in MOVE_PROPERTIES:
        first, colon, rest = value.partition(b":")
        if colon:
            image = points.get(first.strip(), first) + b":"
            return image + (rest if name in LABELS else points.get(rest.strip(), rest))
    return points.get(value.strip(), value)


def image_node(node: dict[str, list[bytes]], points: dict[bytes, bytes]) -> dict[str, list[bytes]]:
    """A coarse node with every point-valued property under the symmetry of `points`."""
    return {name: [_image_value(name, value, points) for value in values] if name in POINT_VALUED else values
            for name, values in node.items()}


def _order(item: tuple[str, list[bytes]]) -> tuple[bool, str]:
    return item[0] != "FF", item[0]


def serialise(nodes: list[dict[str, list[bytes]]]) -> bytes:
    """One SGF game tree of the main-line `nodes`, as sgfmill's serialise_game_tree writes it unwrapped (FF first,
    then the properties by name)."""
    return b"(" + b"".join(
        b";" + b"".join(name.encode("ascii") + b"".join(b"[" + value + b"]" for value in values)
                        for name, values in sorted(node.items(), key=_order))
        for node in nodes) + b")\n"


def image_sgf(nodes: list[dict[str, list[bytes]]], size: int, t: int) -> bytes:
    """One SGF game tree: the main-line `nodes` under symmetry t."""
    points = point_maps(size)[t]
    return serialise([image_node(node, points) for node in nodes])


def image_record(record: GameRecord, t: int) -> GameRecord:
    """The record the build reads from image t of `record`'s game (setup sorted as the parser sorts it)."""
    size = record.board_size

    def stone(colour: int, row: int, col: int) -> tuple[int, int, int]:
        return (colour, row, col) if row < 0 else (colour, *transform(row, col, size, t))

    return dataclasses.replace(record, setup=tuple(sorted(stone(*s) for s in record.setup)),
                               moves=tuple(stone(*m) for m in record.moves))


def main_line(data: bytes, tree_index: int) -> list[dict[str, list[bytes]]]:
    """The main-line nodes of a member's game tree as the build tokenises it; a root CA of UTF-8 when the build
    re-encodes the file's text as UTF-8."""
    read = read_trees(data)
    tree = read.trees[tree_index]
    if isinstance(tree, RejectError):
        raise ValueError(f"game tree {tree_index} does not parse: {tree}")
    nodes = [dict(node) for node in sgf_grammar.main_sequence_iter(tree[0])]
    if read.encoding != read.values_encoding:
        nodes[0]["CA"] = [b"UTF-8"]
    return nodes


@dataclasses.dataclass(slots=True)
class Tally:
    """What the generator wrote and left out."""

    written: int = 0
    left_out: dict[str, int] = dataclasses.field(default_factory=lambda: {
        "symmetric": 0, "image_of_a_kept_game": 0, "reads_back_differently": 0})


def image_hashes(record: GameRecord) -> tuple[list[str], int]:
    """The sequence_sha1 the build gives each of the 8 images of `record`'s game (t = 0..7), and its move_count."""
    rows = [game_row(image_record(record, t), game_id="")[0] for t in range(IMAGES)]
    return [str(row["sequence_sha1"]) for row in rows], int(rows[0]["move_count"])


def left_out(record: GameRecord, sequence: str, claimed: set[str], *,
             hashed: tuple[list[str], int] | None = None) -> str:
    """Why the game of `record` (`sequence`: its release's sequence_sha1) is left out, '' when it is kept; the
    sequence_sha1 of a kept game's images (`hashed`: image_hashes(record), computed when not given), when the
    build compares them, join `claimed`."""
    hashes, move_count = image_hashes(record) if hashed is None else hashed
    if hashes[0] != sequence:
        return "reads_back_differently"
    if move_count < COMPARED_MOVES:
        return ""
    if len(set(hashes)) < IMAGES:
        return "symmetric"
    if claimed.intersection(hashes):
        return "image_of_a_kept_game"
    claimed.update(hashes)
    return ""


@dataclasses.dataclass(frozen=True, slots=True)
class Imaged:
    """One kept game read back as the build reads it: its record, its main line as SGF, its images' SGF and
    sequence_sha1 (t = 0..7) and its move_count."""

    record: GameRecord
    identity: bytes
    images: list[bytes]
    hashes: tuple[list[str], int]


def imaged(item: tuple[bytes, int]) -> Imaged:
    """The game tree `item` = (member bytes, tree index) imaged (run in the worker processes)."""
    nodes = main_line(*item)
    identity = serialise(nodes)
    record = parse_collection(identity)[0][0]
    images = [image_sgf(nodes, record.board_size, t) for t in range(IMAGES)]
    return Imaged(record, identity, images, image_hashes(record))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(2**20):
            digest.update(chunk)
    return digest.hexdigest()


def _kept_games(warehouse: Path) -> tuple[dict[str, dict[str, dict[int, str]]], dict[str, str]]:
    """The current release's games: {source_sha256: {member: {tree_index: sequence_sha1}}} and {sha256: source}."""
    games: dict[str, dict[str, dict[int, str]]] = {}
    sources: dict[str, str] = {}
    with open_release(warehouse) as release:
        rows = release.con.execute(
            "SELECT source, source_sha256, member, tree_index, sequence_sha1 FROM games").fetchall()
    for source, sha256, member, tree_index, sequence in rows:
        sources[sha256] = source
        games.setdefault(sha256, {}).setdefault(member, {})[tree_index] = sequence
    return games, sources


def _archives(sources: dict[str, str], given: list[Path]) -> list[tuple[str, Path]]:
    """(sha256, path) of every source of the release, found by sha256 among `given` and the `source` paths."""
    found = {_sha256(path): path for path in (*given, *map(Path, sources.values())) if path.is_file()}
    missing = [source for sha256, source in sources.items() if sha256 not in found]
    if missing:
        raise ValueError(f"no archive with the sha256 of the release's sources {missing}: give them with --archive")
    return [(sha256, found[sha256]) for sha256 in sources]


def _write(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), 0, 0o644
    tar.addfile(info, io.BytesIO(data))


def _open_tar(path: Path) -> tarfile.TarFile:
    """A tar.gz written without a date, so the same release gives the same bytes."""
    return tarfile.open(fileobj=gzip.GzipFile(path, "wb", mtime=0), mode="w")


def _kept_members(archives: list[tuple[str, Path]], games: dict[str, dict[str, dict[int, str]]]
                  ) -> Iterator[tuple[Member, dict[int, str]]]:
    """Each member that holds kept games, streamed in archive order, with {tree_index: sequence_sha1}."""
    for sha256, path in archives:
        for member in iter_members(path):
            if isinstance(member, Member) and member.name in games[sha256]:
                yield member, games[sha256][member.name]


def generate(warehouse: Path, out: Path, *, archives: list[Path] | None = None) -> Tally:
    """Write base.tar.gz and images.tar.gz of the current release of `warehouse` into `out` (see the docstring)."""
    games, sources = _kept_games(warehouse)
    total = sum(len(trees) for members in games.values() for trees in members.values())
    claimed: set[str] = set()  # the sequence_sha1 of every image of the games written
    tally = Tally()
    out.mkdir(parents=True, exist_ok=True)
    kept = ((member.data, tree_index, sequence) for member, trees in
            _kept_members(_archives(sources, archives or []), games) for tree_index, sequence in sorted(trees.items()))
    seen = 0
    with (_open_tar(out / "base.tar.gz") as base, _open_tar(out / "images.tar.gz") as images,
          multiprocessing.get_context("spawn").Pool(os.cpu_count()) as pool):
        sequences: list[str] = []

        def items() -> Iterator[tuple[bytes, int]]:
            for data, tree_index, sequence in kept:
                sequences.append(sequence)
                yield data, tree_index

        for game in pool.imap(imaged, items(), chunksize=CHUNK):
            seen += 1
            if seen % PROGRESS_EVERY == 0:
                print(f"images: {seen:,} of {total:,} games read, {tally.written:,} written", file=sys.stderr)
            if reason := left_out(game.record, sequences[seen - 1], claimed, hashed=game.hashes):
                tally.left_out[reason] += 1
                continue
            _write(base, f"{tally.written:06d}.sgf", game.identity)
            for t, image in enumerate(game.images):
                _write(images, f"{tally.written:06d}-{t}.sgf", image)
            tally.written += 1
    if seen < total:
        raise ValueError(f"{total - seen:,} of the release's {total:,} games are not in its source archives")
    return tally


def images_min_occurrence(warehouse: Path) -> dict[str, int]:
    """The images build's threshold of each family of the current release: 8 times the release's (d12, sq3 and
    dia13 publish every key at 1 in both)."""
    layout = Layout(warehouse)
    version = current_version(layout)
    if version is None:
        raise ValueError(f"no release in {warehouse}")
    given: dict[str, int] = read_manifest(layout, version)["config"]["min_occurrence"]
    return {family: value if family in COMPLETE_FAMILIES else IMAGES * value for family, value in given.items()}


# (table, key columns, columns x8, columns equal); a table without key columns compares its row count.
CHECKS: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    ("games", (), (), ()),
    ("moves", (), (), ()),
    ("setups", (), (), ()),
    ("move_patterns", (), (), ()),
    ("pattern_stats", ("family", "symmetry", "key"), ("occurrence", "chosen"), ()),
    ("pattern_tail", ("family", "symmetry"), ("occurrence", "chosen"), ("keys",)),
    ("fuseki", ("kind", "key"), ("games", "unknown_year", "results_known", "unknown_results", "black_score"),
     ("moves", "position", "distinct_sequences", "first_year", "last_year")),
)


def _attach(con: duckdb.DuckDBPyConnection, schema: str, warehouse: Path) -> None:
    """The views of the current release of `warehouse` in `schema` of `con`."""
    layout = Layout(warehouse)
    version = current_version(layout)
    if version is None:
        raise ValueError(f"no release in {warehouse}")
    con.execute(f"CREATE SCHEMA {schema}; USE memory.{schema}")
    create_views(con, layout, version, read_manifest(layout, version))
    con.execute("USE memory.main")


def _threshold(table: str) -> str:
    """pattern_tail's min_occurrence as the images build must have it: x8, but 1 for the families of every key."""
    if table != "pattern_tail":
        return ""
    complete = ", ".join(f"'{family}'" for family in COMPLETE_FAMILIES)
    return f", CASE WHEN family IN ({complete}) THEN min_occurrence ELSE min_occurrence * {IMAGES} END"


def check(base: Path, images: Path) -> list[tuple[str, bool, str]]:
    """(table, exact, what was compared) of each table of CHECKS: the images release against 8 times the base."""
    results = []
    with tempfile.TemporaryDirectory(prefix="gopat-images-") as spill, duckdb.connect() as con:
        con.execute(f"SET memory_limit = '2GB'; SET temp_directory = '{spill}'")
        _attach(con, "base", base)
        _attach(con, "images", images)
        for table, keys, scaled, equal in CHECKS:
            if not keys:
                (b, i), = con.execute(f"SELECT (SELECT count(*) FROM base.{table}), "
                                      f"(SELECT count(*) FROM images.{table})").fetchall()
                results.append((table, i == IMAGES * b, f"rows {b:,} x8 = {IMAGES * b:,}, images {i:,}"))
                continue
            plain = ", ".join((*keys, *equal))
            expected = f"SELECT {plain}, " + ", ".join(f"{c} * {IMAGES}" for c in scaled) + _threshold(table)
            found = f"SELECT {plain}, {', '.join(scaled)}" + (", min_occurrence" if _threshold(table) else "")
            (rows, missing, extra), = con.execute(
                f"WITH b AS ({expected} FROM base.{table}), i AS ({found} FROM images.{table}) "
                "SELECT (SELECT count(*) FROM b), (SELECT count(*) FROM (FROM b EXCEPT ALL FROM i)), "
                "(SELECT count(*) FROM (FROM i EXCEPT ALL FROM b))").fetchall()
            results.append((table, missing == extra == 0,
                            f"{rows:,} rows, {', '.join(scaled)}{', min_occurrence' if _threshold(table) else ''} x8: "
                            f"{missing:,} not in images, {extra:,} extra"))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/images.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", type=Path, help="the warehouse whose current release is imaged")
    parser.add_argument("--archive", type=Path, action="append", default=[], help="a source archive (repeatable)")
    parser.add_argument("--out", type=Path, help="the folder of base.tar.gz and images.tar.gz")
    parser.add_argument("--check", type=Path, nargs=2, metavar=("BASE_WAREHOUSE", "IMAGES_WAREHOUSE"))
    args = parser.parse_args(argv)
    try:
        return _run(parser, args)
    except (ValueError, OSError) as error:  # bad input: one line, no traceback
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Generate the archives, or check two releases, as `args` asks."""
    if args.check:
        results = check(*args.check)
        for table, exact, detail in results:
            print(f"{table:14} {'exact' if exact else 'MISMATCH'}  {detail}")
        return 0 if all(exact for _, exact, _ in results) else 1
    if args.warehouse is None or args.out is None:
        parser.error("give --warehouse and --out, or --check")
    tally = generate(args.warehouse, args.out, archives=args.archive)
    print(f"written {tally.written:,} games to {args.out / 'base.tar.gz'} and {IMAGES * tally.written:,} images to "
          f"{args.out / 'images.tar.gz'}; left out: "
          + ", ".join(f"{count:,} {reason.replace('_', ' ')}" for reason, count in tally.left_out.items()))
    thresholds = images_min_occurrence(args.warehouse)
    options = " ".join(f"{family}={value}" for family, value in thresholds.items() if family not in COMPLETE_FAMILIES)
    families = " ".join(thresholds)
    print(f"gopat build --source {args.out / 'base.tar.gz'} --warehouse BASE --families {families}")
    print(f"gopat build --source {args.out / 'images.tar.gz'} --warehouse IMAGES --families {families}"
          + (f" --min-occurrence {options}" if options else ""))
    print(f"{parser.prog} --check BASE IMAGES")
    return 0


if __name__ == "__main__":
    sys.exit(main())
